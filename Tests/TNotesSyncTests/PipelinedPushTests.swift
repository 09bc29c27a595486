import Foundation
import Testing
import TNotesCore
@testable import TNotesStore
@testable import TNotesSync
import TNotesTestSupport
import TNotesSQLite

/// The push keeps up to two batches out at once, and settles each as it is answered. What must still
/// hold: a record's changes reach the server in the order they were made (two batches that share a record
/// are never out together), an edit whose entries span batches ends synced with its last version, and a
/// lost answer with another batch out neither loses nor doubles a change.
@Suite("sync: pipelined push")
struct PipelinedPushTests {
    static func queued(_ seq: Int64, _ collection: String, _ id: String) -> StoreSession.QueuedChange {
        StoreSession.QueuedChange(seq: seq, opId: Identifier.make(), collection: collection, recordId: id, text: "{}")
    }

    @Test("two batches go out together only when no record is in both")
    func disjointBatches() {
        let s = Identifier.make(), n = Identifier.make()
        let first = SyncEngine.keys([Self.queued(1, "sermons", s), Self.queued(2, "notes", n)])
        #expect(SyncEngine.disjoint(first, [Self.queued(3, "notes", Identifier.make())]))
        // The same id in another collection is another record.
        #expect(SyncEngine.disjoint(first, [Self.queued(3, "transcripts", n)]))
        #expect(!SyncEngine.disjoint(first, [Self.queued(3, "notes", Identifier.make()), Self.queued(4, "notes", n)]))
        #expect(!SyncEngine.disjoint(first, [Self.queued(3, "sermons", s)]))
    }

    /// Each note's sync state, read from the daemon's own SQLite file as the store reads it (the RPC views show
    /// it per sermon).
    func noteStates(_ d: DaemonProcess) throws -> [String] {
        let db = try SQLiteConnection(path: "\(d.dataDir)/tnotes.sqlite", create: false)
        return try db.query("SELECT \(StoreSession.syncStateSQL) FROM records WHERE collection = 'notes'").compactMap { $0[0].string }
    }

