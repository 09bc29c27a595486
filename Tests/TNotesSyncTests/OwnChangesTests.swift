import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// A device does not download its own pushes back: the push answer's `previousCursor`/`cursor` span only
/// that push's changes, so a device whose cursor stood right before them moves it past them. Changes from
/// another device that land in between are still pulled.
@Suite("sync: own changes are not pulled back")
struct OwnChangesTests {
    /// `tnotes_pull_changes_total` from the server's /metrics: how many changes it has sent to pullers.
    func pulledTotal(_ rig: SyncRig) throws -> Int {
        let text = try rig.http.get("/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix("tnotes_pull_changes_total") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test("A's pushes are not sent back to A; B gets all of them; B's change between A's pushes reaches A")
    func ownPushesSkipped() throws {
        let rig = try SyncRig(batchSize: 10)
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let sermon = try ca.call("sermon.create", ["title": "Own changes"])
            let id = try #require(sermon["id"]?.stringValue)
            for i in 0..<25 { try ca.call("note.add", ["sermonId": .string(id), "text": .string("n\(i)"), "timestamp": .int(Int64(i))]) }
            let before = try pulledTotal(rig)
            let first = try ca.call("sync.now", ["wait": true])
            #expect(first["pushed"]?.int64Value == 26)
            #expect(try pulledTotal(rig) == before, "A downloaded its own 26 changes back (3 push batches of 10)")

            // B pulls all of them.
            try cb.call("sync.now", ["wait": true])
            #expect(try cb.call("sermon.get", ["id": .string(id)])["notes"]?.arrayValue?.count == 25)
            let afterB = try pulledTotal(rig)
            #expect(afterB - before >= 26)

            // B writes; A writes and pushes: A's cursor is behind B's change, so A pulls it (and, this
            // time, its own push too, since B's change sits between A's cursor and A's push).
            try cb.call("note.add", ["sermonId": .string(id), "text": "from B", "timestamp": 99])
            try cb.call("sync.now", ["wait": true])
            try ca.call("note.add", ["sermonId": .string(id), "text": "from A", "timestamp": 100])
            try ca.call("sync.now", ["wait": true])
            let onA = try ca.call("sermon.get", ["id": .string(id)])["notes"]?.arrayValue ?? []
            #expect(onA.contains { $0["text"] == "from B" }, "B's change was skipped by A's cursor move")
            #expect(onA.count == 27)
            try cb.call("sync.now", ["wait": true])
            #expect(try cb.call("sermon.get", ["id": .string(id)]) .removing("syncState")
                        == (try ca.call("sermon.get", ["id": .string(id)])).removing("syncState"))
        }
    }
}
