import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

@Suite("tnotes-server smoke")
struct ServerSmokeTests {
    @Test("healthz answers without auth; everything else wants a token")
    func healthAndAuth() throws {
        let server = try ServerProcess().start()
        defer { server.stop() }
        let http = HTTPTestClient(baseURL: server.baseURL)
        let health = try http.get("/healthz")
        #expect(health.status == 200)
        #expect(health.json?["status"] == "ok")
        #expect(try http.get("/v1/sync/pull").status == 401)
        http.token = "tn_not-a-real-token"
        #expect(try http.get("/v1/sync/pull").status == 401)
    }

    @Test("a PostgreSQL cluster starts for the tests and the server migrates into it")
    func postgresStarts() throws {
        let pg = try PostgresServer.shared.get()
        let url = try pg.makeDatabase()
        let server = ServerProcess(database: url)
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        let pull = try http.get("/v1/sync/pull")
        #expect(pull.status == 200)
        #expect(pull.json?["hasMore"] == false)
    }

    @Test("/metrics reports requests and push results in Prometheus text format, without tokens")
    func metrics() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        let id = "11111111-1111-4111-8111-111111111111"
        let record: JSON = ["id": .string(id), "title": "T", "date": "2025-11-06T10:00:00.000Z",
                            "createdAt": "2025-11-06T10:00:00.000Z", "updatedAt": "2025-11-06T10:00:00.000Z"]
        let change: JSON = ["opId": "m1", "collection": "sermons", "id": .string(id), "op": "upsert",
                            "updatedAt": "2025-11-06T10:00:00.000Z", "deviceId": "d", "record": record]
        #expect(try http.post("/v1/sync/push", json: ["deviceId": "d", "changes": [change]]).status == 200)
        #expect(try http.post("/v1/sync/push", json: ["deviceId": "d", "changes": [change]]).status == 200)
        let m = try HTTPTestClient(baseURL: server.baseURL).get("/metrics")
        #expect(m.status == 200)
        #expect(m.text.contains(#"tnotes_push_changes_total{result="applied"} 1"#), "\(m.text)")
        #expect(m.text.contains(#"tnotes_push_changes_total{result="duplicate"} 1"#))
        #expect(m.text.contains("tnotes_http_requests_total"))
        #expect(!m.text.contains(token))
    }
}
