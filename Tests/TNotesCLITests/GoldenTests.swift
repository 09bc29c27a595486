import Foundation
import TNotesCore
import TNotesTestSupport
import Testing

// Human output, colours off (NO_COLOR=1), compared with files in Golden/ after the volatile parts (ids,
// createdAt/updatedAt) are replaced by placeholders. TNOTES_UPDATE_GOLDEN=1 rewrites the files.

@Suite("tnotes golden output")
struct GoldenTests {
    @Test("sermon show and sermon list match Golden/")
    func golden() throws {
        let rig = try CLIRig()
        let dir = TempDirectory()
        let first = try rig.json(["sermon", "create", "--title", "Bread from Heaven", "--speaker", "Ann Lee",
                                  "--service-type", "Sunday Service", "--date", "2025-11-09"])
        let id = try #require(first["id"]?.stringValue)
        #expect(try rig.run(["note", "add", id, "--at", "0", "Welcome and opening prayer"]).status == 0)
        #expect(try rig.run(["note", "add", id, "--at", "12:34", "Manna every morning: enough for today"]).status == 0)
        #expect(try rig.run(["note", "add", id, "--at", "1:02:03", "Closing blessing"]).status == 0)
        let transcript: JSON = [
            "text": "Good morning, church. Turn with me to Exodus 16. The people grumbled, and God sent bread.",
            "segments": [
                ["start": 0, "end": 4.2, "text": "Good morning, church."],
                ["start": 4.2, "end": 9.8, "text": "Turn with me to Exodus 16.", "speaker": "Ann Lee"],
                ["start": 754, "end": 3723, "text": "The people grumbled, and God sent bread."],
            ],
        ]
        #expect(try rig.run(["transcript", "set", id, "--file", try dir.write("t.json", transcript.text)]).status == 0)
        let summary = "God gives enough for today.\nTrust him for tomorrow.\n"
        #expect(try rig.run(["summary", "set", id, "--type", "devotional", "--title", "Daily bread",
                             "--file", try dir.write("s.txt", summary)]).status == 0)
        let second = try rig.json(["sermon", "create", "--title", "Grace Upon Grace", "--speaker", "Ben Ortiz",
                                   "--service-type", "Evening Service", "--date", "2025-11-16T18:30:00Z"])
        let id2 = try #require(second["id"]?.stringValue)
        #expect(try rig.run(["note", "add", id2, "--at", "75", "John 1:16"]).status == 0)
        let third = try rig.json(["sermon", "create", "--title", "Unspoken", "--date", "2025-10-26"])
        let id3 = try #require(third["id"]?.stringValue)

        let ids = [(id, "<SERMON-1>"), (id2, "<SERMON-2>"), (id3, "<SERMON-3>")]
        let show = try rig.run(["sermon", "show", id])
        #expect(show.status == 0)
        try compare(try normalized(show.stdout, ids: ids), golden: "sermon-show.txt")
        let list = try rig.run(["sermon", "list"])
        #expect(list.status == 0)
        try compare(try normalized(list.stdout, ids: ids), golden: "sermon-list.txt")
    }

    func compare(_ actual: String, golden name: String) throws {
        if ProcessInfo.processInfo.environment["TNOTES_UPDATE_GOLDEN"] == "1" {
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
            try actual.write(to: source, atomically: true, encoding: .utf8)
            return
        }
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Golden"),
                               "Golden/\(name) is missing (run with TNOTES_UPDATE_GOLDEN=1 to create it)")
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "\(name) differs:\n--- expected\n\(expected)\n--- actual\n\(actual)")
    }
}
