import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// `tnotes search`, `tnotes search --ref` and `tnotes refs` (contract §6.2 CLI) against a real daemon.
@Suite("tnotes search and refs")
struct SearchCommandTests {
    @Test("search prints hits with mm:ss and plain snippets (no colour off a terminal); --ref finds citing sermons; refs lists passages")
    func searchAndRefs() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon("No Condemnation")
        try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "Forgiveness is received (Rom 8:1)", "timestamp": 75])
        try rig.rpc.call("transcript.set", ["sermonId": .string(sid), "text": "x", "segments": [
            ["start": 3725, "end": 3730, "text": "We forgive because we were forgiven."],
        ]])

        let r = try rig.run(["search", "forgive"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(sid)  note [01:15]  Forgiveness is received"), "\(r.stdout)")
        #expect(r.stdout.contains("transcript [1:02:05]"), "\(r.stdout)")
        #expect(!r.stdout.contains("**") && !r.stdout.contains("\u{1B}"), "markers become bold only on a terminal: \(r.stdout)")
        let json = try rig.json(["search", "forgive", "--kinds", "transcript"])
        #expect(json["items"]?.arrayValue?.count == 1 && json["items"]?.arrayValue?.first?["start"]?.doubleValue == 3725)
        #expect(try rig.run(["search", "nothinglikethis"]).stdout == "no matches\n")
        let bad = try rig.run(["search", "forgive", "AND"])
        #expect(bad.status == 1 && bad.stderr.contains("q"), "\(bad.stderr)")
        #expect(try rig.run(["search"]).status == 2)

        let ref = try rig.run(["search", "--ref", "Romans 8"])
        #expect(ref.status == 0 && ref.stdout.contains("\(sid)  No Condemnation  note [01:15]: Romans 8:1"), "\(ref.stdout)\(ref.stderr)")
        #expect(try rig.run(["search", "--ref", "John 3"]).stdout.contains("no sermon cites John 3"))
        #expect(try rig.run(["search", "--ref", "Hezekiah 3"]).status == 1)

        let refs = try rig.run(["refs", sid])
        #expect(refs.status == 0 && refs.stdout == "Romans 8:1\n", "\(refs.stdout)")
        #expect(try rig.json(["refs", sid]).arrayValue == [["book": "Romans", "chapter": 8, "verseStart": 1]])
    }
}
