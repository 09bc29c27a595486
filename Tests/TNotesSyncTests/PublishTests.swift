import Foundation
import Synchronization
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

/// Contract §6.5: publish and unpublish, seed 004's three bugs kept impossible, the page end to end, and
/// what another user and a stranger can see.
@Suite("publish a sermon as a public page", .serialized)
struct PublishTests {
    /// GET of `url` (no token): status, headers (lowercased names) and body. URLSession may follow no
    /// redirects here (there are none) and keeps no cache (ephemeral session).
    static func get(_ url: String, headers: [String: String] = [:]) throws -> (status: Int, headers: [String: String], body: String) {
        let r = try HTTPTestClient(baseURL: "").request("GET", url, headers: headers.merging(noCache) { a, _ in a })
        var h: [String: String] = [:]
        for (k, v) in r.headers { h[k.lowercased()] = v }
        return (r.status, h, r.text)
    }

    @Test("seed 004: the queued publish is byte-identical to what is sent, its snapshot an object; an offline unpublish reaches the server after a restart and the page answers 410")
    func seed004Regressions() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let proxy = try FaultProxy(frontOf: server)
        defer { proxy.stop() }
        let pushed = Mutex<[String]>([])
        proxy.setRewriter { method, path, body in
            if method == "POST" && path.hasPrefix("/v1/sync/push") { pushed.withLock { $0.append(String(decoding: body, as: UTF8.self)) } }
            return nil
        }
        let d = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        let config = try d.dir.write("tnotesd.toml", syncConfigText(serverURL: proxy.baseURL, backoffBase: 0.1, backoffMax: 0.5))
        d.extraArguments = ["--config", config]
        try d.start()
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Bread of Life", "speaker": "Ann Lee"])["id"]?.stringValue)
        try c.call("note.add", ["sermonId": .string(sid), "text": "I am the bread of life", "timestamp": 95])
        try c.call("sync.now", ["wait": true])

        // Offline: the publish is queued whole.
        proxy.setFault(.respond(status: 503))
        let queued = try c.call("sermon.publish", ["id": .string(sid)])
        #expect(queued["state"] == "pending" && queued["url"] == .null)
        let publicId = try #require(queued["publicId"]?.stringValue)
        let outboxText = try Self.outboxChange(d, collection: "publications")
        let outbox = try JSON.parse(outboxText)
        // Bug 1: the snapshot is an object in the queue (not JSON text in a string).
        guard case .object(let snapshot)? = outbox["record"]?["snapshot"] else {
            Issue.record("snapshot is not an object in the queue: \(outboxText)")
            return
        }
        #expect(snapshot["notes"]?.arrayValue?.first?["text"] == "I am the bread of life")
        // Bug 2: one spelling, camelCase, as the server reads it.
        #expect(outboxText.contains("\"publicId\":\"\(publicId)\"") && !outboxText.contains("public_id"))

        proxy.passThrough()
        try c.call("sync.now", ["wait": true])
        // What was sent contains the queued change byte for byte.
        #expect(pushed.withLock { $0 }.contains { $0.contains(outboxText) }, "the push did not carry the queued text unchanged")
        let page = try Self.get("\(server.baseURL)/p/\(publicId).json")
        #expect(page.status == 200, "\(page.body)")
        #expect(try JSON.parse(page.body)["notes"]?.arrayValue?.first?["text"] == "I am the bread of life")
        let published = try c.call("sermon.get", ["id": .string(sid)])["publication"]
        #expect(published?["state"] == "published" && published?["url"]?.stringValue == "\(proxy.baseURL)/p/\(publicId)")

