import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

/// Contract §6.3 server reset guard (Joplin #661, #5536, #10117: a reset sync server wiped every device).
/// Push and pull answers carry `serverEpoch`; a new epoch makes a device push everything again and delete
/// nothing, and a pull that would delete more than half of a device's records is held until `sync.confirm`.
@Suite("sync: server reset guard")
struct SyncResetGuardTests {
    static func liveSermons(_ c: RPCClient) throws -> Set<String> {
        Set(try c.call("sermon.list", ["limit": 1000])["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
    }

    /// Replaces the server's database by a new, empty one (a new epoch) in which the same user's token is
    /// valid: what an operator who lost the database and re-created the user (with the old device token) would have.
    static func replaceDatabase(of server: ServerProcess, backend: Backend) throws {
        if backend == .postgres {
            let pg = try PostgresServer.shared.get()
            let hash = try pg.sql(server.database, "SELECT token_hash FROM devices ORDER BY created_at LIMIT 1")
            try pg.recreateDatabase(server.database)
            _ = try server.addUser("alice")
            _ = try pg.sql(server.database, "UPDATE devices SET token_hash = '\(hash)'")
            return
        }
        let dbPath = server.database.replacingOccurrences(of: "sqlite://", with: "")
        let old = try SQLiteConnection(path: dbPath, create: false)
        let hash = try old.scalar("SELECT token_hash FROM devices ORDER BY created_at LIMIT 1").string ?? ""
        for suffix in ["", "-wal", "-shm"] { unlink(dbPath + suffix) }
        _ = try server.addUser("alice")  // creates the new database, with a new epoch
        let fresh = try SQLiteConnection(path: dbPath, create: false)
        try fresh.run("UPDATE devices SET token_hash = ?", [.text(hash)])
    }

    @Test("the server's database replaced by an empty one: no device loses anything, the server gets everything back once",
          arguments: Backend.allCases)
    func replacedServerDatabase(backend: Backend) throws {
        let rig = try SyncRig(server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            var ids = Set<String>()
            for i in 0..<6 { ids.insert(try #require(try ca.call("sermon.create", ["title": .string("A\(i)")])["id"]?.stringValue)) }
            for i in 0..<6 { ids.insert(try #require(try cb.call("sermon.create", ["title": .string("B\(i)")])["id"]?.stringValue)) }
            try rig.syncAll(rounds: 2)
            #expect(try Self.liveSermons(ca) == ids && Self.liveSermons(cb) == ids)

            let port = rig.server.port
            rig.server.stop()
            try Self.replaceDatabase(of: rig.server, backend: backend)
            try rig.server.start(port: port)
            #expect(try rig.serverChanges().isEmpty, "the new server database is not empty")

            try rig.syncAll(rounds: 2)
            #expect(try Self.liveSermons(ca) == ids, "A lost sermons")
            #expect(try Self.liveSermons(cb) == ids, "B lost sermons")
            let sermons = try rig.serverChanges().filter { $0["collection"] == "sermons" }
            #expect(Set(sermons.compactMap { $0["id"]?.stringValue }) == ids)
            #expect(sermons.count == ids.count, "duplicates on the server: \(sermons.count) changes for \(ids.count) sermons")
            #expect(rig.a.log.contains("database was replaced"))
        }
    }

    @Test("a pull that would delete more than half of the records is held, reported, and runs after sync.confirm",
          arguments: Backend.allCases)
    func massDeleteHeld(backend: Backend) throws {
        let rig = try SyncRig(server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            var ids = [String]()
            for i in 0..<20 { ids.append(try #require(try ca.call("sermon.create", ["title": .string("S\(i)")])["id"]?.stringValue)) }
            try rig.syncAll(order: [0, 1])
            for id in ids.prefix(15) { try cb.call("sermon.delete", ["id": .string(id)]) }
            try cb.call("sync.now", ["wait": true])

            let report = try ca.call("sync.now", ["wait": true])
            #expect(report["held"]?.int64Value == 15, "\(report.text)")
            #expect(try Self.liveSermons(ca).count == 20, "the held pull deleted records")
            let status = try ca.call("sync.status")
            #expect(status["state"] == "held" && status["heldDeletes"]?.int64Value == 15, "\(status.text)")
            // Still held on the next sync.
            #expect(try ca.call("sync.now", ["wait": true])["held"]?.int64Value == 15)

            let confirmed = try ca.call("sync.confirm")
            #expect(confirmed["confirmed"] == true && confirmed["deletes"]?.int64Value == 15)
            #expect(try eventually(timeout: 20) { try Self.liveSermons(ca).count == 5 })
            #expect(try eventually(timeout: 10) { try ca.call("sync.status")["state"] == "idle" })
            #expect(try ca.call("sync.status")["heldDeletes"] == .null)
        }
    }
}
