import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.2: full-text search and scripture references, through the daemon, with local and pulled
/// updates and deletes.
@Suite("search and scripture references")
struct SearchTests {
    static func kinds(_ r: JSON) -> [String] { r["items"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? [] }

    @Test("search finds notes, transcript segments (with start), summaries and titles; filters; edits and deletes at once; bad queries name q")
    func searchLocal() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let c = try d.client()
        let a = try #require(try c.call("sermon.create", ["title": "Walking by Faith", "speaker": "Ann Lee", "date": "2025-03-02"])["id"]?.stringValue)
        let b = try #require(try c.call("sermon.create", ["title": "Enemies", "speaker": "Bob Roe", "date": "2025-06-01"])["id"]?.stringValue)
        let note = try #require(try c.call("note.add", ["sermonId": .string(a), "text": "Forgiveness is received, not earned", "timestamp": 16])["id"]?.stringValue)
        try c.call("transcript.set", ["sermonId": .string(a), "text": "x", "segments": [
            ["start": 0, "end": 5, "text": "Open your Bibles to the letter to the Romans."],
            ["start": 65.5, "end": 70, "text": "Forgive one another as the Lord forgave you."],
        ]])
        try c.call("summary.set", ["sermonId": .string(b), "title": "Loving enemies", "text": "Pray for those who persecute you; forgiving is costly.", "type": "devotional"])

        let all = try c.call("search.query", ["q": "forgive"])
        let items = all["items"]?.arrayValue ?? []
        #expect(Set(Self.kinds(all)) == ["note", "transcript", "summary"], "\(all.text)")
        let seg = try #require(items.first { $0["kind"] == "transcript" })
        #expect(seg["start"]?.doubleValue == 65.5 && seg["sermonId"]?.stringValue == a)
        #expect(seg["snippet"]?.stringValue?.contains("**Forgive**") == true, "\(seg.text)")
        let hitNote = try #require(items.first { $0["kind"] == "note" })
        #expect(hitNote["timestamp"]?.doubleValue == 16 && hitNote["recordId"]?.stringValue == note)
        #expect(items.allSatisfy { $0["rank"]?.doubleValue != nil })
        // Titles and speakers are searched too; prefix queries and phrases work.
        #expect(Self.kinds(try c.call("search.query", ["q": "walk*"])) == ["sermon"])
        #expect(Self.kinds(try c.call("search.query", ["q": "\"bob roe\""])) == ["sermon"])

        // Filters.
        #expect(Self.kinds(try c.call("search.query", ["q": "forgive", "kinds": ["transcript"]])) == ["transcript"])
        #expect(Set(Self.kinds(try c.call("search.query", ["q": "forgive", "speaker": "ann lee"]))) == ["note", "transcript"])
        #expect(Self.kinds(try c.call("search.query", ["q": "forgive", "from": "2025-05-01"])) == ["summary"])
        #expect(Set(Self.kinds(try c.call("search.query", ["q": "forgive", "to": "2025-04-01"]))) == ["note", "transcript"])

        // Pages.
        let first = try c.call("search.query", ["q": "forgive", "limit": 2])
        let next = try #require(first["next"]?.stringValue)
        let second = try c.call("search.query", ["q": "forgive", "limit": 2, "after": .string(next)])
        #expect((first["items"]?.arrayValue?.count ?? 0) == 2 && second["items"]?.arrayValue?.count == 1 && second["next"] == .null)

        // An edit and a delete are seen by the next search.
        try c.call("note.update", ["id": .string(note), "text": "Mercy triumphs over judgment"])
        #expect(!Self.kinds(try c.call("search.query", ["q": "forgive"])).contains("note"))
        #expect(Self.kinds(try c.call("search.query", ["q": "mercy"])) == ["note"])
        try c.call("note.delete", ["id": .string(note)])
        #expect(Self.kinds(try c.call("search.query", ["q": "mercy"])).isEmpty)
        try c.call("sermon.delete", ["id": .string(b)])
        #expect(!Self.kinds(try c.call("search.query", ["q": "forgive"])).contains("summary"))
        #expect(Self.kinds(try c.call("search.query", ["q": "enemies"])).isEmpty)

        // Malformed queries and params: -32602 naming the field; nothing breaks.
        for bad in ["forgive AND", "\"unbalanced", "NEAR(", "(a OR", "col:umn", "*"] {
            let e = try c.callError("search.query", ["q": .string(bad)])
            #expect(e.code == -32602 && e.field == "q", "\(bad): \(e)")
        }
        #expect(try c.callError("search.query", ["q": ""]).field == "q")
        #expect(try c.callError("search.query", ["q": "x", "kinds": ["chat"]]).field == "kinds[0]")
        #expect(try c.callError("search.query", ["q": "x", "after": "-3"]).field == "after")
        #expect(try c.callError("search.query", ["q": "x", "from": "yesterday"]).field == "from")
        #expect(Self.kinds(try c.call("search.query", ["q": "forgive"])).contains("transcript"))
    }

