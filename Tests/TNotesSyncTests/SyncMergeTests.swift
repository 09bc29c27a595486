import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.3 "no lost words", end to end on both server backends: concurrent offline edits are merged
/// against the version both were made on, field by field and word by word; an edit beats a concurrent
/// delete; the same words changed twice keep both and open one conflict, which either device resolves.
@Suite("sync: merging concurrent edits")
struct SyncMergeTests {
    static func rig(_ backend: Backend) throws -> SyncRig { try SyncRig(server: try backend.makeServer()) }

    /// A note both devices hold, synced.
    static func sharedNote(_ rig: SyncRig, text: String) throws -> (sermon: String, note: String) {
        let ca = try rig.rpc(0)
        let sid = try #require(try ca.call("sermon.create", ["title": "Merge"])["id"]?.stringValue)
        let nid = try #require(try ca.call("note.add", ["sermonId": .string(sid), "text": .string(text), "timestamp": 1])["id"]?.stringValue)
        try rig.syncAll(order: [0, 1])
        return (sid, nid)
    }

    static func noteText(_ c: RPCClient, sermon: String, note: String) throws -> String? {
        try c.call("sermon.get", ["id": .string(sermon)])["notes"]?.arrayValue?.first { $0["id"]?.stringValue == note }?["text"]?.stringValue
    }

    @Test("A changes the title and B the speaker, both offline with the server stopped: all three keep both (seed 002 scenario 3)",
          arguments: Backend.allCases)
    func differentFieldsBothKept(backend: Backend) throws {
        let rig = try Self.rig(backend)
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let sid = try #require(try ca.call("sermon.create", ["title": "Old title", "speaker": "Old speaker"])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            let port = rig.server.port
            rig.server.stop()
            try ca.call("sermon.update", ["id": .string(sid), "title": "New title"])
            try cb.call("sermon.update", ["id": .string(sid), "speaker": "New speaker"])
            try rig.server.start(port: port)
            try rig.syncAll(rounds: 2)
            for c in [ca, cb] {
                let s = try c.call("sermon.get", ["id": .string(sid)])
                #expect(s["title"] == "New title" && s["speaker"] == "New speaker", "\(s.text)")
            }
            let onServer = try #require(try rig.serverRecord(sid))
            #expect(onServer["title"] == "New title" && onServer["speaker"] == "New speaker", "\(onServer.text)")
            #expect(try ca.call("conflicts.list").arrayValue?.isEmpty == true)
        }
    }

    @Test("A edits the start of a note and B its end: both edits everywhere, no conflict", arguments: Backend.allCases)
    func differentWordsBothKept(backend: Backend) throws {
        let rig = try Self.rig(backend)
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let (sid, nid) = try Self.sharedNote(rig, text: "one two three four five six")
            try ca.call("note.update", ["id": .string(nid), "text": "ONE two three four five six"])
            try cb.call("note.update", ["id": .string(nid), "text": "one two three four five SIX"])
            try rig.syncAll(rounds: 2)
            let want = "ONE two three four five SIX"
            #expect(try Self.noteText(ca, sermon: sid, note: nid) == want)
            #expect(try Self.noteText(cb, sermon: sid, note: nid) == want)
            #expect(try rig.serverRecord(nid)?["text"]?.stringValue == want)
            #expect(try ca.call("conflicts.list", ["state": "open"]).arrayValue?.isEmpty == true)
            #expect(try cb.call("conflicts.list", ["state": "open"]).arrayValue?.isEmpty == true)
            // B pushed second, so the server merged B's edit: B's own version is in its history, replaced by
            // the merge; A's was replaced by the pulled merge.
            let h = try cb.call("history.list", ["collection": "notes", "id": .string(nid)])
            #expect(h["items"]?.arrayValue?.contains { $0["reason"] == "merge" } == true, "\(h.text)")
        }
    }

    @Test("A and B change the same word differently: the note keeps both, one open conflict on both; resolving it on B closes it on A",
          arguments: Backend.allCases)
    func sameWordConflictResolved(backend: Backend) throws {
        let rig = try Self.rig(backend)
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let (sid, nid) = try Self.sharedNote(rig, text: "one two three four five six")
            try ca.call("note.update", ["id": .string(nid), "text": "one two 3 four five six"])
            try cb.call("note.update", ["id": .string(nid), "text": "one two drei four five six"])
            try rig.syncAll(rounds: 2)
            for c in [ca, cb] {
                let text = try #require(try Self.noteText(c, sermon: sid, note: nid))
                #expect(text.contains("3") && text.contains("drei") && text.hasPrefix("one two") && text.hasSuffix("four five six"), "\(text)")
                let open = try c.call("conflicts.list", ["state": "open"]).arrayValue ?? []
                #expect(open.count == 1, "\(open)")
                #expect(open.first?["recordId"] == .string(nid) && open.first?["field"] == "text")
                #expect(open.first?["base"] == "one two three four five six")
            }
            let conflict = try #require(try cb.call("conflicts.list", ["state": "open"]).arrayValue?.first?["id"]?.stringValue)
            let resolved = try cb.call("conflicts.resolve", ["id": .string(conflict), "value": "one two three (3) four five six"])
            #expect(resolved["state"] == "resolved" && resolved["resolvedAt"]?.stringValue != nil)
            try rig.syncAll(order: [1, 0])
            #expect(try ca.call("conflicts.list", ["state": "open"]).arrayValue?.isEmpty == true)
            #expect(try ca.call("conflicts.list", ["state": "resolved"]).arrayValue?.count == 1)
            for c in [ca, cb] { #expect(try Self.noteText(c, sermon: sid, note: nid) == "one two three (3) four five six") }
            #expect(try rig.serverRecord(nid)?["text"] == "one two three (3) four five six")
            // Bad input is named and changes nothing.
            #expect(try cb.callError("conflicts.resolve", ["id": .string(conflict)]).field == "value")
            #expect(try cb.callError("conflicts.resolve", ["id": .string(Wire.id()), "value": "x"]).code == -32001)
        }
    }

    @Test("A deletes a note while B edits it: the note lives on with B's text everywhere", arguments: Backend.allCases)
    func editBeatsConcurrentDelete(backend: Backend) throws {
        let rig = try Self.rig(backend)
        defer { rig.stop() }
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let (sid, nid) = try Self.sharedNote(rig, text: "keep me")
            try ca.call("note.delete", ["id": .string(nid)])
            try cb.call("note.update", ["id": .string(nid), "text": "keep me, edited"])
            try rig.syncAll(rounds: 2)
            for c in [ca, cb] { #expect(try Self.noteText(c, sermon: sid, note: nid) == "keep me, edited") }
            let onServer = try #require(try rig.serverRecord(nid))
            #expect(onServer["text"] == "keep me, edited" && onServer["deletedAt"] == .null, "\(onServer.text)")
        }
    }
}
