import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

/// A device's first sync takes a snapshot of the records as they are (`GET /v1/sync/snapshot`), not every
/// version the server's log ever held, then pulls the log from the snapshot's cursor.
@Suite("sync: a first sync by snapshot")
struct SyncSnapshotTests {
    static func liveSermons(_ c: RPCClient) throws -> [String: String] {
        var out = [String: String]()
        for item in try c.call("sermon.list", ["limit": 1000])["items"]?.arrayValue ?? [] {
            if let id = item["id"]?.stringValue { out[id] = item["title"]?.stringValue ?? "" }
        }
        return out
    }

    /// Changes the device's syncs received in all (`downloaded=` of each "sync done" line in its log).
    static func downloaded(_ d: DaemonProcess) -> Int {
        d.log.split(separator: "\n").filter { $0.contains("sync done") }.reduce(0) { sum, line in
            guard let r = line.range(of: "downloaded=") else { return sum }
            return sum + (Int(line[r.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }

    /// Device A makes 12 sermons, edits each twice and deletes 3, and syncs: the server's log holds 39 changes
    /// for 9 live records.
    static func history(_ a: RPCClient) throws -> (live: [String: String], deleted: [String]) {
        var ids = [String]()
        for i in 0..<12 { ids.append(try #require(try a.call("sermon.create", ["title": .string("S\(i)")])["id"]?.stringValue)) }
        for round in 1...2 {
            for (i, id) in ids.enumerated() { try a.call("sermon.update", ["id": .string(id), "title": .string("S\(i) v\(round)")]) }
        }
        for id in ids.prefix(3) { try a.call("sermon.delete", ["id": .string(id)]) }
        try a.call("sync.now", ["wait": true])
        var live = [String: String]()
        for (i, id) in ids.enumerated().dropFirst(3) { live[id] = "S\(i) v2" }
        return (live, Array(ids.prefix(3)))
    }

    @Test("a new device gets one change per live record (deleted ones never arrive), then the log brings what follows",
          arguments: Backend.allCases)
    func firstSyncBySnapshot(backend: Backend) throws {
        // B starts once A's history is on the server: its startup sync is its first.
        let rig = try SyncRig(proxied: [1], batchSize: 2, startDevices: false, server: try backend.makeServer())  // pages of 8
        defer { rig.stop() }
        try rig.withLogs {
            try rig.a.start()
            let ca = try rig.rpc(0)
            let (live, _) = try Self.history(ca)
            // Children of one sermon: a page is in key order, so they come before their sermon.
            let parent = live.keys.sorted()[0]
            for text in ["first point", "second point"] {
                try ca.call("note.add", ["sermonId": .string(parent), "text": .string(text), "timestamp": 1])
            }
            try ca.call("transcript.set", ["sermonId": .string(parent), "text": "Grace and peace."])
            try ca.call("chat.append", ["sermonId": .string(parent), "role": "user", "content": "What is grace?"])
            try ca.call("sync.now", ["wait": true])
            let logged = try rig.serverChanges().count
            #expect(logged >= 43, "\(logged)")

            try rig.b.start()
            let cb = try rig.rpc(1)
            try cb.call("sync.now", ["wait": true])
            #expect(try Self.liveSermons(cb) == live)
            #expect(Self.downloaded(rig.b) == 13, "one change per live record, not the log's \(logged)")
            let sermon = try cb.call("sermon.get", ["id": .string(parent)])
            #expect(sermon["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["first point", "second point"], "\(sermon.text)")
            #expect(sermon["transcript"]?["text"] == "Grace and peace.", "\(sermon.text)")
            #expect(try cb.call("chat.list", ["sermonId": .string(parent)]).arrayValue?.count == 1)
            let snapshots = rig.proxy!.seen(pathPrefix: "/v1/sync/snapshot")
            #expect(snapshots.count == 2, "13 records in pages of 8: \(snapshots.map(\.path))")
            #expect(snapshots.allSatisfy { !$0.path.contains("tombstones=true") }, "an empty device needs no tombstones")
            #expect(!rig.proxy!.seen(pathPrefix: "/v1/sync/pull").isEmpty, "the log is pulled after the snapshot")
            let record = try #require(try cb.call("sermon.get", ["id": .string(live.keys.first!)]).objectValue)
            #expect(record["syncState"] == "synced")

            // Later changes arrive by the log; no second snapshot.
            let edited = live.keys.sorted()[2]
            try ca.call("sermon.update", ["id": .string(edited), "title": "later"])
            try ca.call("sync.now", ["wait": true])
            let next = try cb.call("sync.now", ["wait": true])
            #expect(next["pulled"]?.int64Value == 1, "\(next.text)")
            #expect(Self.downloaded(rig.b) == 14)
            #expect(try Self.liveSermons(cb)[edited] == "later")
            #expect(rig.proxy!.seen(pathPrefix: "/v1/sync/snapshot").count == 2)
        }
    }

    @Test("an interrupted snapshot goes on from its last applied page, not from the start")
    func interruptedSnapshotResumes() throws {
        let rig = try SyncRig(proxied: [1], batchSize: 1, startDevices: false, server: ServerProcess())  // pages of 4
        defer { rig.stop() }
        try rig.withLogs {
            try rig.a.start()
            let (live, _) = try Self.history(try rig.rpc(0))
            let proxy = rig.proxy!
            // Two pages pass, the third is cut off; the engine's retry (after its backoff) goes on.
            proxy.setFault(.passThrough, pathPrefix: "/v1/sync/snapshot", times: 2)
            proxy.addFault(.reset, pathPrefix: "/v1/sync/snapshot", times: 1)
            try rig.b.start()
            let cb = try rig.rpc(1)
            #expect(try eventually(timeout: 20) { try Self.liveSermons(cb) == live })
            #expect(try rig.waitDrained(1))
            #expect(Self.downloaded(rig.b) == 1, "only the page that was cut off came again")
            let paths = proxy.seen(pathPrefix: "/v1/sync/snapshot").map(\.path)
            #expect(paths.filter { !$0.contains("after=") }.count == 1, "the snapshot started over: \(paths)")
            #expect(paths.count == 4 && paths[2] == paths[3], "the cut-off page is asked for again: \(paths)")
        }
    }

    @Test("a server without snapshots (404): the first sync pulls the whole log, and every record arrives")
    func olderServer() throws {
        let rig = try SyncRig(proxied: [1], batchSize: 2, startDevices: false, server: ServerProcess())
        defer { rig.stop() }
        try rig.withLogs {
            try rig.a.start()
            let (live, _) = try Self.history(try rig.rpc(0))
            rig.proxy!.setFault(.respond(status: 404), pathPrefix: "/v1/sync/snapshot")
            try rig.b.start()
            let cb = try rig.rpc(1)
            try cb.call("sync.now", ["wait": true])
            #expect(Self.downloaded(rig.b) == 39)
            #expect(try Self.liveSermons(cb) == live)
            #expect(rig.proxy!.seen(pathPrefix: "/v1/sync/snapshot").count == 1, "asked once, then never again")
            #expect(rig.b.log.contains("has no snapshots"))
        }
    }

    @Test("a device that holds records but never pulled (its cursor lost) asks for tombstones: what the server deleted goes here too",
          arguments: Backend.allCases)
    func devicesWithRecordsGetTombstones(backend: Backend) throws {
        let rig = try SyncRig(proxied: [1], batchSize: 2, server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            var ids = [String]()
            for i in 0..<6 { ids.append(try #require(try ca.call("sermon.create", ["title": .string("S\(i)")])["id"]?.stringValue)) }
            try rig.syncAll(order: [0, 1])
            #expect(try Self.liveSermons(cb).count == 6)
            // B stops and loses its pull cursor (an old backup, say); meanwhile A deletes two.
            _ = rig.b.stop()
            let db = try SQLiteConnection(path: "\(rig.b.dataDir)/tnotes.sqlite", create: false)
            try db.run("DELETE FROM sync_cursor")
            for id in ids.prefix(2) { try ca.call("sermon.delete", ["id": .string(id)]) }
            try ca.call("sync.now", ["wait": true])
            rig.proxy!.resetCounters()
            try rig.b.start()
            try rig.rpc(1).call("sync.now", ["wait": true])
            #expect(Set(try Self.liveSermons(try rig.rpc(1)).keys) == Set(ids.dropFirst(2)), "B kept what the server deleted")
            let snapshots = rig.proxy!.seen(pathPrefix: "/v1/sync/snapshot")
            #expect(!snapshots.isEmpty && snapshots.allSatisfy { $0.path.contains("tombstones=true") }, "\(snapshots.map(\.path))")
        }
    }
}
