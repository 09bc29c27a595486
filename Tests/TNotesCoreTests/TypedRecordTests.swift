import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// Issue #50: each collection is one typed definition (Sources/TNotesCore/Records), and the record schema that
// validates every record is derived from it. These tests hold the derived schemas equal to the hand-written
// ones they replaced (copied here, field by field), decode random valid records of every collection and
// encode them back equal, and read every field of the wrong type leniently, without a trap.

private typealias F = RecordSchema.Field

/// The schemas as they were written by hand before the typed records (RecordSchema.swift, 0088807).
private let handWritten: [RecordCollection: [F]] = {
    let status = FieldType.enumeration(["pending", "processing", "complete", "failed"])
    return [
        .sermons: [
            F("id", .uuid),
            F("title", .string),
            F("date", .time),
            F("serviceType", .string, default: "Sunday Service"),
            F("speaker", .string, nullable: true, default: .null),
            F("isArchived", .bool, default: false),
            F("transcriptionStatus", status, default: "pending"),
            F("summaryStatus", status, default: "pending"),
            F("audio", .audio, nullable: true, default: .null),
            F("createdAt", .time),
            F("updatedAt", .time),
            F("deletedAt", .time, nullable: true, default: .null),
            F("forkedFrom", .object, optional: true),
        ],
        .notes: [
            F("id", .uuid),
            F("sermonId", .uuid),
            F("text", .string),
            F("timestamp", .number(min: 0)),
            F("createdAt", .time),
            F("updatedAt", .time),
            F("deletedAt", .time, nullable: true, default: .null),
        ],
        .transcripts: [
            F("id", .uuid),
            F("sermonId", .uuid),
            F("text", .string),
            F("status", status, default: "complete"),
            F("segments", .segments, default: []),
            F("updatedAt", .time),
            F("deletedAt", .time, nullable: true, default: .null),
        ],
        .summaries: [
            F("id", .uuid),
            F("sermonId", .uuid),
            F("title", .string),
            F("text", .string),
            F("type", .enumeration(["devotional", "bullet", "theological"])),
            F("status", status, default: "complete"),
            F("generatedBy", .string, nullable: true, optional: true),
            F("updatedAt", .time),
            F("deletedAt", .time, nullable: true, default: .null),
        ],
        .conflicts: [
            F("id", .uuid),
            F("collection", .enumeration(["notes", "sermons", "summaries", "transcripts"])),
            F("recordId", .uuid),
            F("sermonId", .uuid),
            F("field", .text),
            F("base", .string),
            F("local", .string),
            F("remote", .string),
            F("merged", .string),
            F("state", .enumeration(["open", "resolved"])),
            F("createdAt", .time),
            F("resolvedAt", .time, nullable: true, default: .null),
            F("updatedAt", .time),
            F("deletedAt", .time, nullable: true, default: .null),
        ],
        .publications: [
            F("id", .uuid),
            F("sermonId", .uuid),
            F("publicId", .publicId),
            F("parts", .arrayOf(.enumeration(["notes", "summary", "transcript", "audio"])), default: ["notes", "summary"]),
            F("published", .bool),
            F("snapshot", .object, nullable: true, default: .null),
            F("publishedAt", .time, nullable: true, default: .null),
            F("updatedAt", .time),
            F("deletedAt", .time, nullable: true, default: .null),
            F("description", .string, optional: true),
            F("tags", .arrayOf(.text), optional: true),
            F("language", .string, optional: true),
            F("canFork", .bool, optional: true),
        ],
        .chatMessages: [
            F("id", .uuid),
            F("sermonId", .uuid),
            F("role", .enumeration(["user", "assistant"])),
            F("content", .string),
            F("createdAt", .time),
            F("deviceId", .text),
        ],
    ]
}()

