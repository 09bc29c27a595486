import TNotesCore

/// What one input renders: a sermon as the daemon's `sermon.get` returns it (`{…sermon fields, notes: […],
/// transcript: {…}|null, summary: {…}|null, scriptureRefs, publication}`), its chat messages, and a
/// publication as the server stores it (`snapshot`, `parts`, `publishedAt`).
struct Scenario {
    var sermon: JSONObject
    var chats: [JSONObject]
    var snapshot: JSONObject
    var parts: JSON?
    var publishedAt: String
    /// Whether the checks that double a renderer's work run too (one input in four): the CLI's views rendered
    /// in colour and compared with the plain ones, search hits in bold, the JSON export parsed back.
    var thorough = true
    /// Which of the processing steps this input takes (`process`), if any, and whether it renders the
    /// CLI's other results (even turns); nil: all of them.
    var turn: Int? = nil
}

/// Builds a `Scenario` from the fuzzer's bytes.
///
/// Two readings of an input:
/// - JSON text (the input starts with `{` or `[` and `JSON.parse` takes it): the parsed value is the sermon,
///   and its `snapshot` member (else the value itself) the snapshot, so any shape at all reaches the
///   renderers, including ones the generator does not make. The cases are kept this way in the
///   corpus, readable.
/// - anything else: choices for a small generator of well-formed records whose values come from `Values`,
///   raw input bytes and the bit patterns of doubles, with fields of the wrong type or missing now and then
///   (often in the snapshot: a server stores whatever a client pushed).
struct RecordGenerator {
    var r: FuzzReader

    static func scenario(_ bytes: [UInt8]) -> Scenario {
        if let first = bytes.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
           let parsed = try? JSON.parse(bytes) {
            return fromJSON(parsed)
        }
        var g = RecordGenerator(r: FuzzReader(bytes))
        return g.scenario()
    }

    static func fromJSON(_ value: JSON) -> Scenario {
        let sermon = value.objectValue ?? value.arrayValue?.lazy.compactMap(\.objectValue).first ?? [:]
        return Scenario(
            sermon: sermon,
            chats: (sermon["chat"]?.arrayValue ?? []).compactMap(\.objectValue),
            snapshot: sermon["snapshot"]?.objectValue ?? sermon,
            parts: sermon[field: \Publication.parts],
            publishedAt: sermon[field: \Publication.publishedAt]?.stringValue ?? "2025-11-09T10:30:00.000Z")
    }

    mutating func scenario() -> Scenario {
        r.longBudget = FuzzReader.longBudget(of: r)
        let thorough = r.rare(4), turn = r.below(8)
        let sermonId = r.pick(Values.ids)
        // Keys in canonical (byte) order, in every literal here: a JSONObject literal in that order is taken as
        // it is, where any other is sorted.
        var sermon: JSONObject = [
            "audio": r.rare(2) ? audio() : .null, "createdAt": .string(time()), "date": .string(time()),
            "deletedAt": r.rare(6) ? .string(time()) : .null, "id": .string(sermonId), "isArchived": .bool(r.rare(4)),
            "serviceType": .string(label()), "speaker": r.rare(4) ? .null : .string(label()),
            "summaryStatus": .string(r.pick(Values.statuses)), "syncState": .string(r.pick(Values.syncStates)),
            "title": .string(label()), "transcriptionStatus": .string(r.pick(Values.statuses)),
            "updatedAt": .string(time()),
        ]
        var notes = [JSON]()
        // At most three notes and three segments: every order of three can occur, and each note goes through
        // a dozen renderers (four of each cost a fifth more time an input).
        for _ in 0..<r.below(4) { notes.append(.object(note(sermonId: sermonId))) }
        sermon[field: \SermonDetail.notes] = .array(notes)
        sermon[field: \SermonDetail.transcript] = r.rare(3) ? .null : .object(transcript(sermonId: sermonId))
        sermon[field: \SermonDetail.summary] = r.rare(3) ? .null : .object(summary(sermonId: sermonId))
        var refs = [JSON]()
        for _ in 0..<r.below(3) { refs.append(reference()) }
        sermon[field: \SermonDetail.scriptureRefs] = .array(refs)
        sermon[field: \SermonDetail.publication] = r.rare(3) ? publication(sermonId: sermonId) : .null
        // The CLI prints whatever the daemon returns: a field missing or of the wrong type now and then.
        if r.rare(4) { perturb(&sermon) }

        var chats = [JSONObject]()
        for _ in 0..<r.below(3) {
            chats.append([
                "content": .string(text()), "createdAt": .string(time()), "deviceId": .string(label()),
                "id": .string(r.pick(Values.ids)), "role": .string(r.pick(Values.roles)), "sermonId": .string(sermonId),
            ])
        }

        var snapshot = snapshot(of: sermon)
        // Stored by a server from any client: wrong types are common here, several at once.
        if r.rare(2) { for _ in 0...r.below(4) { perturb(&snapshot) } }
        let parts: JSON? = switch r.below(5) {
        case 0: nil
        case 1, 2: .array((0..<r.below(4)).map { _ in .string(r.pick(Values.parts)) })
        case 3: .array(RecordSchema.publicationParts.map { .string($0) })
        default: any(depth: 1)
        }
        return Scenario(sermon: sermon, chats: chats, snapshot: snapshot, parts: parts,
                        publishedAt: r.rare(4) ? text() : time(), thorough: thorough, turn: turn)
    }