    @Test("a record edited in several batches ends with its last edit, every entry settled, B identical")
    func editsAcrossBatches() throws {
        let rig = try SyncRig(batchSize: 5)
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let sermon = try #require(try ca.call("sermon.create", ["title": "Pipelined"])["id"]?.stringValue)
            let first = try #require(try ca.call("note.add", ["sermonId": .string(sermon), "text": "v0", "timestamp": 0])["id"]?.stringValue)
            var doomed = ""
            // 6 other notes between each edit of `first`: its five entries fall in different batches of 5.
            for edit in 1...5 {
                for k in 0..<6 {
                    let n = try ca.call("note.add", ["sermonId": .string(sermon), "text": .string("e\(edit)k\(k)"),
                                                     "timestamp": .int(Int64(edit * 10 + k))])
                    if edit == 2 && k == 3 { doomed = n["id"]?.stringValue ?? "" }
                }
                try ca.call("note.update", ["id": .string(first), "text": .string("v\(edit)")])
            }
            try ca.call("note.delete", ["id": .string(doomed)])
            // (A local-change sync may already have pushed part of it: only the end state is asserted.)
            let queued = 1 + 1 + 30 + 5 + 1
            try ca.call("sync.now", ["wait": true])
            #expect(try rig.waitDrained(0))

            // The server's log holds every entry once, in the order A made them.
            let changes = try rig.serverChanges()
            #expect(changes.count == queued)
            let firstTexts = changes.filter { $0["id"]?.stringValue == first }.compactMap { $0["record"]?["text"]?.stringValue }
            #expect(firstTexts == ["v0", "v1", "v2", "v3", "v4", "v5"])
            #expect(try rig.serverRecord(first)?["text"] == "v5")
            #expect(try rig.serverRecord(doomed)?["deletedAt"]?.stringValue != nil)

            // Every record on A is settled: nothing left pending behind a later entry of the same record.
            let onA = try ca.call("sermon.get", ["id": .string(sermon)])
            let states = try noteStates(rig.a)
            #expect(states.count == 31 && states.allSatisfy { $0 == "synced" }, "\(states)")
            #expect(onA["syncState"] == "synced")

            try cb.call("sync.now", ["wait": true])
            let onB = try cb.call("sermon.get", ["id": .string(sermon)])
            #expect(onB.removing("syncState") == onA.removing("syncState"))
            #expect(onB["notes"]?.arrayValue?.first { $0["id"]?.stringValue == first }?["text"] == "v5")
        }
    }

    @Test("the pull cursor skips this device's own push ranges whichever order the log has them in")
    func ownRangesChain() {
        // Batches 1 and 2 landed in the other order: 2 holds e.5 → e.10, 1 holds e.10 → e.15, then 3.
        var ranges = ["e.10": "e.15"]  // batch 1 answered first: no chain starts at e.5 yet
        var step = SyncEngine.skipOwnRanges(from: "e.5", ranges)
        #expect(step.moved == nil && step.left == ranges)
        ranges = step.left
        ranges["e.5"] = "e.10"  // batch 2
        step = SyncEngine.skipOwnRanges(from: "e.5", ranges)
        #expect(step.moved == "e.15" && step.left.isEmpty, "both ranges are passed")
        ranges = step.left
        ranges["e.15"] = "e.20"  // batch 3
        #expect(SyncEngine.skipOwnRanges(from: "e.15", ranges).moved == "e.20")
        // Another device's change between two pushes: the chain stops there, and that range is pulled.
        step = SyncEngine.skipOwnRanges(from: "e.20", ["e.21": "e.30"])
        #expect(step.moved == nil && step.left == ["e.21": "e.30"])
    }

    @Test("the first of two batches out is overtaken on the way: both settle, and A pulls none of its own changes back")
    func overtakenBatch() throws {
        // Backoff long enough that no retry cycle runs between the failed pushes and ours.
        let rig = try SyncRig(devices: 1, proxied: [0], backoffBase: 60, backoffMax: 120, batchSize: 10)
        defer { rig.stop() }
        let proxy = try #require(rig.proxy)
        try rig.withLogs {
            let ca = try rig.rpc(0)
            // Queue 30 changes (three batches) while every push fails (the first cycle still pulls first).
            proxy.addFault(.respond(status: 503), method: "POST", pathPrefix: "/v1/sync/push")
            let sermon = try #require(try ca.call("sermon.create", ["title": "Overtaken"])["id"]?.stringValue)
            for i in 0..<29 {
                try ca.call("note.add", ["sermonId": .string(sermon), "text": .string("n\(i)"), "timestamp": .int(Int64(i))])
            }
            _ = try? ca.call("sync.now", ["wait": true])
            proxy.passThrough()
            // The first batch is held on the way, so the second one, sent beside it, is applied first.
            proxy.addFault(.delay(0.6), method: "POST", pathPrefix: "/v1/sync/push", times: 1)
            let report = try ca.call("sync.now", ["wait": true])
            #expect(report["pushed"]?.int64Value == 30, "\(report)")
            #expect(report["downloaded"]?.int64Value == 0, "own changes pulled back: \(report)")
            // Which request the proxy holds is the one whose head it reads first: usually the first batch's,
            // so the second batch (n9…n18) lands first, but not always (`ownRangesChain` covers the chaining
            // whatever the order).
            let texts = try rig.serverChanges().compactMap { $0["record"]?["text"]?.stringValue }
            #expect(texts.count == 29)
            print("overtaken: \((texts.firstIndex(of: "n9") ?? 99) < (texts.firstIndex(of: "n0") ?? -1))")
            #expect(try ca.call("sync.pending") == [])
            // Nothing more to pull: the cursor stands at the log's end.
            #expect(try ca.call("sync.now", ["wait": true])["downloaded"]?.int64Value == 0)
        }
    }

    @Test("the answer to the second batch is lost: the cycle fails, the retry completes, no change is doubled")
    func lostAnswerMidPipeline() throws {
        let rig = try SyncRig(devices: 1, proxied: [0], backoffBase: 0.2, backoffMax: 1, batchSize: 10)
        defer { rig.stop() }
        let proxy = try #require(rig.proxy)
        try rig.withLogs {
            let ca = try rig.rpc(0)
            // Set before any write: whichever sync pushes (the local-change one or ours), its second batch's
            // answer is lost after the server applied it.
            proxy.addFault(.passThrough, method: "POST", pathPrefix: "/v1/sync/push", times: 1)
            proxy.addFault(.dropResponse, method: "POST", pathPrefix: "/v1/sync/push", times: 1)
            let sermon = try #require(try ca.call("sermon.create", ["title": "Lost answer"])["id"]?.stringValue)
            for i in 0..<44 {
                try ca.call("note.add", ["sermonId": .string(sermon), "text": .string("n\(i)"), "timestamp": .int(Int64(i))])
            }
            _ = try? ca.call("sync.now", ["wait": true])
            // The server applied the batch whose answer was lost; A still holds it and sends it again.
            #expect(try rig.waitDrained(0, timeout: 20), "\(rig.logs())")
            #expect(proxy.faultsInjected == 1)
            let changes = try rig.serverChanges()
            let ids = changes.compactMap { $0["id"]?.stringValue }
            #expect(ids.count == 45, "\(ids.count) changes in the server's log")
            #expect(Set(ids).count == 45)
            // Every note once (two batches of different notes may be applied in either order).
            let texts = changes.compactMap { $0["record"]?["text"]?.stringValue }
            #expect(texts.sorted() == (0..<44).map { "n\($0)" }.sorted(), "lost or doubled")
            let states = try noteStates(rig.a)
            #expect(states.count == 44 && states.allSatisfy { $0 == "synced" }, "\(states)")
        }
    }
}
