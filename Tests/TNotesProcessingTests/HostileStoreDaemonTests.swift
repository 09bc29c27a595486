import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

/// Contract §8.1 through a real daemon: values written before the bounds existed (here put straight into the
/// store file's `records.body` while the daemon is stopped: a note at `"timestamp":1e19`, one at 1.7e308, a
/// segment starting at 1e300 and ending before it, a 20,000-character title of ZWJ emoji) load and render.
/// The daemon answers summaries, the assistant, search and every view without dying, and `sermon.get` gives
/// the records back exactly as stored.
@Suite("processing: a daemon over hostile stored values", .serialized)
struct HostileStoreDaemonTests {
    @Test("summary.generate, chat.ask, search.query and the record views work over a note at timestamp 1e19; sermon.get returns it as stored")
    func daemonRendersHostileStoredValues() throws {
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config(autoTranscribe: false))
        defer { d.stop() }
        var c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "No Condemnation", "speaker": "Ann Lee"])["id"]?.stringValue)
        try c.call("transcript.set", ["sermonId": .string(sid), "text": "Forgiveness is received. Love never fails.", "segments": [
            ["start": 0, "end": 5, "text": "Forgiveness is received, not earned; Romans 8:1 says there is no condemnation."],
            ["start": 5, "end": 9, "text": "Love never fails, so forgive one another."],
        ]])
        let huge = try #require(try c.call("note.add", ["sermonId": .string(sid), "text": "forgiveness at the end of time", "timestamp": 5])["id"]?.stringValue)
        let top = try #require(try c.call("note.add", ["sermonId": .string(sid), "text": "grace beyond measure", "timestamp": 6])["id"]?.stringValue)
        try c.call("note.add", ["sermonId": .string(sid), "text": "Romans 8:1", "timestamp": 2])
        // A second sermon of notes only: its summary is the notes, each stamped with its time.
        let notesOnly = try #require(try c.call("sermon.create", ["title": "Notes only"])["id"]?.stringValue)
        let lone = try #require(try c.call("note.add", ["sermonId": .string(notesOnly), "text": "forgiveness written at 1e19", "timestamp": 7])["id"]?.stringValue)
        #expect(d.stop() == 0)

        // Written into the store as an old daemon or a hand edit could have: the records' bodies, and the search
        // rows their times derive (what the index would hold had the values come in before the bounds).
        let title = String(repeating: "👨‍👩‍👧", count: 20_000)
        let db = try SQLiteConnection(path: "\(d.dataDir)/tnotes.sqlite", create: false)
        func edit(_ collection: String, _ id: String, _ change: (String) -> String) throws {
            let body = try #require(try db.scalar("SELECT body FROM records WHERE collection = ? AND id = ?", [.text(collection), .text(id)]).string)
            let changed = change(body)
            #expect(changed != body, "\(collection) \(id) unchanged: \(body)")
            try db.run("UPDATE records SET body = ? WHERE collection = ? AND id = ?", [.text(changed), .text(collection), .text(id)])
        }
        try edit("notes", huge) { $0.replacingOccurrences(of: "\"timestamp\":5", with: "\"timestamp\":1e19") }
        try edit("notes", top) { $0.replacingOccurrences(of: "\"timestamp\":6", with: "\"timestamp\":1.7e308") }
        try edit("notes", lone) { $0.replacingOccurrences(of: "\"timestamp\":7", with: "\"timestamp\":1e19") }
        let transcriptId = try #require(try db.scalar("SELECT id FROM records WHERE collection = 'transcripts' AND sermon_id = ?", [.text(sid)]).string)
        try edit("transcripts", transcriptId) { $0.replacingOccurrences(of: "\"start\":5,", with: "\"start\":1e300,") }
        try edit("sermons", sid) { $0.replacingOccurrences(of: "\"title\":\"No Condemnation\"", with: "\"title\":\"\(title)\"") }
        try db.run("UPDATE search_docs SET start = 1e19 WHERE record_id IN (?, ?)", [.text(huge), .text(lone)])
        try db.run("UPDATE search_docs SET start = 1e300 WHERE record_id = ? AND start = 5", [.text(transcriptId)])
        let stored = try #require(try db.scalar("SELECT body FROM records WHERE id = ?", [.text(huge)]).string)
        #expect(stored.contains("\"timestamp\":1e19"))

        try d.start()
        c = try d.client()
        // sermon.get: the records as stored, the note at 1e19 and the segment at 1e300 among them.
        let sermon = try c.call("sermon.get", ["id": .string(sid)])
        #expect(sermon["title"]?.stringValue == title)
        let notes = try #require(sermon["notes"]?.arrayValue)
        let hugeNote = try #require(notes.first { $0["id"]?.stringValue == huge })
        #expect(hugeNote == (try JSON.parse(stored)), "\(hugeNote.text)")
        #expect(hugeNote["timestamp"]?.doubleValue == 1e19)
        #expect(notes.contains { $0["timestamp"]?.doubleValue == 1.7e308 })
        #expect(sermon["transcript"]?["segments"]?.arrayValue?.contains { $0["start"]?.doubleValue == 1e300 } == true)
        #expect(try c.call("note.get", ["id": .string(huge)]) == (try JSON.parse(stored)))

        // Summaries of each type, and of the notes-only sermon (its key point stamped with the clamped clock).
        for type in ["bullet", "devotional", "theological"] {
            let job = try #require(try c.call("summary.generate", ["sermonId": .string(sid), "type": .string(type)])["jobId"]?.stringValue)
            let done = try ProcessingHarness.waitForJob(c, job)
            #expect(done["state"] == "done", "\(type): \(done.text)")
            #expect(try c.call("sermon.get", ["id": .string(sid)])["summary"]?["text"]?.stringValue?.isEmpty == false)
        }
        let notesJob = try #require(try c.call("summary.generate", ["sermonId": .string(notesOnly), "type": "bullet"])["jobId"]?.stringValue)
        #expect(try ProcessingHarness.waitForJob(c, notesJob)["state"] == "done")
        let notesSummary = try #require(try c.call("sermon.get", ["id": .string(notesOnly)])["summary"]?["text"]?.stringValue)
        #expect(notesSummary.contains("[\(ClockTime.format(1e19))] forgiveness written at 1e19"), "\(notesSummary)")

        // The assistant quotes the note at 1e19 and the segment at 1e300 with their (clamped) clock times.
        let asked = try c.call("chat.ask", ["sermonId": .string(sid), "question": "what about forgiveness?"])
        let chatJob = try #require(asked["jobId"]?.stringValue)
        #expect(try ProcessingHarness.waitForJob(c, chatJob)["state"] == "done")
        let answer = try #require(try c.call("chat.list", ["sermonId": .string(sid)]).arrayValue?.last?["content"]?.stringValue)
        #expect(answer.contains("[\(ClockTime.format(1e19))] your note: \"forgiveness at the end of time\""), "\(answer)")

        // Search: hits at 1e19 and 1e300 come back with their times.
        let hits = try #require(try c.call("search.query", ["q": "forgiveness"])["items"]?.arrayValue)
        #expect(hits.contains { $0["recordId"]?.stringValue == huge && $0["timestamp"]?.doubleValue == 1e19 }, "\(hits)")
        #expect(!(try c.call("search.query", ["q": "love"])["items"]?.arrayValue?.isEmpty ?? true))
        #expect(try c.call("search.byReference", ["book": "Romans"])["items"]?.arrayValue?.isEmpty == false)

        // The other views of the same records.
        #expect(try c.call("sermon.list")["items"]?.arrayValue?.count == 2)
        #expect(try c.call("backup.export")["items"]?.arrayValue?.isEmpty == false)
        let published = try c.call("sermon.publish", ["id": .string(sid), "parts": ["notes", "summary", "transcript"]])
        #expect(published["state"] == "pending", "\(published.text)")
        // An edit of another field of the note keeps its stored time (the bound checks what is new).
        let edited = try c.call("note.update", ["id": .string(huge), "text": "edited"])
        #expect(edited["timestamp"]?.doubleValue == 1e19 && edited["text"] == "edited")
        #expect(try c.call("daemon.status")["pid"]?.int64Value == Int64(d.pid))
        #expect(d.stop() == 0, "tnotesd did not exit 0; log:\n\(d.log.suffix(3000))")
    }
}