    // MARK: records

    mutating func note(sermonId: String) -> JSONObject {
        var o: JSONObject = [
            "createdAt": .string(time()), "deletedAt": .null, "id": .string(r.pick(Values.ids)), "sermonId": .string(sermonId),
            "text": .string(text()), Note.name(\.timestamp): number(), "updatedAt": .string(time()),
        ]
        if r.rare(8) { perturb(&o) }
        return o
    }

    mutating func transcript(sermonId: String) -> JSONObject {
        var segments = [JSON]()
        for _ in 0..<r.below(4) {
            var s: JSONObject = ["end": number(), "start": number(), "text": .string(text())]
            if r.rare(3) { s[field: \Transcript.Segment.speaker] = .string(label()) }
            if r.rare(8) { perturb(&s) }
            segments.append(.object(s))
        }
        var o: JSONObject = [
            "deletedAt": .null, "id": .string(r.pick(Values.ids)), "segments": .array(segments), "sermonId": .string(sermonId),
            "status": .string(r.pick(Values.statuses)), "text": .string(text()), "updatedAt": .string(time()),
        ]
        if r.rare(8) { perturb(&o) }
        return o
    }

    mutating func summary(sermonId: String) -> JSONObject {
        var o: JSONObject = [
            "deletedAt": .null, "generatedBy": r.bool() ? "builtin" : .null, "id": .string(r.pick(Values.ids)),
            "sermonId": .string(sermonId), "status": .string(r.pick(Values.statuses)), "text": .string(text()),
            "title": .string(label()), "type": .string(r.pick(Values.summaryTypes)), "updatedAt": .string(time()),
        ]
        if r.rare(8) { perturb(&o) }
        return o
    }

    mutating func audio() -> JSON {
        var o: JSONObject = [
            "fileName": .string(label()), "localAvailable": .bool(r.bool()), "mimeType": "audio/mpeg",
            "sha256": .string(label()), "sizeBytes": .int(r.pick(Values.integers)), "uploaded": .bool(r.bool()),
        ]
        if r.rare(2) { o["durationSeconds"] = number() }
        if r.rare(4) { perturb(&o) }
        return .object(o)
    }

    mutating func reference() -> JSON {
        var o: JSONObject = ["book": .string(r.rare(3) ? label() : "John"), "chapter": integer()]
        if r.bool() { o[field: \ScriptureCitation.verseStart] = integer() }
        if r.bool() { o[field: \ScriptureCitation.verseEnd] = integer() }
        if r.rare(4) { o["start"] = number() }
        return .object(o)
    }

    mutating func publication(sermonId: String) -> JSON {
        [
            "parts": .array(RecordSchema.publicationParts.map { .string($0) }), "publicId": .string(label()),
            "publishedAt": .string(time()), "sermonId": .string(sermonId),
            "state": .string(r.pick(["published", "pending", "unpublished"])),
            "url": r.bool() ? .string("https://example.org/p/" + label()) : .null,
        ]
    }

    /// The snapshot `publish` takes of a sermon (`PublishMethods.snapshot`): title, speaker, date, service
    /// type, notes as `{timestamp, text}`, the summary and transcript cut to what the page shows.
    mutating func snapshot(of s: JSONObject) -> JSONObject {
        var o: JSONObject = [
            "date": s[field: \Sermon.date] ?? .null,
            "notes": .array((s[field: \SermonDetail.notes]?.arrayValue ?? []).map { n in
                // A non-finite time only exists in memory; the page must leave it out all the same.
                let t: JSON = r.rare(16) ? .double(r.pick(Values.nonFinite)) : (n[field: \Note.timestamp] ?? 0)
                return ["text": n[field: \Note.text] ?? "", Note.name(\.timestamp): t]
            }),
            "serviceType": s[field: \Sermon.serviceType] ?? .null, "speaker": s[field: \Sermon.speaker] ?? .null, "summary": .null,
            "title": s[field: \Sermon.title] ?? "", "transcript": .null,
        ]
        if let m = s[field: \SermonDetail.summary], !m.isNull {
            o["summary"] = ["text": m[field: \Summary.text] ?? "", "title": m[field: \Summary.title] ?? "", "type": m[field: \Summary.type] ?? ""]
        }
        if let t = s[field: \SermonDetail.transcript], !t.isNull {
            o["transcript"] = ["segments": t[field: \Transcript.segments] ?? .array([]), "text": t[field: \Transcript.text] ?? ""]
        }
        return o
    }