        // Bug 3: an unpublish made offline, then a restart, then the network: it still reaches the server.
        proxy.setFault(.respond(status: 503))
        let un = try c.call("sermon.unpublish", ["id": .string(sid)])
        #expect(un["state"] == "pending" && un["publicId"]?.stringValue == publicId)
        let queuedUnpublish = try JSON.parse(try Self.outboxChange(d, collection: "publications"))
        #expect(queuedUnpublish["record"]?["publicId"]?.stringValue == publicId, "the unpublish carries its public id")
        #expect(queuedUnpublish["record"]?["published"] == false)
        d.stop()
        try d.start()
        proxy.passThrough()
        try d.client().call("sync.now", ["wait": true])
        #expect(try Self.get("\(server.baseURL)/p/\(publicId)").status == 410)
        #expect(try Self.get("\(server.baseURL)/p/\(publicId).json").status == 410)
        #expect(try d.client().call("sermon.get", ["id": .string(sid)])["publication"]?["state"] == "unpublished")
    }

    /// The newest outbox entry of a collection, as stored (the daemon's database, read-only).
    static func outboxChange(_ d: DaemonProcess, collection: String) throws -> String {
        let db = try SQLiteConnection(path: "\(d.dataDir)/tnotes.sqlite", create: false)
        return try #require(try db.scalar("SELECT change FROM outbox WHERE collection = ? ORDER BY seq DESC LIMIT 1", [.text(collection)]).string)
    }

    @Test("end to end: publish on A, the page shows notes and summary; edit and re-publish updates it; B unpublishes", arguments: Backend.allCases)
    func endToEnd(backend: Backend) throws {
        let rig = try SyncRig(server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let a = try rig.rpc(0), b = try rig.rpc(1)
            let sid = try #require(try a.call("sermon.create", ["title": "No Condemnation", "speaker": "Ann Lee", "date": "2025-11-09"])["id"]?.stringValue)
            let note = try #require(try a.call("note.add", ["sermonId": .string(sid), "text": "Grace comes first", "timestamp": 754])["id"]?.stringValue)
            try a.call("summary.set", ["sermonId": .string(sid), "title": "Key points", "text": "Romans 8:1 — no condemnation.", "type": "bullet"])
            try a.call("transcript.set", ["sermonId": .string(sid), "text": "secret transcript words"])
            let p = try a.call("sermon.publish", ["id": .string(sid)])
            #expect(p["parts"] == ["notes", "summary"])
            try rig.syncAll(order: [0, 1])
            let publication = try #require(try a.call("sermon.get", ["id": .string(sid)])["publication"])
            let url = try #require(publication["url"]?.stringValue)
            #expect(publication["state"] == "published" && publication["publishedAt"]?.stringValue != nil)
            let html = try Self.get(url)
            #expect(html.status == 200 && html.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(html.body.contains("<title>No Condemnation</title>") && html.body.contains("Ann Lee"))
            #expect(html.body.contains("12:34") && html.body.contains("Grace comes first"))
            #expect(html.body.contains("Romans 8:1 — no condemnation."))
            #expect(!html.body.contains("secret transcript words"), "the transcript was not published")
            #expect(!html.body.contains("<script"), "the page needs no script")
            #expect(html.body.contains("name=\"description\""))
            let etag = try #require(html.headers["etag"])
            #expect(html.headers["cache-control"]?.contains("public") == true)
            #expect(try Self.get(url, headers: ["If-None-Match": etag]).status == 304)
            let json = try JSON.parse(try Self.get(url + ".json").body)
            #expect(json["title"] == "No Condemnation" && json["notes"]?.arrayValue?.count == 1 && json["transcript"] == .null)
            #expect(json["summary"]?["text"] == "Romans 8:1 — no condemnation.")

            // An edit, then a re-publish: same address, new content, new ETag.
            try a.call("note.update", ["id": .string(note), "text": "Grace comes first, always"])
            let again = try a.call("sermon.publish", ["id": .string(sid), "parts": ["notes", "summary", "transcript"]])
            #expect(again["publicId"] == publication["publicId"])
            try rig.syncAll(order: [0, 1])
            let updated = try Self.get(url)
            #expect(updated.body.contains("Grace comes first, always") && updated.body.contains("secret transcript words"))
            #expect(updated.headers["etag"] != etag)

            // B has the publication by sync, and unpublishes it.
            let onB = try b.call("sermon.get", ["id": .string(sid)])["publication"]
            #expect(onB?["state"] == "published" && onB?["publicId"] == publication["publicId"])
            try b.call("sermon.unpublish", ["id": .string(sid)])
            try rig.syncAll(order: [1, 0])
            let gone = try Self.get(url)
            #expect(gone.status == 410 && !gone.body.contains("Grace"), "\(gone.body)")
            #expect(try a.call("sermon.get", ["id": .string(sid)])["publication"]?["state"] == "unpublished")
            // Bad params are named; unpublishing twice is a conflict.
            #expect(try b.callError("sermon.unpublish", ["id": .string(sid)]).code == -32002)
            #expect(try a.callError("sermon.publish", ["id": .string(sid), "parts": ["video"]]).field == "parts[0]")
            // Audio is a part, but this sermon has none.
            #expect(try a.callError("sermon.publish", ["id": .string(sid), "parts": ["audio"]]).field == "parts")
            #expect(try a.callError("sermon.publish", ["id": .string(sid), "slug": "!!!"]).field == "slug")
            #expect(try a.callError("sermon.unpublish", ["id": .string(Identifier.make())]).code == -32001)
        }
    }

    @Test("another user cannot unpublish or overwrite a page (its public id is not theirs); unknown ids leak nothing", arguments: Backend.allCases)
    func otherUsers(backend: Backend) throws {
        let rig = try SyncRig(devices: 1, server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let a = try rig.rpc(0)
            let sid = try #require(try a.call("sermon.create", ["title": "Mine"])["id"]?.stringValue)
            try a.call("note.add", ["sermonId": .string(sid), "text": "original words", "timestamp": 1])
            let publicId = try #require(try a.call("sermon.publish", ["id": .string(sid)])["publicId"]?.stringValue)
            try rig.syncAll()
            let page = "\(rig.server.baseURL)/p/\(publicId)"
            #expect(try Self.get(page).status == 200)

            // Mallory pushes a publication naming Alice's public id: an unpublish, then an overwrite.
            let mallory = HTTPTestClient(baseURL: rig.server.baseURL, token: try rig.server.addUser("mallory"))
            for (published, snapshot) in [(false, JSON.null), (true, ["title": "Hacked", "notes": [["timestamp": 0, "text": "pwned"]]] as JSON)] {
                let record: JSON = ["id": .string(Identifier.make()), "sermonId": .string(Identifier.make()), "publicId": .string(publicId),
                                    "parts": ["notes"], "published": .bool(published), "snapshot": snapshot, "publishedAt": .null,
                                    "updatedAt": .string(Wire.time(10)), "deletedAt": .null]
                let change: JSON = ["opId": .string(Identifier.make()), "collection": "publications", "id": record["id"]!, "op": "upsert",
                                    "updatedAt": record["updatedAt"]!, "deviceId": "mallory-device", "record": record]
                let r = try mallory.push([change])
                #expect(r.results.first?["status"] == "rejected", "\(r.results)")
                #expect(r.results.first?["error"]?.stringValue?.contains("no publication") == true, "\(r.results)")
            }
            let still = try Self.get(page)
            #expect(still.status == 200 && still.body.contains("original words") && !still.body.contains("pwned"))

            // Unknown and malformed ids: 404 with nothing about any sermon.
            for id in ["nope-0123456789abcdef", "no-such-page", "../../etc/passwd", "%3Cscript%3E"] {
                let r = try Self.get("\(rig.server.baseURL)/p/\(id)")
                #expect(r.status == 404 && !r.body.contains("Mine"), "\(id): \(r.status)")
            }
            let json404 = try Self.get("\(rig.server.baseURL)/p/nope-0123456789abcdef.json")
            #expect(json404.status == 404 && (try? JSON.parse(json404.body))?["error"] == "not_found")
        }
    }
}
