import Foundation
import Logging
import Testing
import TNotesCore
import TNotesServer
import TNotesTestSupport

/// Contract §6.6: `GET /openapi.json` describes every route, and the router's own answers follow HTTP and
/// the JSON error body (schemathesis, run by `scripts/check-openapi.sh` in `make test`, found the bare 404s).
/// The document is `docs/openapi.json`; these tests hold it to the router (here) and to the
/// record schemas (OpenAPIRecordSchemaTests.swift).
@Suite("tnotes-server API description and router answers")
struct ServerAPIDescriptionTests {
    @Test("GET /openapi.json: no auth, the bytes of openapi.json as they are (HEAD: their length), OpenAPI 3.1, bearer auth")
    func document() throws {
        let file = try OpenAPIFile.bytes()
        try withServer(.sqlite) { server, _ in
            let r = try server.client().get("/openapi.json", headers: noCache)
            #expect(r.status == 200)
            #expect(r.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(r.body == file, "the served document (\(r.body.count) bytes) is not openapi.json (\(file.count) bytes)")
            let head = try server.client().request("HEAD", "/openapi.json", headers: noCache)
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(file.count))
            let doc = try #require(r.json, "not JSON: \(r.text.prefix(200))")
            #expect(doc["openapi"]?.stringValue?.hasPrefix("3.1") == true)
            let pull = doc["paths"]?["/v1/sync/pull"]?["get"]?["parameters"]?.arrayValue ?? []
            #expect(pull.contains { $0["name"] == "wait" }, "the long-poll wait parameter is not described")
            #expect(doc["components"]?["securitySchemes"]?.objectValue?.values.contains { $0["scheme"] == "bearer" } == true)
        }
    }

    /// One route: a path as OpenAPI spells it (`/v1/audio/{sermonId}`) and a method.
    struct Route: Hashable, Comparable, CustomStringConvertible {
        let path: String
        let method: String
        var description: String { "\(method) \(path)" }
        static func < (a: Route, b: Route) -> Bool { (a.path, a.method) < (b.path, b.method) }
    }

    /// What the server's router serves, read from the router itself (`ServerApp.servedRoutes`, Hummingbird's
    /// `Router.routes`): the same `router()` the binary runs, built over a scratch SQLite store and not started.
    static func servedRoutes() async throws -> Set<Route> {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tnotes-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let storage = try SQLiteServerStorage(path: dir.appendingPathComponent("server.sqlite").path)
        try await storage.migrate()
        var settings = ServerApp.Settings()
        settings.dataDir = dir.path
        let app = try await ServerApp(storage: storage, settings: settings, logger: Logger(label: "routes"))
        let routes = app.servedRoutes()
        await storage.close()
        return Set(routes.map { Route(path: $0.path, method: $0.method) })
    }

    /// What the document describes: each path's operations, and HEAD wherever GET (the server serves HEAD on
    /// every GET route, `ServerApp.getAndHead`; `routerMatchesDocument` checks that it does).
    static func documentedRoutes(_ doc: JSON) -> Set<Route> {
        let methods: Set<String> = ["get", "head", "post", "put", "delete", "patch", "options", "trace"]
        var routes = Set<Route>()
        for (path, item) in doc["paths"]?.objectValue ?? [:] {
            for key in item.objectValue?.keys.map({ $0 }) ?? [] where methods.contains(key) {
                routes.insert(Route(path: path, method: key.uppercased()))
                if key == "get" { routes.insert(Route(path: path, method: "HEAD")) }
            }
        }
        return routes
    }

    /// A path to request for a route: each parameter filled in with a value of its form.
    static func concrete(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            guard part.hasPrefix("{") else { return String(part) }
            return part == "{publicId}" ? "no-such-page-0123456789abcdef" : Identifier.make()
        }.joined(separator: "/")
    }

    @Test("the router serves every path and method openapi.json describes, and none it does not (HEAD wherever GET)")
    func routerMatchesDocument() async throws {
        let served = try await Self.servedRoutes()
        let documented = Self.documentedRoutes(try OpenAPIFile.document())
        #expect(!served.isEmpty)
        let undocumented = served.subtracting(documented).sorted(), unserved = documented.subtracting(served).sorted()
        #expect(undocumented.isEmpty, "served but not in openapi.json: \(undocumented)")
        #expect(unserved.isEmpty, "in openapi.json but not served: \(unserved)")
        for route in served where route.method == "GET" {
            #expect(served.contains(Route(path: route.path, method: "HEAD")), "\(route) has no HEAD")
        }
        // The two the old hand-kept list missed. (`/p/{publicId}.json` is this route too: the page answers a
        // `.json` id with the JSON; `liveRoutes` requests it.)
        for route in [Route(path: "/metrics", method: "GET"), Route(path: "/p/{publicId}", method: "GET")] {
            #expect(served.contains(route) && documented.contains(route), "\(route)")
        }
    }

    @Test("the running server answers every route of the router (no 405, no 'no route'), and 405 naming exactly the router's methods elsewhere on a path")
    func liveRoutes() async throws {
        let served = try await Self.servedRoutes()
        let methods = Dictionary(grouping: served, by: \.path).mapValues { Set($0.map(\.method)) }
        func noRoute(_ r: HTTPResponse) -> Bool {
            r.status == 404 && r.json?["detail"]?.stringValue?.hasPrefix("no route") == true
        }
        try withServer(.sqlite) { server, _ in
            // No token: each route's own handler answers (a 401 where it needs one), never the router's fallback.
            let http = server.client()
            for route in served.sorted() {
                let r = try http.request(route.method, Self.concrete(route.path), headers: noCache)
                #expect(r.status != 405 && !noRoute(r), "\(route): \(r.status) \(r.text.prefix(200))")
            }
            // A method the path does not serve (DELETE, or where a device is revoked by DELETE, another) is 405 with
            // the path's own Allow.
            for (path, allowed) in methods.sorted(by: { $0.key < $1.key }) {
                let method = try #require(["DELETE", "PATCH", "PUT", "POST"].first { !allowed.contains($0) })
                let r = try http.request(method, Self.concrete(path), headers: noCache)
                #expect(r.status == 405, "\(method) \(path): \(r.status)")
                #expect(r.header("Allow") == allowed.sorted().joined(separator: ", "), "\(method) \(path): Allow \(r.header("Allow") ?? "none")")
            }
            let page = try http.get("/p/no-such-page-0123456789abcdef.json", headers: noCache)
            #expect(page.status == 404 && page.json?["error"] == "not_found" && !noRoute(page), "\(page.status) \(page.text.prefix(200))")
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
