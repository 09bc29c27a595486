import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// `tnotes export` and `tnotes import` (issue #21): files you can read, and a backup that restores anywhere.
@Suite("tnotes export and import")
struct ExportImportTests {
    @Test("a JSON backup of A restored into a fresh daemon C gives the same sermons; a second import changes nothing")
    func backupRoundTrip() throws {
        let a = try CLIRig()
        let dir = TempDirectory()
        var ids: [String] = []
        for i in 0..<3 {
            let sid = try a.makeSermon("Sermon \(i)")
            ids.append(sid)
            for j in 0..<4 { try a.rpc.call("note.add", ["sermonId": .string(sid), "text": .string("note \(j) of \(i), Rom 8:\(j + 1)"), "timestamp": .int(Int64(j * 60))]) }
            try a.rpc.call("transcript.set", ["sermonId": .string(sid), "text": "x", "segments": [["start": 0, "end": 2, "text": .string("hello \(i)")]]])
            try a.rpc.call("chat.append", ["sermonId": .string(sid), "role": "user", "content": .string("question \(i)")])
        }
        try a.rpc.call("summary.set", ["sermonId": .string(ids[0]), "title": "S", "text": "summary", "type": "bullet"])
        let gone = try #require(try a.rpc.call("note.add", ["sermonId": .string(ids[1]), "text": "deleted", "timestamp": 9])["id"]?.stringValue)
        try a.rpc.call("note.delete", ["id": .string(gone)])
        try a.rpc.call("sermon.delete", ["id": .string(ids[2])])

        let file = dir.file("backup.json")
        let out = try a.run(["export", "--all", "--format", "json", file])
        #expect(out.status == 0 && out.stdout.hasPrefix("exported "), "\(out.stdout)\(out.stderr)")
        #expect(!out.stderr.contains("\u{1B}"), "no progress line without a terminal")
        let doc = try JSON.parse(try Data(contentsOf: URL(fileURLWithPath: file)).map { $0 })
        #expect(doc["format"] == "tnotes-backup")
        let records = doc["records"]?.arrayValue ?? []
        #expect(records.contains { $0["record"]?["id"]?.stringValue == gone && $0["record"]?["deletedAt"]?.stringValue != nil }, "tombstones are kept")
        #expect(records.contains { $0["collection"] == "chatMessages" })

        let c = try CLIRig()
        let first = try c.run(["import", file])
        #expect(first.status == 0 && first.stdout.contains("\(records.count) applied, 0 unchanged"), "\(first.stdout)\(first.stderr)")
        for id in ids {
            let onA = try a.rpc.call("sermon.get", ["id": .string(id)]).removing("syncState", "publication")
            let onC = try c.rpc.call("sermon.get", ["id": .string(id)]).removing("syncState", "publication")
            #expect(onA == onC, "sermon \(id) differs")
            #expect(try a.rpc.call("chat.list", ["sermonId": .string(id)]) == (try c.rpc.call("chat.list", ["sermonId": .string(id)])))
        }
        // Imported records sync like local edits: they are queued.
        #expect((try c.rpc.call("sync.status"))["pendingOps"]?.int64Value == Int64(records.count))
        let again = try c.run(["import", file])
        #expect(again.stdout.contains("0 applied, \(records.count) unchanged"), "\(again.stdout)")
        #expect((try c.rpc.call("sync.status"))["pendingOps"]?.int64Value == Int64(records.count), "a second import queues nothing")

        // Audio: the backup holds its metadata; import --audio DIR attaches the file of that name.
        let audioDir = TempDirectory()
        let audioFile = try audioDir.write("sermon-0.m4a", "pretend audio")
        try a.rpc.call("audio.import", ["sermonId": .string(ids[0]), "path": .string(audioFile)])
        let withAudio = dir.file("backup2.json")
        #expect(try a.run(["export", "--all", "--format", "json", withAudio]).status == 0)
        #expect(try c.run(["import", withAudio]).status == 0)
        #expect(try c.rpc.call("sermon.get", ["id": .string(ids[0])])["audio"]?["localAvailable"] == false)
        let attach = try c.run(["import", "--audio", audioDir.path])
        #expect(attach.status == 0 && attach.stdout.contains("attached 1 audio files"), "\(attach.stdout)\(attach.stderr)")
        let audio = try c.rpc.call("sermon.get", ["id": .string(ids[0])])["audio"]
        let original = try a.rpc.call("sermon.get", ["id": .string(ids[0])])["audio"]
        #expect(audio?["localAvailable"] == true && audio?["sha256"] == original?["sha256"])

        // Not a backup: a usage error naming the file, nothing imported.
        let junk = try dir.write("junk.json", "{\"hello\": 1}")
        let bad = try c.run(["import", junk])
        #expect(bad.status == 2 && bad.stderr.contains("not a tnotes backup"), "\(bad.stderr)")
    }

    @Test("Markdown export: one file per sermon named by date and title, stable across runs, matching the golden file; --audio copies audio")
    func markdown() throws {
        let rig = try CLIRig()
        let dir = TempDirectory()
        let sid = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        try rig.rpc.call("sermon.create", ["id": .string(sid), "title": "Bread from Heaven", "speaker": "Ann Lee", "date": "2025-11-09"])
        try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "Manna every morning (Ex 16:4)", "timestamp": 754])
        try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "Welcome", "timestamp": 0])
        try rig.rpc.call("summary.set", ["sermonId": .string(sid), "title": "Daily bread", "type": "devotional",
                                         "text": "God gives enough for today.\nTrust him for tomorrow."])
        try rig.rpc.call("transcript.set", ["sermonId": .string(sid), "text": "x", "segments": [
            ["start": 0, "end": 4.2, "text": "Good morning, church."],
            ["start": 3725, "end": 3730, "text": "Turn with me to John chapter six verse thirty five."],
        ]])
        try rig.rpc.call("audio.import", ["sermonId": .string(sid), "path": .string(try dir.write("sermon.m4a", "not really audio"))])

        let out = dir.file("export")
        let r1 = try rig.run(["export", out, "--audio"])
        #expect(r1.status == 0 && r1.stdout.contains("exported 1 sermons") && r1.stdout.contains("1 audio files"), "\(r1.stdout)\(r1.stderr)")
        let name = "2025-11-09-bread-from-heaven.md"
        let text = try String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)
        try GoldenTests().compare(text, golden: "export-sermon.md")
        #expect(FileManager.default.contents(atPath: "\(out)/audio/sermon.m4a") == Data("not really audio".utf8))
        // A second export updates the same file.
        try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "Later thought", "timestamp": 800])
        #expect(try rig.run(["export", out]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".md") }
        #expect(files == [name])
        #expect(try String(contentsOfFile: "\(out)/\(name)", encoding: .utf8).contains("- [13:20] Later thought"))
        // JSON per sermon holds the whole record with its chat.
        let j = dir.file("json")
        #expect(try rig.run(["export", j, "--format", "json"]).status == 0)
        let whole = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: "\(j)/2025-11-09-bread-from-heaven.json"))))
        #expect(whole["notes"]?.arrayValue?.count == 3 && whole["chat"] == .array([]))
        #expect(try rig.run(["export", "--all", dir.file("x.json")]).status == 2, "--all needs --format json")
    }
}
