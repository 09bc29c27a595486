import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// `JSON.parseChanges` gives a change's record text as it came only where that text is what `JSON.text`
/// writes, byte for byte; the server and the pulling device store it as the record's body. A text given
/// where it is not canonical would be a stored body that differs from the record's canonical text.
@Suite struct CanonicalRecordTextTests {
    /// A `{"changes": [...]}` document whose changes carry these record texts as they are.
    func document(_ records: [String], extra: String = "") -> String {
        let changes = records.map { #"{"collection":"notes","id":"x","record":"# + $0 + "}" }
        return #"{"changes":["# + changes.joined(separator: ",") + "]" + extra + "}"
    }

    func texts(_ document: String) throws -> [Int: String] {
        try JSON.parseChanges(Array(document.utf8)).recordTexts
    }

    /// Records covering what the writer writes: nested values, escapes, non-ASCII, numbers, keys that sort by
    /// bytes (uppercase before lowercase, a prefix before its extension).
    static let records: [JSON] = [
        [:],
        ["id": "n1", "text": "plain"],
        ["b": 1, "a": -2, "c": 0, "d": 9_007_199_254_740_993, "e": -9_223_372_036_854_775_808],
        ["text": "quote \" backslash \\ newline \n return \r tab \t slash / del \u{7F}"],
        ["text": "grâce — 恵み 🙏", "Z": true, "a": false, "aa": .null, "ab": [1, "two", ["three": 3]]],
        ["nested": ["z": ["y": ["x": []]], "k": [[], [:], [[:]]]], "list": [1, 2.5, -0.125, "s"]],
        ["timestamp": .double(120.5), "small": .double(1e-7), "large": .double(1.5e20), "third": .double(0.1 + 0.2),
         "negative": .double(-3.75)],
    ]

    @Test func canonicalRecordsAreGivenAsTheyCame() throws {
        let canonical = Self.records.map(\.text)
        let found = try texts(document(canonical))
        #expect(found.count == Self.records.count)
        for i in Self.records.indices {
            #expect(found[i] == canonical[i], "record \(i)")
        }
    }

    /// What the writer never writes: the record's text is not given (its body is written out instead).
    @Test(arguments: [
        #"{ "id":"n1"}"#, #"{"id" :"n1"}"#, #"{"id":"n1","text":"a" }"#, #"{"a":[1, 2]}"#,  // whitespace
        #"{"b":1,"a":2}"#, #"{"a":1,"a":2}"#, #"{"B":1,"A":2}"#, #"{"ab":1,"a":2}"#,  // key order, a repeated key
        #"{"t":"a\/b"}"#, #"{"t":"\u0041"}"#, #"{"t":"\b"}"#, #"{"t":"\f"}"#,  // escapes
        // The writer's own `\u00XX` for other control characters is not checked (rare): written out again.
        #"{"t":"\u0007"}"#,
        #"{"k\u0041":1}"#,  // an escaped key
        #"{"n":1.0}"#, #"{"n":1e2}"#, #"{"n":-0}"#, #"{"n":-0.0}"#, #"{"n":0.50}"#, #"{"n":5e-1}"#, #"{"n":1E-7}"#,  // numbers
        #"{"n":12345678901234567890}"#,
    ])
    func nonCanonicalRecordsAreNotGiven(record: String) throws {
        #expect(try texts(document([record])).isEmpty)
        // The document still parses to the same value as the canonical form would.
        let parsed = try JSON.parseChanges(Array(document([record]).utf8)).json
        #expect(parsed == (try JSON.parse(document([record]))))
    }

    /// Random records, written by the writer and then varied at random: a text given is always the parsed
    /// record's canonical text (never a body that differs from it), and the writer's own text is always given
    /// unless it holds a `\u00XX` escape or a key with an escape (neither is checked).
    @Test func randomRecordsAreGivenExactlyWhenCanonical() throws {
        var rng = SeededRNG(seed: 0xC0DE)
        let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\r", "\u{01}", "\u{7f}", "é", "😀", "/", "χ"]
        // Keys with an escape are not checked for order (never in a record): half the runs use plain keys.
        var plainKeys = true
        func string(key: Bool = false) -> String {
            let letters = key && plainKeys ? ["a", "Z", "0", " ", "é", "😀", "/", "χ"] : alphabet
            return (0..<Int.random(in: 0...6, using: &rng)).map { _ in letters.randomElement(using: &rng)! }.joined()
        }
        func value(_ depth: Int) -> JSON {
            switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &rng) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &rng) >> Int64.random(in: 0...63, using: &rng))
            case 3: return .double(Double.random(in: -1e6...1e6, using: &rng) * pow(10, Double.random(in: -12...12, using: &rng)))
            case 4: return .string(string())
            case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(depth + 1) })
            default:
                var o = JSONObject()
                for _ in 0..<Int.random(in: 0...4, using: &rng) { o[string(key: true)] = value(depth + 1) }
                return .object(o)
            }
        }
        // Variations: a space after a separator, a member put first (out of order unless it sorts first).
        func varied(_ text: String) -> String {
            var bytes = Array(text.utf8)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                if let i = bytes.indices.filter({ bytes[$0] == UInt8(ascii: ":") || bytes[$0] == UInt8(ascii: ",") }).randomElement(using: &rng) {
                    bytes.insert(0x20, at: i + 1)
                }
            case 1:
                bytes = Array((text == "{}" ? "{\"zz\":1}" : "{\"zz\":1," + text.dropFirst()).utf8)
            default:
                break
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        var given = 0
        for run in 0..<3000 {
            plainKeys = run % 2 == 0
            var record = JSONObject()
            for _ in 0..<Int.random(in: 0...6, using: &rng) { record[string(key: true)] = value(1) }
            let canonical = JSON.object(record).text
            let text = Bool.random(using: &rng) ? canonical : varied(canonical)
            let (json, texts) = try JSON.parseChanges(Array(document([text]).utf8))
            let parsed = json["changes"]?.arrayValue?.first?["record"] ?? .null
            if let found = texts[0] {
                #expect(found == parsed.text, "\(text)")
                given += 1
            } else if text == canonical && plainKeys {
                #expect(canonical.contains("\\u00"), "the writer's own text was not given: \(canonical)")
            }
        }
        #expect(given > 500)
    }

    @Test func eachChangeIsJudgedOnItsOwn() throws {
        let found = try texts(document([#"{"a":1}"#, #"{"b":2, "a":1}"#, #"{"c":"x"}"#]))
        #expect(found == [0: #"{"a":1}"#, 2: #"{"c":"x"}"#])
        // Whitespace outside the records does not matter.
        let spaced = "{ \"changes\" : [ {\"record\":{\"a\":1} , \"id\" : \"x\"} ] , \"deviceId\" : \"d\" }"
        #expect(try texts(spaced) == [0: #"{"a":1}"#])
    }

    @Test func onlyTheRecordsOfTheChangesArrayAreFound() throws {
        #expect(try texts(#"{"other":[{"record":{"a":1}}]}"#).isEmpty)
        #expect(try texts(#"{"changes":{"x":{"record":{"a":1}}}}"#).isEmpty)
        #expect(try texts(#"{"changes":[[{"record":{"a":1}}]]}"#).isEmpty)
        #expect(try texts(#"[{"changes":[{"record":{"a":1}}]}]"#).isEmpty)
        #expect(try texts(#"{"changes":[{"record":"text"},{"record":[1]}]}"#).isEmpty)
        // A "record" key inside a record is part of that record, not another one.
        #expect(try texts(#"{"changes":[{"record":{"record":{"a":1}}}]}"#) == [0: #"{"record":{"a":1}}"#])
        // Other members of a change (`base`) are not records.
        #expect(try texts(#"{"changes":[{"base":{"a":1}}]}"#).isEmpty)
    }

    /// A repeated key keeps its last value; a record text found under an earlier one must not stay behind
    /// for the value that replaced it (it would be stored as the other record's body).
    @Test func repeatedKeysNeverLeaveAnEarlierText() throws {
        // A repeated "changes": only the last array's records count.
        let twice = #"{"changes":[{"record":{"a":1}},{"record":{"b":2}}],"changes":[{"record":{"c":3, "d":4}}]}"#
        let (json, found) = try JSON.parseChanges(Array(twice.utf8))
        #expect(json["changes"]?.arrayValue?.count == 1)
        #expect(found.isEmpty)
        let again = #"{"changes":[{"record":{"a":1}}],"changes":[{"record":{"c":3}}]}"#
        #expect(try JSON.parseChanges(Array(again.utf8)).recordTexts == [0: #"{"c":3}"#])
        // A repeated "record" in one change: the last one's text or none.
        #expect(try texts(#"{"changes":[{"record":{"a":1},"record":{"b":2, "c":3}}]}"#).isEmpty)
        #expect(try texts(#"{"changes":[{"record":{"a":1},"record":"x"}]}"#).isEmpty)
        #expect(try texts(#"{"changes":[{"record":{"a":1},"record":{"b":2}}]}"#) == [0: #"{"b":2}"#])
        // Through a push request: the stored body is always the decoded record's own text.
        let note = try Change(json: .object(envelope(record: Sample.note)))
        let canonical = JSON.object(note.record).text
        var other = note.record
        other["text"] = "another text"
        let spaced = JSON.object(other).text.replacingOccurrences(of: ",", with: ", ")
        let first = note.json(recordText: canonical).text
        // `.raw` is written as it is: the placeholder becomes the spaced record's text.
        let second = note.json(recordText: "RECORD").text.replacingOccurrences(of: "RECORD", with: spaced)
        let body = #"{"changes":["# + first + #"],"changes":["# + second + "]}"
        let request = try PushRequest.decode(bytes: Array(body.utf8))
        #expect(request.items.count == 1)
        guard case .success(let decoded) = request.items[0].change else { Issue.record("not decoded"); return }
        #expect(decoded.record["text"] == "another text")
        #expect(request.items[0].recordText == nil)
    }

    @Test func invalidDocumentsStillThrow() {
        for bad in [#"{"changes":[{"record":{"a":1,}}]}"#, #"{"changes":[{"record":{"a":"\u00"}}]}"#, #"{"changes":[]"#] {
            #expect(throws: (any Error).self) { try JSON.parseChanges(Array(bad.utf8)) }
        }
    }

    /// A change whose record normalizing rewrites (a default filled in) loses the text it came with, so that
    /// what is stored is the normalized record's text; one it leaves as given keeps it.
    @Test func normalizingDropsTheTextItChanges() throws {
        let given = JSON.object(Sample.note).text  // no deletedAt: normalizing adds it
        var text: String? = given
        let change = try Change(json: .object(envelope(record: Sample.note)), recordText: &text)
        #expect(text == nil)
        let normalized = JSON.object(change.record).text
        #expect(normalized != given)
        var kept: String? = normalized
        let again = try Change(json: .object(envelope(record: change.record)), recordText: &kept)
        #expect(kept == normalized)
        #expect(again == change)
    }

    @Test func pushRequestsCarryTheTextsOfUnchangedRecords() throws {
        let note = try Change(json: .object(envelope(record: Sample.note)))
        let full = JSON.object(note.record).text
        let body = #"{"changes":["# + note.json(recordText: full).text + "," + JSON.object(envelope(record: Sample.note)).text + "]}"
        let request = try PushRequest.decode(bytes: Array(body.utf8))
        #expect(request.items.count == 2)
        #expect(request.items[0].recordText == full)
        #expect(request.items[1].recordText == nil)  // its record was given without deletedAt
    }

    func envelope(record: JSONObject) -> JSONObject {
        ["opId": "e0000000-0000-4000-8000-000000000001", "collection": "notes", "id": .string(Sample.noteId),
         "op": "upsert", "updatedAt": .string(Sample.t1), "deviceId": "device-a", "record": .object(record)]
    }
}