/// Random valid values of each field type.
private struct Values {
    var rng: SeededRNG

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ n: Int) -> Bool { int(1...n) == 1 }

    mutating func string(nonEmpty: Bool = false) -> String {
        let alphabet = ["a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\u{01}", "é", "e\u{301}", "😀", "/", "χ"]
        var s = (0..<int(0...8)).map { _ in alphabet[int(0...alphabet.count - 1)] }.joined()
        if nonEmpty { s += "x" }
        return s
    }

    mutating func number() -> JSON {
        switch int(0...5) {
        case 0: return .int(0)
        case 1: return .int(Int64(int(0...604_800)))
        case 2: return .double(Double(int(0...6_048_000)) / 10 + 0.05)
        case 3: return .double(1e19)  // stored before the bounds
        case 4: return .double(Double.random(in: 0...1, using: &rng))
        default: return .double(1.7e308)
        }
    }

    mutating func time() -> String {
        let ms = int(0...999)
        return "2025-\(pad(int(1...12)))-\(pad(int(1...28)))T\(pad(int(0...23))):\(pad(int(0...59))):\(pad(int(0...59))).\(ms < 10 ? "00" : ms < 100 ? "0" : "")\(ms)Z"
    }

    func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    mutating func uuid() -> String {
        let hex = Array("0123456789abcdef")
        let digits = String((0..<32).map { _ in hex[int(0...15)] })
        let parts = [digits.prefix(8), digits.dropFirst(8).prefix(4), "4" + digits.dropFirst(13).prefix(3),
                     "8" + digits.dropFirst(17).prefix(3), digits.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    mutating func value(_ type: FieldType) -> JSON {
        switch type {
        case .string: return .string(string())
        case .text: return .string(string(nonEmpty: true))
        case .uuid: return .string(uuid())
        case .time: return .string(time())
        case .number: return number()
        case .integer(let min, let max): return .int(Int64.random(in: min...max, using: &rng))
        case .bool: return .bool(chance(2))
        case .enumeration(let values): return .string(values[int(0...values.count - 1)])
        case .segments:
            return .array((0..<int(0...4)).map { _ in
                let start = number()
                var o: JSONObject = ["start": start, "end": start, "text": .string(string())]
                if chance(2) { o["end"] = .double((start.doubleValue ?? 0) + 2.5) }
                if chance(2) { o["speaker"] = .string(string()) }
                return .object(o)
            })
        case .audio:
            let hex = Array("0123456789abcdef")
            return ["fileName": .string(string(nonEmpty: true)), "sizeBytes": .int(Int64(int(0...1 << 40))),
                    "sha256": .string(String((0..<64).map { _ in hex[int(0...15)] }))]
        case .arrayOf(let t): return .array((0..<int(0...3)).map { _ in value(t) })
        case .object:
            var o = JSONObject()
            for _ in 0..<int(0...3) { o[string()] = chance(2) ? .string(string()) : number() }
            return .object(o)
        case .any: return .null
        case .publicId: return .string(PublicId.make(title: string()))
        }
    }

    /// A random record of `schema`, not yet normalized: nullable fields sometimes null, defaulted and
    /// optional ones sometimes absent.
    mutating func record(_ schema: RecordSchema) -> JSONObject {
        var o = JSONObject()
        for f in schema.fields {
            if (f.optional || f.defaultValue != nil) && chance(3) { continue }
            o[f.name] = f.nullable && chance(3) ? .null : value(f.type)
        }
        return o
    }
}

/// JSON values of every kind; `kinds` names the ones a field type takes.
private let everyKind: [JSON] = [.null, .bool(true), .bool(false), .int(7), .int(Int64.min), .double(1.5), .double(-1e19),
                                 .double(1.7e308), .string(""), .string("x"), .array([]), .array([.int(1), .string("a")]),
                                 .object([:]), .object(["a": 1]), .raw("{\"a\":1}")]

private func acceptsKind(_ type: FieldType, _ v: JSON) -> Bool {
    switch (type, v) {
    case (.string, .string), (.text, .string), (.uuid, .string), (.time, .string), (.publicId, .string): return true
    case (.enumeration(let values), .string(let s)): return values.contains(s)
    case (.number, .int), (.number, .double): return true
    case (.integer, .int): return true
    case (.integer, .double(let d)): return d == d.rounded() && abs(d) < 9e15
    case (.bool, .bool): return true
    case (.segments, .array), (.arrayOf, .array), (.audio, .object), (.object, .object): return true
    default: return false
    }
}

@Suite("typed records (issue #50)")
struct TypedRecordTests {
    static let collections: [RecordCollection] = RecordCollection.allCases

    @Test("every collection's schema is derived from its typed record, equal to the hand-written one", arguments: collections)
    func derivedSchemas(collection: RecordCollection) throws {
        let derived = RecordSchema.of(collection).fields
        let expected = try #require(handWritten[collection])
        #expect(derived.map(\.name) == expected.map(\.name))
        for (d, e) in zip(derived, expected) {
            #expect(d.type == e.type, "\(collection).\(d.name): type")
            #expect(d.nullable == e.nullable, "\(collection).\(d.name): nullable")
            #expect(d.defaultValue == e.defaultValue, "\(collection).\(d.name): default")
            #expect(d.optional == e.optional, "\(collection).\(d.name): optional")
        }
        #expect(StatusValues.processing == ["pending", "processing", "complete", "failed"])
        #expect(StatusValues.summaryTypes == ["devotional", "bullet", "theological"])
        #expect(StatusValues.chatRoles == ["user", "assistant"])
        #expect(RecordSchema.publicationParts == ["notes", "summary", "transcript", "audio"])
    }

    @Test("random valid records of every collection decode strictly and encode back equal")
    func roundTrips() throws {
        try roundTrip(Sermon.self)
        try roundTrip(Note.self)
        try roundTrip(Transcript.self)
        try roundTrip(Summary.self)
        try roundTrip(ChatMessage.self)
        try roundTrip(Conflict.self)
        try roundTrip(Publication.self)
    }

    func roundTrip<R: TypedRecord>(_ type: R.Type) throws {
        var values = Values(rng: SeededRNG(seed: 0x7E5_0000 &+ UInt64(R.fields.count)))
        for _ in 0..<400 {
            let given = values.record(R.schema)
            let normalized = try R.schema.normalize(.object(given))
            // As a record is stored, sent and pulled: its canonical text, parsed.
            guard case .object(let canonical) = try JSON.parse(JSON.object(normalized).text) else {
                Issue.record("not an object")
                return
            }
            let strict = try R(record: canonical)
            #expect(strict.record == canonical, "\(R.self): \(JSON.object(canonical).text)")
            #expect(JSON.object(strict.record).text == JSON.object(normalized).text)
            // Strict decoding normalizes first: the record as given (defaults missing, times not canonical)
            // decodes to the same value.
            #expect(try R(record: given) == strict)
            // A valid record read leniently is the same record.
            #expect(R(lenient: .object(canonical)) == strict)
            #expect(LenientRecord<R>(.object(canonical)).value == strict)
            #expect(R.decodeField(.object(canonical)) == strict)
        }
    }

    @Test("strict decoding refuses as the schema does, naming the field")
    func strictRefuses() throws {
        var n = Sample.note
        n["timestamp"] = "12:00"
        #expect(fieldError { try Note(record: n) } == fieldError { try RecordSchema.notes.normalize(.object(n)) })
        #expect(fieldError { try Note(record: n) }?.field == "timestamp")
        n["timestamp"] = nil
        #expect(fieldError { try Note(record: n) } == FieldError(field: "timestamp", reason: "is required"))
        var s = Sample.sermon
        s["remoteId"] = "x"
        #expect(fieldError { try Sermon(record: s) } == FieldError(field: "remoteId", reason: "unknown field"))
        let note = try Note(record: Sample.note)
        #expect(note.timestamp == 120.5 && note.text == "Key point" && note.deletedAt == nil)
        let sermon = try Sermon(record: Sample.sermon)
        #expect(sermon.serviceType == "Sunday Service" && sermon.speaker == nil && sermon.transcriptionStatus == .pending)
        let summary = try Summary(record: Sample.summary)
        #expect(summary.type == .devotional && summary.generatedBy == nil && summary.status == .complete)
        var handSet = Sample.summary
        handSet["generatedBy"] = .null
        let kept = try Summary(record: handSet)
        #expect(kept.generatedBy == .some(nil))
        #expect(kept.record["generatedBy"] == .null)
        #expect(summary.record["generatedBy"] == nil, "absent stays absent")
        let transcript = try Transcript(record: Sample.transcript)
        #expect(transcript.segments == [Transcript.Segment(start: 0, end: 4.5, text: "Good morning.", speaker: "Pastor John"),
                                        Transcript.Segment(start: 4.5, end: 12.25, text: "Turn to Galatians 5.")])
    }

    @Test("every field of every collection read leniently with a value of each wrong kind gets its default, never a trap")
    func lenientWrongTypes() throws {
        try lenient(Sermon.self)
        try lenient(Note.self)
        try lenient(Transcript.self)
        try lenient(Summary.self)
        try lenient(ChatMessage.self)
        try lenient(Conflict.self)
        try lenient(Publication.self)
    }

    func lenient<R: TypedRecord>(_ type: R.Type) throws {
        var values = Values(rng: SeededRNG(seed: 0x1E1E))
        // Each field's value when it cannot be read: the schema's default, else the zero of `R()`.
        let zero = R().record
        for _ in 0..<20 {
            let valid = try R.schema.normalize(.object(values.record(R.schema)))
            for f in R.schema.fields {
                let fallback = f.defaultValue ?? zero[f.name]
                for v in everyKind {
                    var o = valid
                    o[f.name] = v
                    let read = R(lenient: .object(o)).record
                    // Every other field as it was.
                    for g in R.schema.fields where g.name != f.name { #expect(read[g.name] == valid[g.name], "\(R.self).\(g.name)") }
                    if v.isNull && f.nullable {
                        #expect(read[f.name] == .null, "\(R.self).\(f.name) = null")
                    } else if !acceptsKind(f.type, v) {
                        #expect(read[f.name] == (f.optional ? nil : fallback), "\(R.self).\(f.name) = \(v.text)")
                    }
                }
                // Missing: its default.
                var o = valid
                o[f.name] = nil
                #expect(R(lenient: .object(o)).record[f.name] == (f.optional ? nil : fallback), "\(R.self).\(f.name) missing")
            }
        }
        // Not an object at all: every field at its default.
        for v in everyKind where v.objectValue == nil {
            #expect(R(lenient: v) == R(lenient: .object([:])))
        }
        let defaults = R(lenient: .object([:])).record
        for f in R.schema.fields {
            #expect(defaults[f.name] == (f.optional ? nil : f.defaultValue ?? zero[f.name]), "\(R.self).\(f.name)")
        }
    }

    @Test("lenient reading inside values: segments, audio, parts")
    func lenientInside() throws {
        let t = Transcript(lenient: ["segments": [["start": 1.7e308, "end": -1, "text": "backwards"],
                                                  ["start": "x", "end": .null, "text": 5, "speaker": 3], 7,
                                                  ["start": 90, "end": 30, "text": "ends first", "speaker": "Ann"]]])
        // An element that is not an object is left out; one with fields of the wrong type has their defaults.
        #expect(t.segments == [Transcript.Segment(start: 1.7e308, end: -1, text: "backwards"), Transcript.Segment(),
                               Transcript.Segment(start: 90, end: 30, text: "ends first", speaker: "Ann")])
        // Read field by field, every element is kept (what is not an object has no fields).
        #expect(LenientRecord<Transcript>(.object(Transcript(lenient: ["segments": [7, ["start": 3]]]).record)).list(\.segments)?.count == 1)
        #expect(LenientRecord<Transcript>(["segments": [7, ["start": 3]]]).list(\.segments)?.map(\.value)
                == [Transcript.Segment(), Transcript.Segment(start: 3, end: 0, text: "")])
        let s = Sermon(lenient: ["audio": ["fileName": 1, "sizeBytes": 1e19, "sha256": "abc"], "serviceType": 5])
        #expect(s.audio == Sermon.Audio(lenient: ["sha256": "abc"]))
        #expect(s.audio?.sizeBytes == 0 && s.audio?.sha256 == "abc" && s.serviceType == "Sunday Service")
        let p = Publication(lenient: ["parts": ["transcript", 5, "video", "notes"], "snapshot": ["title": "T"]])
        #expect(p.parts == [.transcript, .notes] && p.snapshot == ["title": "T"] && !p.published)
        #expect(Publication(lenient: ["parts": "notes"]).parts == [.notes, .summary])
    }

    @Test("LenientRecord: each field its typed value, or nil when missing, null or of the wrong type")
    func lenientRecord() throws {
        let s = LenientRecord<Sermon>(["title": "T", "speaker": .null, "serviceType": 5, "isArchived": true,
                                        "transcriptionStatus": "weird", "summaryStatus": "failed", "date": "2025-11-09",
                                        "audio": 3, "deletedAt": 7])
        #expect(s.title == "T" && s.speaker == nil && s.serviceType == nil && s.isArchived == true)
        #expect(s.transcriptionStatus == nil && s.summaryStatus == .failed && s.date == "2025-11-09")
        #expect(s.id == nil && s.deletedAt == nil)
        #expect(s.nested(\.audio) == LenientRecord<Sermon.Audio>(.object([:])), "present and not null: an empty object")
        #expect(LenientRecord<Sermon>(["audio": .null]).nested(\.audio) == nil)
        #expect(LenientRecord<Sermon>(.int(3)).title == nil)
        let n = LenientRecord<Note>(["timestamp": 1e19, "text": 7])
        #expect(n.timestamp == 1e19 && n.text == nil)
        let t = LenientRecord<Transcript>(["segments": [["start": 5, "text": "a"], 3]])
        #expect(t.list(\.segments)?.map(\.start) == [5, nil] && t.list(\.segments)?.map(\.text) == ["a", nil])
        #expect(LenientRecord<Transcript>(["segments": "[]"]).list(\.segments) == nil)
        #expect(LenientRecord<Summary>(["generatedBy": "builtin"]).generatedBy == .some("builtin"))
        #expect(Sermon.name(\.serviceType) == "serviceType" && Note.name(\.timestamp) == "timestamp")
    }

    @Test("a publication snapshot encodes as publish wrote it by hand")
    func snapshotShape() throws {
        var snap = PublicationSnapshot()
        snap.title = "T"
        snap.date = "2025-11-09T00:00:00.000Z"
        snap.serviceType = "Sunday Service"
        snap.notes = [.init(timestamp: 60, text: "a"), .init(timestamp: 1e19, text: "b"), .init(timestamp: 2.5, text: "c")]
        snap.summary = .init(title: "S", text: "x", type: "bullet")
        #expect(snap.fieldJSON.text == #"{"date":"2025-11-09T00:00:00.000Z","notes":[{"text":"a","timestamp":60},{"text":"b","timestamp":1e+19},{"text":"c","timestamp":2.5}],"serviceType":"Sunday Service","speaker":null,"summary":{"text":"x","title":"S","type":"bullet"},"title":"T","transcript":null}"#)
        snap.transcript = .init(text: "t", segments: [.init(start: 0, end: 4.5, text: "a", speaker: "P")])
        #expect(snap.record["transcript"]?.text == #"{"segments":[{"end":4.5,"speaker":"P","start":0,"text":"a"}],"text":"t"}"#)
        #expect(PublicationSnapshot(lenient: snap.fieldJSON) == snap)
    }
}
