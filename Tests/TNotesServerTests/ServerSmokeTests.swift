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
}
