import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// A request's work is bounded in items as well as bytes: a push of more changes than
// `max_push_changes` (default 10,000), and a legacy body with more notes, get 413 at once with the limit in
// the JSON body, and nothing of them is applied.
@Suite("tnotes-server bounds per request")
struct ServerBoundsTests {
    /// A server whose config lowers the change bound to `limit`.
    static func configure(limit: Int) -> (ServerProcess) throws -> Void {
        { server in
            let path = server.dir.file("tnotes-server.toml")
            try Data("max_push_changes = \(limit)\n".utf8).write(to: URL(fileURLWithPath: path))
            server.extraArguments = ["--config", path]
        }
    }

    static func notes(_ n: Int, sermonId: String) -> [JSON] {
        (0..<n).map { i in Wire.change(.notes, Wire.note(Wire.id(), sermonId: sermonId, text: "n\(i)", timestamp: .int(Int64(i))), deviceId: "devA") }
    }

    @Test("a push over the configured bound: 413 with the limit, nothing applied; at the bound it is applied",
          arguments: Backend.allCases)
    func pushOverBound(backend: Backend) throws {
        try withServer(backend, configure: Self.configure(limit: 100)) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id()
            let over = Self.notes(101, sermonId: sid)
            let r = try http.post("/v1/sync/push", json: ["deviceId": "devA", "changes": .array(over)])
            expectJSONError(r, status: 413, "101 changes against a bound of 100")
            #expect(r.json?["limit"]?.int64Value == 100, "\(r.text)")
            #expect(r.json?["error"]?.stringValue == "too_many_items", "\(r.text)")
            #expect(try http.pullAll().changes.isEmpty, "nothing of a refused push is applied")
            let atBound = try http.push(Self.notes(100, sermonId: sid))
            #expect(atBound.statuses == Array(repeating: "applied", count: 100))
        }
    }

    @Test("the default bound is 10,000: 10,001 tiny changes are refused at once")
    func defaultBound() throws {
        try withServer(.sqlite) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id()
            let t0 = Date()
            let r = try http.post("/v1/sync/push", json: ["deviceId": "devA", "changes": .array(Self.notes(10_001, sermonId: sid))])
            let seconds = Date().timeIntervalSince(t0)
            expectJSONError(r, status: 413, "10,001 changes")
            #expect(r.json?["limit"]?.int64Value == 10_000, "\(r.text)")
            // Refused before any merge: a parse of the body, not 10,001 lookups and inserts.
            #expect(seconds < 5, "the refusal took \(seconds) s")
            #expect(try http.pullAll().changes.isEmpty)
        }
    }

    @Test("a legacy create-sermon with more notes than the bound: 413 with the limit, no sermon created")
    func legacyNotesOverBound() throws {
        try withServer(.sqlite, configure: Self.configure(limit: 10)) { server, tokens in
            let http = server.client(tokens["alice"])
            let notes: [JSON] = (0..<11).map { i in ["localId": .string(Wire.id()), "text": .string("n\(i)"), "timestamp": .int(Int64(i))] }
            let r = try http.post("/api/create-sermon", json: ["localId": .string(Wire.id()), "title": "Too many", "notes": .array(notes)])
            expectJSONError(r, status: 413, "11 legacy notes against a bound of 10")
            #expect(r.json?["limit"]?.int64Value == 10, "\(r.text)")
            #expect(r.json?["field"]?.stringValue == "notes", "\(r.text)")
            #expect(try http.pullAll().changes.isEmpty)
        }
    }

    @Test("max_push_changes out of range is a config error naming the key")
    func badConfig() throws {
        let server = ServerProcess()
        let path = server.dir.file("bad.toml")
        try Data("max_push_changes = 0\n".utf8).write(to: URL(fileURLWithPath: path))
        let r = try ProcessRunner.run(Binaries.path("tnotes-server"), ["serve", "--config", path] + server.storageArguments + ["--port", "0"])
        #expect(r.status == 78, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("max_push_changes"), "\(r.stderr)")
    }
}