    /// One field of `o`, or of an object or array inside it, replaced by a value of any type or removed.
    mutating func perturb(_ o: inout JSONObject) {
        let keys = Array(o.keys)
        guard !keys.isEmpty else { return }
        let key = keys[r.below(keys.count)]
        if case .array(var items)? = o[key], !items.isEmpty, r.bool() {
            let i = r.below(items.count)
            if case .object(var inner) = items[i], r.bool() {
                perturb(&inner)
                items[i] = .object(inner)
            } else {
                items[i] = any(depth: 2)
            }
            o[key] = .array(items)
        } else if case .object(var inner)? = o[key], r.bool() {
            perturb(&inner)
            o[key] = .object(inner)
        } else if r.rare(3) {
            o[key] = nil
        } else {
            o[key] = any(depth: 2)
        }
    }

    // MARK: values

    /// Any JSON value: the shape renderers least expect where they expect another.
    mutating func any(depth: Int) -> JSON {
        switch r.below(depth > 0 ? 9 : 6) {
        case 0: return .null
        case 1: return .bool(r.bool())
        case 2: return .int(r.pick(Values.integers))
        case 3: return .double(seconds())
        case 4: return .string(text())
        case 5: return .string(r.pick(Values.times))
        case 6, 7:
            var o = JSONObject()
            for _ in 0..<r.below(5) { o[r.pick(Values.keys)] = any(depth: depth - 1) }
            return .object(o)
        default:
            return .array((0..<r.below(5)).map { _ in any(depth: depth - 1) })
        }
    }

    /// A time in seconds as JSON: mostly a double, sometimes an integer (a JSON number without a fraction
    /// parses as one).
    mutating func number() -> JSON {
        r.rare(5) ? .int(r.pick(Values.integers)) : .double(seconds())
    }

    mutating func integer() -> JSON {
        r.rare(3) ? .int(r.pick(Values.integers)) : .int(Int64(r.byte()))
    }

    /// A finite Double: plausible, an edge, any exponent, or any finite bit pattern.
    mutating func seconds() -> Double {
        switch r.below(5) {
        case 0: return Double(r.u16()) / 8
        case 1, 2: return r.pick(Values.seconds)
        case 3:
            let exponent = Int(r.u16() % 2098) - 1074
            let d = Double(sign: r.bool() ? .minus : .plus, exponent: exponent, significand: 1 + Double(r.byte()) / 256)
            return d.isFinite ? d : Double.greatestFiniteMagnitude
        default:
            let d = Double(bitPattern: r.u64())
            return d.isFinite ? d : 0
        }
    }

    mutating func time() -> String {
        r.rare(6) ? text() : r.pick(Values.times)
    }

    /// A title, speaker, file name: usually short, sometimes at and past the 1,000-character bound.
    mutating func label() -> String {
        r.rare(8) ? long(r.pick([999, 1000, 1001, 1002])) : text()
    }

    /// Text of up to three parts, each a piece from `Values`, raw input bytes (invalid UTF-8 is repaired the
    /// way the JSON decoder and the socket would see it), or a piece repeated to a long length.
    mutating func text() -> String {
        var s = ""
        for _ in 0..<r.below(4) {
            switch r.below(8) {
            case 0, 1, 2, 3: s += r.pick(Values.pieces)
            case 4, 5: s += String(decoding: r.raw(r.below(16)), as: UTF8.self)
            case 6: s += " "
            default: s += long(r.pick(Values.lengths))
            }
        }
        return s
    }

    /// `length` characters of a repeated piece (a piece of extended grapheme clusters counts each as one),
    /// within this input's budget of long text.
    mutating func long(_ length: Int) -> String {
        var piece = r.pick(Values.pieces)
        if piece.isEmpty { piece = "a" }
        guard length <= r.longBudget else { return piece }
        r.longBudget -= length
        let n = piece.count
        var s = String(repeating: piece, count: length / n)
        s += piece.prefix(length % n)
        return s
    }
}
