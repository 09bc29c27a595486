import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §3 CLI for people (issue #21): commands that take text open `$EDITOR` when given none, as git does.
@Suite("tnotes and $EDITOR")
struct EditorTests {
    static func editor(_ dir: TempDirectory, _ name: String, _ body: String) throws -> String {
        let path = try dir.write(name, "#!/bin/sh\n" + body + "\n")
        chmod(path, 0o755)
        return path
    }

    @Test("note edit preloads the text; note add, summary set and sermon update --title take the editor's text; 0600 temp file")
    func editorWrites() throws {
        let rig = try CLIRig()
        let dir = TempDirectory()
        let sid = try rig.makeSermon("Old title")
        let note = try #require(try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "the old way", "timestamp": 5])["id"]?.stringValue)

        let edit = try rig.run(["note", "edit", note], env: ["EDITOR": "sed -i s/old/new/"])
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(try rig.rpc.call("note.get", ["id": .string(note)])["text"] == "the new way")

        let mode = dir.file("mode")
        let adder = try Self.editor(dir, "add.sh", "stat -c %a \"$1\" > \"\(mode)\"; printf 'Fresh words\\n# a comment\\n' > \"$1\"")
        let add = try rig.run(["note", "add", sid, "--at", "1:00"], env: ["EDITOR": adder])
        #expect(add.status == 0, "\(add.stderr)")
        let notes = try rig.rpc.call("sermon.get", ["id": .string(sid)])["notes"]?.arrayValue ?? []
        #expect(notes.contains { $0["text"] == "Fresh words" && $0["timestamp"]?.doubleValue == 60 })
        #expect((try? String(contentsOfFile: mode, encoding: .utf8))?.hasPrefix("600") == true, "the temp file is private")

        let summary = try Self.editor(dir, "summary.sh", "printf 'Bread from heaven.\\n' > \"$1\"")
        let set = try rig.run(["summary", "set", sid, "--type", "devotional", "--title", "Daily"], env: ["VISUAL": summary])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try rig.rpc.call("sermon.get", ["id": .string(sid)])["summary"]?["text"] == "Bread from heaven.")

        let title = try rig.run(["sermon", "update", sid, "--title"], env: ["EDITOR": "sed -i s/Old/New/"])
        #expect(title.status == 0, "\(title.stderr)")
        #expect(try rig.rpc.call("sermon.get", ["id": .string(sid)])["title"] == "New title")
    }

    @Test("a comment-only result or a failing editor aborts with exit 1 and changes nothing; no editor and no terminal is a usage error")
    func editorAborts() throws {
        let rig = try CLIRig()
        let dir = TempDirectory()
        let sid = try rig.makeSermon()
        let note = try #require(try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "keep me", "timestamp": 5])["id"]?.stringValue)
        let before = try rig.rpc.call("note.get", ["id": .string(note)])

        let commentOnly = try Self.editor(dir, "comment.sh", "printf '# only a comment\\n\\n' > \"$1\"")
        let r1 = try rig.run(["note", "edit", note], env: ["EDITOR": commentOnly])
        #expect(r1.status == 1 && r1.stderr.contains("empty text; nothing changed"), "\(r1.stderr)")
        let r2 = try rig.run(["note", "edit", note], env: ["EDITOR": "false"])
        #expect(r2.status == 1 && r2.stderr.contains("exited with status 1"), "\(r2.stderr)")
        let r3 = try rig.run(["note", "add", sid, "--at", "9"], env: ["EDITOR": commentOnly])
        #expect(r3.status == 1)
        #expect(try rig.rpc.call("note.get", ["id": .string(note)]) == before)
        #expect(try rig.rpc.call("sermon.get", ["id": .string(sid)])["notes"]?.arrayValue?.count == 1)
        // Without an editor and without a terminal, scripts get the usage error as before.
        let r4 = try rig.run(["note", "add", sid, "--at", "9"], env: ["EDITOR": "", "VISUAL": ""])
        #expect(r4.status == 2 && r4.stderr.contains("text"), "\(r4.stderr)")
    }
}
