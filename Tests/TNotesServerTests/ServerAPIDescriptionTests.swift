import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.6: `GET /openapi.json` describes every route, and the router's own answers follow HTTP and
/// the JSON error body (schemathesis, run by `scripts/check-openapi.sh` in `make test`, found the bare 404s).
@Suite("tnotes-server API description and router answers")
struct ServerAPIDescriptionTests {
    @Test("GET /openapi.json: OpenAPI 3.1, no auth, every route the server serves, bearer auth and the error body")
    func document() throws {
        try withServer(.sqlite) { server, _ in
            let r = try server.client().get("/openapi.json", headers: noCache)
            #expect(r.status == 200)
            #expect(r.header("Content-Type")?.hasPrefix("application/json") == true)
            let doc = try #require(r.json, "not JSON: \(r.text.prefix(200))")
            #expect(doc["openapi"]?.stringValue?.hasPrefix("3.1") == true)
            let paths = Set(doc["paths"]?.objectValue?.keys.map { $0 } ?? [])
            for p in ["/healthz", "/openapi.json", "/v1/sync/push", "/v1/sync/pull", "/v1/sync/snapshot", "/v1/audio/{sermonId}", "/api/create-sermon",
                      "/api/update-sermon", "/api/get-sermons", "/api/generate-upload-url"] {
                #expect(paths.contains(p), "\(p) is not described")
            }
            let pull = doc["paths"]?["/v1/sync/pull"]?["get"]?["parameters"]?.arrayValue ?? []
            #expect(pull.contains { $0["name"] == "wait" }, "the long-poll wait parameter is not described")
            #expect(doc["components"]?["securitySchemes"]?.objectValue?.values.contains { $0["scheme"] == "bearer" } == true)
        }
    }

    @Test("a method a path does not serve answers 405 with Allow; HEAD works wherever GET does; an unknown path is a JSON 404")
    func routerAnswers() throws {
        try withServer(.sqlite) { server, tokens in
            let http = server.client(tokens["alice"])
            let wrong = try http.request("DELETE", "/v1/sync/push")
            #expect(wrong.status == 405)
            #expect(wrong.header("Allow") == "POST", "\(wrong.headers)")
            #expect(wrong.json?["error"] == "method_not_allowed", "\(wrong.text)")

            let head = try http.request("HEAD", "/healthz", headers: noCache)
            #expect(head.status == 200 && head.body.isEmpty)
            let headPull = try http.request("HEAD", "/v1/sync/pull", headers: noCache)
            #expect(headPull.status == 200, "\(headPull.status)")
            #expect(try server.client().request("HEAD", "/v1/sync/pull", headers: noCache).status == 401)

            let unknown = try http.get("/no/such/route", headers: noCache)
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"] == "not_found", "\(unknown.text)")
        }
    }

    @Test("a change stamped more than a day ahead is rejected, and cannot drag the shared clock (legacy writes keep working)",
          arguments: Backend.allCases)
    func farFutureChangeRejected(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"]) { server, tokens in
            let alice = server.client(tokens["alice"]), bob = server.client(tokens["bob"])
            let sid = Wire.id()
            let future = "9999-12-31T23:59:59.999Z"
            let answer = try alice.push([Wire.change(.sermons, Wire.sermon(sid, updatedAt: future))])
            #expect(answer.statuses == ["rejected"])
            #expect(answer.results.first?["error"]?.stringValue?.hasPrefix("updatedAt:") == true, "\(answer.results)")
            #expect(try alice.pullAll().changes.isEmpty)
            let created = try bob.post("/api/create-sermon", json: ["localId": .string(Wire.id()), "title": "Still fine", "speaker": "Ann"])
            #expect(created.status == 201, "\(created.status) \(created.text)")
            // The server stamped it with its own (undragged) clock.
            let stamped = try bob.pullAll().changes.compactMap { $0["updatedAt"]?.stringValue }
            #expect(!stamped.isEmpty && stamped.allSatisfy { $0 < "2100" }, "\(stamped)")
        }
    }
}