    @Test("pulled updates and deletes are searchable on the other device at once", arguments: Backend.allCases)
    func searchPulled(backend: Backend) throws {
        let rig = try SyncRig(server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let a = try rig.rpc(0), b = try rig.rpc(1)
            let sid = try #require(try a.call("sermon.create", ["title": "Shared"])["id"]?.stringValue)
            let note = try #require(try a.call("note.add", ["sermonId": .string(sid), "text": "zebra crossing", "timestamp": 3])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            #expect(Self.kinds(try b.call("search.query", ["q": "zebra"])) == ["note"])
            try a.call("note.update", ["id": .string(note), "text": "giraffe neck"])
            try rig.syncAll(order: [0, 1])
            #expect(Self.kinds(try b.call("search.query", ["q": "zebra"])).isEmpty)
            #expect(Self.kinds(try b.call("search.query", ["q": "giraffe"])) == ["note"])
            try a.call("note.delete", ["id": .string(note)])
            try rig.syncAll(order: [0, 1])
            #expect(Self.kinds(try b.call("search.query", ["q": "giraffe"])).isEmpty)
        }
    }

    @Test("scripture references: sermon.get lists every passage cited (written and spoken); search.byReference finds the sermons")
    func scriptureReferences() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Romans 8", "date": "2025-03-02"])["id"]?.stringValue)
        let note = try #require(try c.call("note.add", ["sermonId": .string(sid), "text": "Read Rom 8:28 and Jn 3:16 again", "timestamp": 40])["id"]?.stringValue)
        try c.call("transcript.set", ["sermonId": .string(sid), "text": "x", "segments": [
            ["start": 12, "end": 20, "text": "turn with me to first corinthians chapter thirteen verse four"],
            ["start": 30, "end": 35, "text": "a job well done and acts of kindness, mark my words"],
        ]])
        let other = try #require(try c.call("sermon.create", ["title": "Love", "date": "2025-05-02"])["id"]?.stringValue)
        try c.call("note.add", ["sermonId": .string(other), "text": "Romans 8:26-30 is the passage", "timestamp": 1])

        let refs = try c.call("sermon.get", ["id": .string(sid)])["scriptureRefs"]?.arrayValue ?? []
        #expect(refs == [
            ["book": "Romans", "chapter": 8],
            ["book": "1 Corinthians", "chapter": 13, "verseStart": 4],
            ["book": "Romans", "chapter": 8, "verseStart": 28],
            ["book": "John", "chapter": 3, "verseStart": 16],
        ], "\(JSON.array(refs).text)")

        // Romans 8:28 is cited by the first sermon (title: the whole chapter; note: the verse) and the second (a range).
        let hits = try c.call("search.byReference", ["book": "Rom", "chapter": 8, "verse": 28])["items"]?.arrayValue ?? []
        #expect(Set(hits.compactMap { $0["sermonId"]?.stringValue }) == [sid, other], "\(JSON.array(hits).text)")
        #expect(hits.first?["sermonId"]?.stringValue == other, "newest sermon first")
        let noteHit = try #require(hits.first { $0["recordId"]?.stringValue == note })
        #expect(noteHit["kind"] == "note" && noteHit["timestamp"]?.doubleValue == 40 && noteHit["display"] == "Romans 8:28")
        let spoken = try c.call("search.byReference", ["book": "1 Corinthians", "chapter": 13])["items"]?.arrayValue ?? []
        #expect(spoken.count == 1 && spoken.first?["kind"] == "transcript" && spoken.first?["start"]?.doubleValue == 12)
        #expect(try c.call("search.byReference", ["book": "John", "chapter": 3, "verse": 17])["items"]?.arrayValue?.isEmpty == true)
        #expect(try c.call("search.byReference", ["book": "Mark"])["items"]?.arrayValue?.isEmpty == true, "no false positive from 'mark my words'")

        // Deleting the note removes its references.
        try c.call("note.delete", ["id": .string(note)])
        let after = try c.call("sermon.get", ["id": .string(sid)])["scriptureRefs"]?.arrayValue ?? []
        #expect(!after.contains(["book": "John", "chapter": 3, "verseStart": 16]))
        #expect(try c.callError("search.byReference", ["book": "Hezekiah"]).field == "book")
        #expect(try c.callError("search.byReference", ["book": "Jude", "chapter": 2]).field == "chapter")
        #expect(try c.callError("search.byReference", ["book": "John", "verse": 2]).field == "verse")
    }
}

