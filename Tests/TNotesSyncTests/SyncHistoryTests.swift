import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.3 history: every version a device held, whatever replaced it, newest first; a restore is a
/// new edit that syncs.
@Suite("history: every version a device held")
struct SyncHistoryTests {
    static func texts(_ history: JSON) -> [String] {
        history["items"]?.arrayValue?.compactMap { $0["record"]?["text"]?.stringValue } ?? []
    }

    @Test("local edits, a delete and a restore are each kept, newest first, with their reasons; bad params are named")
    func localHistory() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "History"])["id"]?.stringValue)
        let note = try c.call("note.add", ["sermonId": .string(sid), "text": "v1", "timestamp": 1])
        let id = try #require(note["id"]?.stringValue)
        try c.call("note.update", ["id": .string(id), "text": "v2"])
        try c.call("note.update", ["id": .string(id), "text": "v3"])
        try c.call("note.delete", ["id": .string(id)])

        let h = try c.call("history.list", ["collection": "notes", "id": .string(id)])
        #expect(Self.texts(h) == ["v3", "v2", "v1"], "\(h.text)")
        #expect(h["items"]?.arrayValue?.map { $0["reason"]?.stringValue ?? "" } == ["delete", "edit", "edit"])
        let v1 = try #require(h["items"]?.arrayValue?.last)
        #expect(v1["updatedAt"] == note["updatedAt"] && v1["deviceId"]?.stringValue?.isEmpty == false)

        // Restore v1: alive again, as a new edit; the tombstone it replaced is history too.
        let restored = try c.call("history.restore", ["collection": "notes", "id": .string(id),
                                                      "updatedAt": v1["updatedAt"]!, "deviceId": v1["deviceId"]!])
        #expect(restored["text"] == "v1" && restored["deletedAt"] == .null)
        #expect((restored["updatedAt"]?.stringValue ?? "") > (note["updatedAt"]?.stringValue ?? ""))
        let sermon = try c.call("sermon.get", ["id": .string(sid)])
        #expect(sermon["notes"]?.arrayValue?.map { $0["text"] } == ["v1"])
        let after = try c.call("history.list", ["collection": "notes", "id": .string(id), "limit": 1])
        #expect(after["items"]?.arrayValue?.first?["reason"] == "restore")
        #expect(after["items"]?.arrayValue?.first?["record"]?["deletedAt"]?.stringValue != nil)

        // Bad input names the field and changes nothing.
        #expect(try c.callError("history.list", ["collection": "chatMessages", "id": .string(id)]).field == "collection")
        #expect(try c.callError("history.list", ["collection": "notes", "id": "nope"]).field == "id")
        let missing = try c.callError("history.restore", ["collection": "notes", "id": .string(id),
                                                          "updatedAt": "2020-01-01T00:00:00.000Z", "deviceId": "x"])
        #expect(missing.code == -32001)
        #expect(try c.call("sermon.get", ["id": .string(sid)])["notes"]?.arrayValue?.map { $0["text"] } == ["v1"])
    }

    @Test("a version replaced by a pulled one is kept as remote; restoring it on B syncs to A", arguments: Backend.allCases)
    func remoteHistoryAndRestoreSyncs(backend: Backend) throws {
        let rig = try SyncRig(server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let sid = try #require(try ca.call("sermon.create", ["title": "Shared"])["id"]?.stringValue)
            let id = try #require(try ca.call("note.add", ["sermonId": .string(sid), "text": "original", "timestamp": 1])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            try ca.call("note.update", ["id": .string(id), "text": "edited on A"])
            try rig.syncAll(order: [0, 1])

            let onB = try cb.call("history.list", ["collection": "notes", "id": .string(id)])
            #expect(Self.texts(onB) == ["original"], "\(onB.text)")
            #expect(onB["items"]?.arrayValue?.first?["reason"] == "remote")
            let old = try #require(onB["items"]?.arrayValue?.first)
            try cb.call("history.restore", ["collection": "notes", "id": .string(id), "updatedAt": old["updatedAt"]!,
                                            "deviceId": old["deviceId"]!])
            try rig.syncAll(order: [1, 0])
            let onA = try ca.call("sermon.get", ["id": .string(sid)])
            #expect(onA["notes"]?.arrayValue?.first?["text"] == "original")
            // A held "edited on A" before the restore arrived: it is in A's history, replaced remotely.
            let historyA = try ca.call("history.list", ["collection": "notes", "id": .string(id)])
            #expect(Self.texts(historyA).first == "edited on A" && historyA["items"]?.arrayValue?.first?["reason"] == "remote")
        }
    }
}
