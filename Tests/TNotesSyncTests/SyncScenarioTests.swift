import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Two devices and a server: what one device writes reaches the other, concurrent edits converge on one
/// winner everywhere, deletes tombstone, and chat from both devices reads the same on both.
@Suite("sync scenarios")
struct SyncScenarioTests {
    /// Seed 000's bug: children added (or edited) after the sermon already exists on the other device were lost.
    @Test("seed 000: notes, transcript with segments and summary added on A after B has the sermon reach B; edits too")
    func seed000ChildrenAndEdits() throws {
        let rig = try SyncRig()
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let sermon = try ca.call("sermon.create", ["title": "Sunday Service", "speaker": "Pastor John"])
            let id = try #require(sermon["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            #expect(try cb.call("sermon.get", ["id": .string(id)])["title"] == "Sunday Service")

            // The sermon exists on B; now A adds children.
            let n1 = try ca.call("note.add", ["sermonId": .string(id), "text": "Grace is a gift", "timestamp": 5])
            let n2 = try ca.call("note.add", ["sermonId": .string(id), "text": "Romans 8:1 ✝ — „no condemnation“", "timestamp": 65.5])
            try ca.call("transcript.set", ["sermonId": .string(id), "text": "Grace and peace…", "status": "complete",
                                           "segments": Wire.sampleSegments])
            try ca.call("summary.set", ["sermonId": .string(id), "title": "On grace", "text": "A summary.", "type": "devotional",
                                        "status": "complete"])
            let pushed = try ca.call("sync.now", ["wait": true])
            // Two notes, the transcript, the summary, and the sermon twice (its statuses follow them).
            #expect(pushed["pushed"]?.int64Value == 6)
            let pulled = try cb.call("sync.now", ["wait": true])
            #expect((pulled["pulled"]?.int64Value ?? 0) >= 4)

            let onA = try ca.call("sermon.get", ["id": .string(id)])
            let onB = try cb.call("sermon.get", ["id": .string(id)])
            #expect(onB["notes"]?.arrayValue?.count == 2)
            #expect(onB["notes"] == onA["notes"])
            #expect(onB["notes"]?.arrayValue?.first?["id"] == n1["id"])
            #expect(onB["notes"]?.arrayValue?.last?["text"] == n2["text"])
            #expect(onB["transcript"] == onA["transcript"])
            #expect(onB["transcript"]?["segments"] == Wire.canonical(Wire.sampleSegments))
            #expect(onB["summary"] == onA["summary"])
            #expect(onB["summary"]?["title"] == "On grace")
            #expect(onB.removing("syncState") == onA.removing("syncState"))
            #expect(onB["syncState"] == "synced")

            // Edits on A (a note, the sermon, the transcript) reach B.
            let n1id = try #require(n1["id"]?.stringValue)
            try ca.call("note.update", ["id": .string(n1id), "text": "Grace is a gift (edited)", "timestamp": 7])
            try ca.call("sermon.update", ["id": .string(id), "title": "Sunday Service (edited)"])
            let segments2: JSON = [["start": 0, "end": 3, "text": "Edited segment", "speaker": "P"]]
            try ca.call("transcript.set", ["sermonId": .string(id), "text": "edited", "segments": segments2])
            try rig.syncAll(order: [0, 1])
            let onB2 = try cb.call("sermon.get", ["id": .string(id)])
            #expect(onB2["title"] == "Sunday Service (edited)")
            let edited = onB2["notes"]?.arrayValue?.first { $0["id"]?.stringValue == n1id }
            #expect(edited?["text"] == "Grace is a gift (edited)")
            #expect(edited?["timestamp"]?.doubleValue == 7)
            #expect(onB2["transcript"]?["segments"] == Wire.canonical(segments2))
            #expect(onB2.removing("syncState") == (try ca.call("sermon.get", ["id": .string(id)])).removing("syncState"))

            // And the other way: an edit on B reaches A.
            try cb.call("summary.set", ["sermonId": .string(id), "title": "Edited on B", "text": "B", "type": "bullet"])
            try rig.syncAll(order: [1, 0])
            #expect(try ca.call("sermon.get", ["id": .string(id)])["summary"]?["title"] == "Edited on B")
            #expect(try ca.call("sync.pending") == [])
            #expect(try cb.call("sync.pending") == [])
        }
    }

    @Test("concurrent offline edits of one sermon and one note converge on A, B and the server, keeping both edits")
    func concurrentEditsConverge() throws {
        let rig = try SyncRig(proxied: [0, 1])
        defer { rig.stop() }
        try rig.withLogs {
            let proxy = try #require(rig.proxy)
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let sermon = try ca.call("sermon.create", ["title": "Original"])
            let id = try #require(sermon["id"]?.stringValue)
            let note = try ca.call("note.add", ["sermonId": .string(id), "text": "original note", "timestamp": 1])
            let noteId = try #require(note["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            #expect(try cb.call("sermon.get", ["id": .string(id)])["notes"]?.arrayValue?.count == 1)

            // Both devices offline (every connection to the server is reset), both edit the same records.
            proxy.setFault(.reset)
            try ca.call("sermon.update", ["id": .string(id), "title": "Title from A"])
            try ca.call("note.update", ["id": .string(noteId), "text": "note from A"])
            usleep(50_000)
            try cb.call("sermon.update", ["id": .string(id), "title": "Title from B"])
            try cb.call("note.update", ["id": .string(noteId), "text": "note from B"])
            #expect(try ca.callError("sync.now", ["wait": true]).code == -32005)
            #expect(try cb.callError("sync.now", ["wait": true]).code == -32005)

            // Back online: sync both, twice.
            proxy.passThrough()
            try rig.syncAll(rounds: 2, order: [0, 1])
            let onA = try ca.call("sermon.get", ["id": .string(id)])
            let onB = try cb.call("sermon.get", ["id": .string(id)])
            #expect(onA.removing("syncState") == onB.removing("syncState"), "\(onA.text)\n\(onB.text)")
            // Both changed the same word from one base: no words are lost (contract §6.3). The merged text
            // keeps both versions of the passage, the lesser version (A's, made first) first, and a conflict
            // is open for each field. (Before base-aware merging, B's later edit silently replaced A's.)
            #expect(onA["title"] == "Title from [[A || B]]")
            #expect(onA["notes"]?.arrayValue?.first?["text"] == "note from [[A || B]]")
            #expect(try ca.call("conflicts.list", ["state": "open"]).arrayValue?.count == 2)
            #expect(try cb.call("conflicts.list", ["state": "open"]).arrayValue?.count == 2)
            #expect(onA["syncState"] == "synced")
            #expect(onB["syncState"] == "synced")

            let serverSermon = try #require(try rig.serverRecord(id))
            #expect(serverSermon["title"] == onA["title"])
            #expect(serverSermon["updatedAt"] == onA["updatedAt"])
            let serverNote = try #require(try rig.serverRecord(noteId))
            #expect(serverNote["text"] == "note from [[A || B]]")
            #expect(serverNote["updatedAt"] == onA["notes"]?.arrayValue?.first?["updatedAt"])
            #expect(try ca.call("sync.pending") == [])
            #expect(try cb.call("sync.pending") == [])
        }
    }

    @Test("a sermon deleted on A is a tombstone on B: deletedAt shown, notes gone, note.update answers -32001")
    func deleteTombstonesOnB() throws {
        let rig = try SyncRig()
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let id = try #require(try ca.call("sermon.create", ["title": "To be deleted"])["id"]?.stringValue)
            var noteIds = [String]()
            for i in 0..<2 {
                let n = try ca.call("note.add", ["sermonId": .string(id), "text": .string("note \(i)"), "timestamp": .int(Int64(i))])
                noteIds.append(try #require(n["id"]?.stringValue))
            }
            try ca.call("transcript.set", ["sermonId": .string(id), "text": "tx"])
            try rig.syncAll(order: [0, 1])
            #expect(try cb.call("sermon.get", ["id": .string(id)])["notes"]?.arrayValue?.count == 2)

            let deleted = try ca.call("sermon.delete", ["id": .string(id)])
            let deletedAt = try #require(deleted["deletedAt"]?.stringValue)
            try rig.syncAll(order: [0, 1])

            let onB = try cb.call("sermon.get", ["id": .string(id)])
            #expect(onB["deletedAt"]?.stringValue == deletedAt)
            #expect(onB["notes"] == [])
            #expect(try cb.callError("note.update", ["id": .string(noteIds[0]), "text": "too late"]).code == -32001)
            #expect(try cb.callError("note.delete", ["id": .string(noteIds[1])]).code == -32001)
            let listed = try cb.call("sermon.list")["items"]?.arrayValue ?? []
            #expect(!listed.contains { $0["id"]?.stringValue == id })

            // The server holds tombstones of the sermon and its notes (never a hard delete).
            #expect(try rig.serverRecord(id)?["deletedAt"]?.stringValue == deletedAt)
            for n in noteIds { #expect(try rig.serverRecord(n)?["deletedAt"]?.isNull == false) }
            #expect(try cb.call("sync.pending") == [])
        }
    }

    @Test("chat appended on both devices reads in the same order on both, each message once")
    func chatFromBothDevices() throws {
        let rig = try SyncRig()
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let id = try #require(try ca.call("sermon.create", ["title": "Chat"])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])

            try ca.call("chat.append", ["sermonId": .string(id), "role": "user", "content": "A asks"])
            try cb.call("chat.append", ["sermonId": .string(id), "role": "user", "content": "B asks"])
            try ca.call("chat.append", ["sermonId": .string(id), "role": "assistant", "content": "answer on A"])
            try cb.call("chat.append", ["sermonId": .string(id), "role": "assistant", "content": "answer on B"])
            try rig.syncAll(rounds: 2, order: [0, 1])

            let onA = try ca.call("chat.list", ["sermonId": .string(id)])
            let onB = try cb.call("chat.list", ["sermonId": .string(id)])
            #expect(onA == onB)
            let messages = onA.arrayValue ?? []
            #expect(messages.count == 4)
            #expect(Set(messages.compactMap { $0["content"]?.stringValue }) == ["A asks", "B asks", "answer on A", "answer on B"])
            #expect(Set(messages.compactMap { $0["deviceId"]?.stringValue }).count == 2)
            let keys = messages.map { [$0["createdAt"]?.stringValue ?? "", $0["id"]?.stringValue ?? "", $0["deviceId"]?.stringValue ?? ""] }
            #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })

            let onServer = try rig.serverChanges().filter { $0["collection"] == "chatMessages" }
            #expect(onServer.count == 4)
            #expect(Set(onServer.compactMap { $0["id"]?.stringValue }).count == 4)
        }
    }
}
