import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

// Contract §8.1 through the real `tnotes` and `tnotesd`: out-of-bounds values are refused where they are
// written (the daemon with -32602 naming the field, the CLI's `--at` as a usage error), and values a store
// holds from before the bound (written here straight into the SQLite file, as an older daemon would have
// stored them) print from every command that shows them. `tnotes sermon show` of a note at 1e19 seconds used
// to die with signal 4 (`Int(seconds)` trapping).

/// `ClockTime`'s text for every value from 1e15 seconds on.
private let clamped = "277777777777:46:40"

@Suite("hostile values through tnotes (contract §8.1)")
struct HostileValueCLITests {
    @Test("out of bounds at the edge: the daemon refuses 1e19 naming timestamp (exit 1); --at past 7 days is exit 2")
    func refusedAtTheEdge() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon()

        let e = try rig.rpc.callError("note.add", ["sermonId": .string(sid), "text": "x", "timestamp": 1e19])
        #expect(e.code == -32602 && e.field == "timestamp", "\(e)")

        // The same call through `tnotes rpc`: the daemon's error, exit 1, the field named on stderr.
        let raw = try rig.run(["rpc", "note.add", #"{"sermonId":"\#(sid)","text":"x","timestamp":1e19}"#])
        #expect(raw.status == 1, "\(raw.stderr)")
        #expect(raw.stderr.contains("timestamp") && raw.stdout.isEmpty, "\(raw.stderr)")

        // --at past the seven days a timestamp may hold is a bad flag value: exit 2, naming --at and the limit,
        // nothing sent. Numbers past Double's range or Int's are the same clean error, never a trap.
        for at in ["604801", "168:00:01", "604800.5", "99999999999999999999", "1e400", "1e19",
                   String(repeating: "9", count: 400), "999999999:59:59", "-1"] {
            let r = try rig.run(["note", "add", sid, "--at", at, "too", "late"])
            #expect(r.status == 2, "--at \(at): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("--at") && r.stdout.isEmpty, "--at \(at): \(r.stderr)")
        }
        let limit = try rig.run(["note", "add", sid, "--at", "604801", "too", "late"])
        #expect(limit.stderr.contains("604800"), "the limit is named: \(limit.stderr)")
        let edit = try rig.run(["note", "edit", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--at", "99999999999999999999"])
        #expect(edit.status == 2 && edit.stderr.contains("--at"), "\(edit.stderr)")
        #expect(try rig.rpc.call("sermon.get", ["id": .string(sid)])["notes"]?.arrayValue?.isEmpty == true, "nothing was added")

        // The bound itself is a place a note may be.
        let atBound = try rig.json(["note", "add", sid, "--at", "168:00:00", "the", "very", "end"])
        #expect(atBound["timestamp"]?.doubleValue == 604_800)
    }

    @Test("values stored before the bound: show, list, export, search, --json and edits all work")
    func storedBeforeTheBound() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon("Bread from Heaven")
        let far = try #require(try rig.rpc.call("note.add", ["sermonId": .string(sid), "timestamp": 10,
                                                             "text": "Manna falls every morning (John 6:35)"])["id"]?.stringValue)
        let negative = try #require(try rig.rpc.call("note.add", ["sermonId": .string(sid), "timestamp": 20,
                                                                  "text": "Quails in the evening"])["id"]?.stringValue)
        try rig.rpc.call("transcript.set", ["sermonId": .string(sid), "text": "Grace and peace. Amen.",
                                            "segments": [["start": 0, "end": 5, "text": "Grace and peace."],
                                                         ["start": 5, "end": 9, "text": "Amen."]]])
        let transcriptId = try #require(try rig.rpc.call("sermon.get", ["id": .string(sid)])["transcript"]?["id"]?.stringValue)

        // Stop the daemon and write the values into its store as a daemon before the bound would have kept
        // them: the record's body, and the rows derived from it (search, scripture references).
        #expect(rig.daemon.stop() == 0)
        try Self.editStore(rig.daemon) { db in
            try Self.setBody(db, "notes", far) { $0["timestamp"] = .double(1e19) }
            try Self.setBody(db, "notes", negative) { $0["timestamp"] = .double(-5) }
            try Self.setBody(db, "transcripts", transcriptId) { t in
                // A segment far in the future, ending before it starts.
                guard case .array(var segments)? = t["segments"], case .object(var first) = segments[0] else { return }
                first["start"] = .double(1.7e308)
                segments[0] = .object(first)
                t["segments"] = .array(segments)
            }
            try db.run("UPDATE search_docs SET start = ? WHERE collection = 'notes' AND record_id = ?", [.double(1e19), .text(far)])
            try db.run("UPDATE search_docs SET start = ? WHERE collection = 'notes' AND record_id = ?", [.double(-5), .text(negative)])
            try db.run("UPDATE search_docs SET start = ? WHERE collection = 'transcripts' AND record_id = ? AND body = ?",
                       [.double(1.7e308), .text(transcriptId), .text("Grace and peace.")])
            try db.run("UPDATE scripture_refs SET start = ? WHERE collection = 'notes' AND record_id = ?", [.double(1e19), .text(far)])
        }
        try rig.daemon.start()
        let c = try rig.daemon.client()
        let stored = try c.call("note.get", ["id": .string(far)])
        #expect(stored["timestamp"]?.doubleValue == 1e19, "the store holds the hostile value: \(stored)")

        // sermon show: every note and segment, the times clamped.
        let show = try rig.run(["sermon", "show", sid])
        #expect(show.status == 0, "sermon show: \(show.status) \(show.stderr)")
        #expect(show.stdout.contains("  \(clamped)  Manna falls every morning (John 6:35)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("             00:00  Quails in the evening\n"), "\(show.stdout)")
        #expect(show.stdout.contains("  \(clamped)–00:05  Grace and peace.\n"), "\(show.stdout)")

        let list = try rig.run(["sermon", "list"])
        #expect(list.status == 0 && list.stdout.contains("Bread from Heaven"), "\(list.stdout)\(list.stderr)")

        let json = try rig.json(["sermon", "show", sid])
        let notes = json["notes"]?.arrayValue ?? []
        #expect(notes.contains { $0["id"]?.stringValue == far && $0["timestamp"]?.doubleValue == 1e19 }, "\(json)")
        #expect(json["transcript"]?["segments"]?.arrayValue?.first?["start"]?.doubleValue == 1.7e308)

        // Exports: Markdown, JSON per sermon, and the whole backup.
        let dir = TempDirectory()
        let md = try rig.run(["export", dir.file("md")])
        #expect(md.status == 0, "export: \(md.stderr)")
        let mdText = try String(contentsOfFile: dir.file("md/2025-11-09-bread-from-heaven.md"), encoding: .utf8)
        #expect(mdText.contains("- [\(clamped)] Manna falls every morning (John 6:35)\n"), "\(mdText)")
        #expect(mdText.contains("- [00:00] Quails in the evening\n"), "\(mdText)")
        #expect(mdText.contains("[\(clamped)] Grace and peace.\n"), "\(mdText)")
        let js = try rig.run(["export", "--format", "json", dir.file("json")])
        #expect(js.status == 0, "export --format json: \(js.stderr)")
        let exported = try JSON.parse(try String(contentsOfFile: dir.file("json/2025-11-09-bread-from-heaven.json"), encoding: .utf8))
        #expect(exported["notes"]?.arrayValue?.contains { $0["text"]?.stringValue?.hasPrefix("Manna") == true && $0["timestamp"]?.doubleValue == 1e19 } == true)
        let all = try rig.run(["export", "--all", "--format", "json", dir.file("backup.json")])
        #expect(all.status == 0, "export --all: \(all.stderr)")
        let backup = try String(contentsOfFile: dir.file("backup.json"), encoding: .utf8)
        #expect(backup.contains("Manna falls every morning"))

        // Search: a note hit, a transcript hit and a scripture hit, each at its clamped time.
        let manna = try rig.run(["search", "manna"])
        #expect(manna.status == 0 && manna.stdout.contains("note [\(clamped)]") && manna.stdout.contains("Manna"),
                "\(manna.stdout)\(manna.stderr)")
        let grace = try rig.run(["search", "grace"])
        #expect(grace.status == 0 && grace.stdout.contains("transcript [\(clamped)]"), "\(grace.stdout)\(grace.stderr)")
        let quails = try rig.run(["search", "quails"])
        #expect(quails.status == 0 && quails.stdout.contains("note [00:00]"), "\(quails.stdout)\(quails.stderr)")
        let ref = try rig.run(["search", "--ref", "John 6"])
        #expect(ref.status == 0 && ref.stdout.contains("Bread from Heaven  note [\(clamped)]: John 6:35"), "\(ref.stdout)\(ref.stderr)")

        // A value stored before the bound does not block an edit of another field of its record: the text
        // changes, the timestamp is kept as it was. Moving a note back inside the bounds works too.
        let edited = try rig.run(["note", "edit", far, "Manna,", "daily", "bread"])
        #expect(edited.status == 0, "note edit of the text: \(edited.stderr)")
        #expect(edited.stdout == "updated note \(far) at \(clamped)\n")
        let after = try c.call("note.get", ["id": .string(far)])
        #expect(after["text"]?.stringValue == "Manna, daily bread" && after["timestamp"]?.doubleValue == 1e19, "\(after)")
        let moved = try rig.run(["note", "edit", negative, "--at", "12:34"])
        #expect(moved.status == 0 && moved.stdout == "updated note \(negative) at 12:34\n", "\(moved.stdout)\(moved.stderr)")
        // Its earlier version (at 1e19 seconds) in the history.
        let history = try rig.run(["history", far])
        #expect(history.status == 0 && history.stdout.contains("Manna falls every morning"), "\(history.stdout)\(history.stderr)")
        let shown = try rig.run(["sermon", "show", sid])
        #expect(shown.status == 0 && shown.stdout.contains("  \(clamped)  Manna, daily bread\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("12:34  Quails in the evening\n"), "\(shown.stdout)")
    }

    /// Opens the stopped daemon's database, runs `body` in a transaction and closes it again.
    static func editStore(_ d: DaemonProcess, _ body: (SQLiteConnection) throws -> Void) throws {
        let db = try SQLiteConnection(path: "\(d.dataDir)/tnotes.sqlite", create: false)
        try db.transaction { try body(db) }
    }

    /// Rewrites one record's stored body (its canonical JSON text) through `change`.
    static func setBody(_ db: SQLiteConnection, _ collection: String, _ id: String, _ change: (inout JSONObject) -> Void) throws {
        let text = try #require(try db.scalar("SELECT body FROM records WHERE collection = ? AND id = ?",
                                              [.text(collection), .text(id)]).string, "no \(collection) \(id)")
        guard case .object(var body) = try JSON.parse(text) else { throw HarnessError("\(collection) \(id): not an object") }
        change(&body)
        try db.run("UPDATE records SET body = ? WHERE collection = ? AND id = ?", [.text(JSON.object(body).text), .text(collection), .text(id)])
        #expect(db.changes == 1)
    }
}
