import NIOCore
import PostgresNIO
import Testing
import TNotesCore
@testable import TNotesServer

/// The server writes some of its hottest output by hand instead of through a general encoder: a push batch's
/// `text[]` columns (`PostgresTextArray`), each push result and each pulled change (`PushResult.write`,
/// `LoggedChange.wireText`). Each must give exactly the bytes the general encoder gives.
@Suite("tnotes-server: hand-written wire writers match the general encoders")
struct ServerWireWritersTests {
    static let arrays: [[String]] = [
        [], [""], ["a"], ["notes", "sermons", "transcripts"],
        ["é ✓ \u{1F600}", String(repeating: "x", count: 70_000), "", "\"quoted\"\n"],
    ]

    @Test("a text[] column is encoded as postgres-nio encodes [String]", arguments: arrays)
    func textArrayMatchesPostgresNIO(_ strings: [String]) {
        var ours = ByteBuffer(), theirs = ByteBuffer()
        PostgresTextArray(strings).encode(into: &ours, context: .default)
        strings.encode(into: &theirs, context: .default)
        #expect(ours == theirs)
        #expect(PostgresTextArray(strings).count == strings.count)
        #expect(PostgresTextArray.psqlType == [String].psqlType)
        #expect(PostgresTextArray.psqlFormat == [String].psqlFormat)
    }

    @Test("a text[] built element by element equals one built from the whole array")
    func textArrayAppends() {
        var built = PostgresTextArray(capacity: 2)
        built.append("one")
        built.append("two")
        var a = ByteBuffer(), b = ByteBuffer()
        built.encode(into: &a, context: .default)
        PostgresTextArray(["one", "two"]).encode(into: &b, context: .default)
        #expect(a == b)
    }

    @Test("each push result is written as its JSON object's canonical text")
    func pushResultsMatchTheirJSON() {
        let version = RecordVersion(updatedAt: "2026-11-27T10:00:00.000Z", deviceId: "dev \"B\"")
        let results = [
            SyncService.PushResult(opId: "op-1", status: "applied", error: nil),
            SyncService.PushResult(opId: "op-2", status: "rejected", error: "record.id: must equal id\n"),
            SyncService.PushResult(opId: "op-3", status: "merged", error: nil,
                                   record: ["id": "r", "text": "é", "n": 2, "deletedAt": nil], version: version),
            SyncService.PushResult(opId: "op-4", status: "duplicate", error: nil, record: nil, version: version),
        ]
        for r in results {
            var out = [UInt8]()
            r.write(to: &out)
            #expect(String(decoding: out, as: UTF8.self) == r.json.text)
        }
        #expect(JSON.array([SyncService.PushResult.text(of: results)]).text == JSON.array([.array(results.map(\.json))]).text)
        #expect(JSON.array([SyncService.PushResult.text(of: [])]).text == "[[]]")
    }

    @Test("each pulled change is written as its JSON object's canonical text")
    func loggedChangesMatchTheirJSON() throws {
        let changes = [
            LoggedChange(seq: 7, collection: .notes, id: "n-1", op: .upsert, updatedAt: "2026-11-27T10:00:00.000Z",
                         deviceId: "devA", record: .raw(#"{"id":"n-1","text":"a \"b\""}"#)),
            LoggedChange(seq: 9_000_000_000, collection: .sermons, id: "s-1", op: .delete, updatedAt: "2026-11-27T10:00:01.000Z",
                         deviceId: "dev\tB", record: ["id": "s-1", "deletedAt": "2026-11-27T10:00:01.000Z"]),
        ]
        for c in changes {
            guard case .raw(let text) = c.wireText else { Issue.record("not raw text"); continue }
            #expect(text == c.json.text)
            #expect(try JSON.parse(text) == JSON.parse(c.json.text))
        }
    }
}
