import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// `tnotes history`, `tnotes restore`, `tnotes conflicts` (contract §6.3 CLI) against a real daemon.
@Suite("tnotes history, restore and conflicts")
struct HistoryConflictCommandTests {
    @Test("history shows every earlier version as a timeline (and --json); restore brings one back; bad input exits 1 or 2")
    func historyAndRestore() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon()
        let note = try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "first words", "timestamp": 1])
        let id = try #require(note["id"]?.stringValue)
        try rig.rpc.call("note.update", ["id": .string(id), "text": "second words"])
        try rig.rpc.call("note.update", ["id": .string(id), "text": "third words"])

        let human = try rig.run(["history", id])
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.contains("note \(id): 2 earlier versions"), "\(human.stdout)")
        #expect(human.stdout.contains("second words") && human.stdout.contains("first words") && human.stdout.contains("edited here"))
        #expect(human.stdout.range(of: "second words")!.lowerBound < human.stdout.range(of: "first words")!.lowerBound,
                "newest first: \(human.stdout)")
        let json = try rig.json(["history", id])
        #expect(json["collection"] == "notes" && json["items"]?.arrayValue?.count == 2)

        let at = try #require(note["updatedAt"]?.stringValue)
        let restored = try rig.run(["restore", id, "--at", at])
        #expect(restored.status == 0 && restored.stdout.hasPrefix("restored note \(id)"), "\(restored.stdout)\(restored.stderr)")
        #expect(try rig.rpc.call("sermon.get", ["id": .string(sid)])["notes"]?.arrayValue?.first?["text"] == "first words")

        let missing = try rig.run(["restore", id, "--at", "2020-01-01T00:00:00.000Z"])
        #expect(missing.status == 1 && missing.stderr.contains("no version of \(id)"), "\(missing.stderr)")
        #expect(try rig.run(["history", "not-a-uuid"]).status == 2)
        let none = try rig.run(["history", Identifier.make()])
        #expect(none.status == 0 && none.stdout.contains("no earlier versions"))
    }

    @Test("conflicts lists none on a fresh store; resolve needs exactly one of --value and --file; an unknown id exits 1")
    func conflicts() throws {
        let rig = try CLIRig()
        let list = try rig.run(["conflicts"])
        #expect(list.status == 0 && list.stdout.contains("no open conflicts"), "\(list.stdout)\(list.stderr)")
        #expect(try rig.json(["conflicts", "list", "--all"]) == [])
        let id = Identifier.make()
        #expect(try rig.run(["conflicts", "resolve", id]).status == 2)
        #expect(try rig.run(["conflicts", "resolve", id, "--value", "a", "--file", "-"]).status == 2)
        let unknown = try rig.run(["conflicts", "resolve", id, "--value", "text"])
        #expect(unknown.status == 1, "\(unknown.stderr)")
    }
}