/// Contract §6.2 `scripture.text` and `tnotes verse`: offline KJV text from Debian's sword-text-kjv.
@Suite("scripture text")
struct ScriptureTextTests {
    static let hasKJV = FileManager.default.fileExists(atPath: "/usr/share/sword/mods.d/engKJV2006eb.conf")

    @Test("scripture.text gives the KJV text of John 3:16, Psalm 23:1-3 and 1 Cor 13:4; bad refs are named",
          .enabled(if: hasKJV, "needs sword-text-kjv"))
    func kjv() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let c = try d.client()
        let john = try c.call("scripture.text", ["ref": "John 3:16"])
        #expect(john["translation"] == "KJV" && john["reference"] == "John 3:16")
        #expect(john["verses"]?.arrayValue?.first?["text"] == "For God so loved the world, that he gave his only begotten Son, that whosoever believeth in him should not perish, but have everlasting life.")
        let psalm = try c.call("scripture.text", ["ref": "Psalm 23:1-3"])
        #expect(psalm["verses"]?.arrayValue?.map { $0["verse"] } == [1, 2, 3])
        #expect(psalm["verses"]?.arrayValue?.first?["text"] == "The LORD is my shepherd; I shall not want.")
        #expect(psalm["verses"]?.arrayValue?.last?["text"] == "He restoreth my soul: he leadeth me in the paths of righteousness for his name’s sake.")
        let cor = try c.call("scripture.text", ["ref": "1 Cor 13:4"])
        #expect(cor["verses"]?.arrayValue?.first?["book"] == "1 Corinthians")
        #expect(cor["verses"]?.arrayValue?.first?["text"] == "Charity suffereth long, and is kind; charity envieth not; charity vaunteth not itself, is not puffed up,")

        #expect(try c.callError("scripture.text", ["ref": "the gospel"]).field == "ref")
        #expect(try c.callError("scripture.text", ["ref": "John 3:99"]).code == -32001)
        #expect(try c.callError("scripture.text", ["ref": "John 3:16", "translation": "NIV"]).field == "translation")

        // The CLI prints the passage.
        let out = try ProcessRunner.run(Binaries.path("tnotes"), ["--socket", d.socketPath, "verse", "John", "3:16-17"],
                                        environment: ["NO_COLOR": "1"], stdin: nil, timeout: 30)
        #expect(out.status == 0 && out.stdout.hasPrefix("John 3:16-17 (KJV)\n3:16 For God so loved"), "\(out.stdout)\(out.stderr)")
    }

    @Test("a translation that is not installed answers -32005 naming its Debian package")
    func missingModule() throws {
        let empty = TempDirectory()
        let d = DaemonProcess(environment: ["HOME": empty.path])
        d.extraArguments = ["--config", try d.dir.write("tnotesd.toml", "[scripture]\nmodules_path = \"\(empty.path)\"\n")]
        try d.start()
        defer { d.stop() }
        let e = try d.client().callError("scripture.text", ["ref": "John 3:16"])
        #expect(e.code == -32005 && e.message.contains("sword-text-kjv"), "\(e)")
    }
}
