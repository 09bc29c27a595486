import Testing
import TNotesCLIRender
import TNotesCore

// Contract §8.1: "the CLI prints any record the daemon returns". The renderers are called here directly with
// the values a stored record can hold though no write accepts them any more (a note at 1e19 or 1.7e308
// seconds, a negative one, a segment ending before it starts), fields of the wrong type, and empty and huge
// strings. Before they were total, `Int(seconds)` on 1e19 trapped (signal 4) in `sermon show` and `export`.

/// 1e15 seconds, where `ClockTime` clamps every larger value: 277777777777 h 46 min 40 s.
private let clamped = "277777777777:46:40"
private let plain = Style(enabled: false)

@Suite("CLI renderers are total (contract §8.1)")
struct RenderTotalityTests {
    @Test("clock texts of hostile seconds are clamped: never a trap, never a negative time")
    func clockTimes() {
        #expect(ClockTime.format(1e19) == clamped)
        #expect(ClockTime.format(1.7e308) == clamped)
        #expect(ClockTime.format(.greatestFiniteMagnitude) == clamped)
        #expect(ClockTime.format(1e15) == clamped)
        #expect(ClockTime.format(-1) == "00:00")
        #expect(ClockTime.format(-5) == "00:00")
        #expect(ClockTime.format(-1.7e308) == "00:00")
        #expect(ClockTime.format(.nan) == "00:00")
        #expect(ClockTime.format(.infinity) == "00:00")
        #expect(ClockTime.format(604_800) == "168:00:00")
        #expect(ClockTime.format(754.9) == "12:34")
        #expect(ClockTime.duration(1e19) == "11574074074d 1h")
        #expect(ClockTime.duration(-3) == "0s")
        #expect(ClockTime.duration(.nan) == "0s")
        #expect(ClockTime.duration(3723) == "1h 2m")
    }

    @Test("multi-line text: every line indented (CRLF lines too), trailing space dropped; one-line texts cut at 100 characters")
    func linesAndPadding() {
        #expect(Render.indented("a\nb\r\nc  \n\n", first: "- ", rest: "  ") == "- a\n  b\n  c")
        #expect(Render.indented("", first: "- ", rest: "  ") == "- ")
        #expect(Render.indented("\r\n\nx", first: "> ", rest: ". ") == "> \n. \n. x")
        // A combining mark after a line feed stays with the next line's text.
        #expect(Render.indented("e\n\u{301}", first: "", rest: "  ") == "e\n  \u{301}")
        #expect(Format.oneLine("a\r\nb\u{2028}c\u{85}d\n\ne") == "a b c d e")
        #expect(Format.oneLine(String(repeating: "é", count: 100)) == String(repeating: "é", count: 100))
        #expect(Format.oneLine(String(repeating: "é", count: 101)) == String(repeating: "é", count: 99) + "…")
        #expect(Format.oneLine(String(repeating: "e\u{301}", count: 60)).count == 60)
        #expect(Format.spaces(3) == "   " && Format.spaces(0) == "" && Format.spaces(-5) == "")
        #expect(Format.padLeft("ab", 4) == "  ab" && Format.padRight("ab", 4) == "ab  " && Format.padRight("abc", 2) == "abc")
    }

    @Test("sermon show of hostile notes and segments, exactly")
    func sermonShow() throws {
        let sermon = try JSON.parse("""
            {"id":"S1","title":"Hostile","notes":[
              {"text":"far","timestamp":1e19},{"text":"neg","timestamp":-5},{"text":"huge","timestamp":1.7e308},
              {"text":"typed","timestamp":"12:00"},{"text":7,"timestamp":null},{"timestamp":60}],
             "transcript":{"status":"complete","segments":[
              {"start":1.7e308,"end":-1,"text":"backwards"},{"start":"x","end":null,"text":5,"speaker":3},
              {"start":90,"end":30,"text":"ends first","speaker":"Ann"}]},
             "summary":{"title":7,"type":null,"status":false,"text":["not","text"]},
             "audio":{"fileName":1,"sizeBytes":1e19,"sha256":""}}
            """)
        let expected = """
            Hostile
            =======
            Date:     -
            Speaker:  -
            Service:  -
            Status:   transcription -, summary -
            Audio:    audio, not on this device, not uploaded, sha256 …
            Sync:     -
            Id:       S1
            Created:  -
            Updated:  -

            Notes (6)
              \(clamped)  far
                           00:00  neg
              \(clamped)  huge
                           00:00  typed
                           00:00  
                           01:00  

            Transcript (complete, 3 segments)
              \(clamped)–00:00  backwards
              00:00–00:00               
              01:30–00:30               Ann: ends first

            Summary:  (-, -)
              
            """
        #expect(Render.sermon(sermon, style: plain) == expected)
    }

    @Test("every renderer takes JSON of any type at every level")
    func anyType() throws {
        let values: [JSON] = [.null, .bool(true), .int(Int64.min), .int(Int64.max), .double(1.7e308), .double(-1e19),
                              .string(""), .array([]), .object([:]), .array([.null, .int(1), .string("x")])]
        for v in values {
            // Not an object: nothing of it is read, so the renderings are those of an empty record.
            #expect(Render.sermon(v, style: plain) == Render.sermon(.object([:]), style: plain))
            #expect(SermonExport.markdown(v) == "---\ntitle: \"\"\ndate: \nservice: \"\"\nid: \n---\n\n# \n")
            #expect(SermonExport.fileName(v) == "undated")
            #expect(Render.sermonTable([v], noteCounts: [], style: plain) == "DATE  TITLE  SPEAKER  NOTES  SYNC  ID\n-            -            -  -     ")
            #expect(Render.job(v) == "?  ?  ?  sermon ?  attempts 0")
            #expect(Render.scriptureRef(v) == "? 0")
            #expect(Render.audio(v) == (v.isNull ? "none" : "audio, not on this device, not uploaded"))
            #expect(Render.event(v, style: plain, clock: "10:00:00") == "10:00:00  ?  ")
            #expect(Render.historySummary(v) == "")
            #expect(ProgressText.sync(v) == "syncing: pushed 0/0, pulled 0")
            // Every field of the wrong type: each record's field set to `v`.
            var record = JSONObject()
            for key in ["id", "title", "speaker", "serviceType", "date", "notes", "transcript", "summary", "audio",
                        "scriptureRefs", "isArchived", "deletedAt", "syncState", "createdAt", "updatedAt", "timestamp",
                        "start", "end", "text", "segments", "snippet", "sermonId", "kind", "progress", "state",
                        "lastError", "uptimeSeconds", "sync", "triggers", "heldDeletes", "items", "verses"] {
                record[key] = v
            }
            let r = JSON.object(record)
            _ = Render.sermon(r, style: plain)
            _ = Render.sermon(["notes": .array([r, r]), "transcript": ["segments": .array([r])]], style: plain)
            _ = SermonExport.markdown(["notes": .array([r]), "transcript": ["segments": .array([r])], "scriptureRefs": .array([r])])
            _ = Render.sermonTable([r, r, r], noteCounts: ["1"], style: Style(enabled: true))
            _ = Render.searchHits(["items": .array([r])], bold: true)
            _ = Render.referenceHits(["items": .array([r])], ref: "John 3", titles: [:])
            _ = Render.daemonStatus(r, style: plain)
            _ = Render.syncStatus(r, style: plain)
            _ = Render.syncResult(r)
            _ = Render.jobs(.array([r]))
            _ = Render.conflicts(.array([r]), all: true)
            _ = Render.history(id: "x", found: ("notes", [r, ["record": r]]))
            _ = Render.passage(["verses": .array([r])])
            _ = SermonExport.json(r, chat: v)
            _ = ProgressText.job(label: "x", progress: v)
        }
        // A stored record whose text is not a string renders as a record without it.
        #expect(Render.sermonTable([["title": 5, "speaker": .array([]), "date": 1e19]], noteCounts: ["3"], style: plain)
                == "DATE  TITLE  SPEAKER  NOTES  SYNC  ID\n-            -            3  -     ")
    }

    @Test("notes and segment times in search hits, exports and progress; huge and empty strings")
    func hostileElsewhere() throws {
        let hits: JSON = ["items": [["sermonId": "S", "kind": "note", "timestamp": 1e19, "snippet": "**manna**\nfalls"],
                                    ["sermonId": "S", "kind": "transcript", "start": -5, "snippet": ""],
                                    ["sermonId": "S", "kind": "transcript", "start": "12", "snippet": 5]]]
        #expect(Render.searchHits(hits, bold: false)
                == "S  note [\(clamped)]  manna falls\nS  transcript [00:00]  \nS  transcript  ")
        #expect(Render.referenceHits(["items": [["sermonId": "S", "kind": "note", "timestamp": 1.7e308, "display": "John 3:16"]]],
                                     ref: "John 3", titles: ["S": "T"]) == "S  T  note [\(clamped)]: John 3:16")

        let sermon: JSON = ["id": "S", "title": "T", "date": "2025-11-09T00:00:00.000Z",
                            "notes": [["text": "far", "timestamp": 1e19], ["text": "neg", "timestamp": -5]],
                            "transcript": ["segments": [["start": 1.7e308, "end": 0, "text": "late"]]],
                            "scriptureRefs": [["book": "John", "chapter": 1e19, "verseStart": 3, "verseEnd": "x"]]]
        #expect(SermonExport.markdown(sermon) == """
            ---
            title: "T"
            date: 2025-11-09
            service: ""
            id: S
            ---

            # T

            ## Notes

            - [\(clamped)] far
            - [00:00] neg

            ## Transcript

            [\(clamped)] late

            ## Scripture

            - John 0:3

            """)
        let exported = try JSON.parse(SermonExport.json(["id": "S", "syncState": "pending", "notes": [["timestamp": 1e19]]], chat: []))
        #expect(exported == ["id": "S", "notes": [["timestamp": 1e19]], "chat": []])
        #expect(SermonExport.json(.int(3), chat: []) == "3\n")

        let huge = String(repeating: "é", count: 1_000_000)
        let show = Render.sermon(["title": .string(huge), "notes": [["text": .string(huge), "timestamp": 1e19]]], style: plain)
        #expect(show.hasPrefix(huge + "\n" + String(repeating: "=", count: 1_000_000) + "\n"))
        #expect(show.contains("  \(clamped)  \(huge)\n"))
        let table = Render.sermonTable([["title": .string(huge), "speaker": .string(huge)]], noteCounts: ["0"], style: plain)
        #expect(table.contains(String(repeating: "é", count: 47) + "…  " + String(repeating: "é", count: 31) + "…"))
        #expect(SermonExport.fileName(["title": .string(String(repeating: "a b ", count: 250_000)), "date": "2025-11-09"])
                == "2025-11-09-" + Array(repeating: "a-b", count: 12).joined(separator: "-") + "-a")
        #expect(Render.sermon(["title": ""], style: plain).hasPrefix("\n=\n"))
        #expect(SermonExport.fileName(["date": "../../etc", "title": "x"]) == "------etc-x")
        #expect(SermonExport.fileName(["date": .string("\u{0}/é"), "title": 5]) == "---")

        // Progress: no time elapsed, time going backwards, no number; a rate or a percent past Int's range.
        #expect(ProgressText.counter(label: "exporting", count: 5, total: 10, elapsedSeconds: 0) == "exporting 5/10 (5000/s)")
        #expect(ProgressText.counter(label: "exporting", count: 5, total: 10, elapsedSeconds: -3) == "exporting 5/10 (5000/s)")
        #expect(ProgressText.counter(label: "exporting", count: 5, total: 10, elapsedSeconds: .nan) == "exporting 5/10 (5000/s)")
        #expect(ProgressText.counter(label: "x", count: Int.max, total: 0, elapsedSeconds: 0)
                == "x \(Int.max)/0 (1000000000000000/s)")
        #expect(ProgressText.counter(label: "importing", count: 1200, total: 5000, elapsedSeconds: 2) == "importing 1200/5000 (600/s)")
        #expect(ProgressText.job(label: "transcribing", progress: 1e308) == "transcribing: 1000000000000000%")
        #expect(ProgressText.job(label: "transcribing", progress: -1e308) == "transcribing: -1000000000000000%")
        #expect(ProgressText.job(label: "transcribing", progress: 0.425) == "transcribing: 42%")
        #expect(ProgressText.job(label: "transcribing", progress: "half") == "transcribing…")
        #expect(Render.job(["id": "J", "kind": "transcribe", "state": "running", "progress": 1.7e308, "sermonId": "S", "attempts": 1e19])
                == "J  transcribe  running 1000000000000000%  sermon S  attempts 0")
        #expect(ProgressText.sync(["pushed": 1e19, "toPush": -4, "pulled": .int(Int64.max)])
                == "syncing: pushed 0/0, pulled \(Int64.max)")

        #expect(Render.daemonStatus(["version": "1", "uptimeSeconds": 1e19, "pid": 1.7e308], style: plain).contains("uptime:     11574074074d 1h"))
        #expect(Render.daemonStatus(["uptimeSeconds": -1e19, "pid": .double(.nan)], style: plain).contains("uptime:     0s"))
    }

    @Test("the small formatters are total")
    func formatters() {
        #expect(Format.truncate("abc", 0) == "")
        #expect(Format.truncate("abc", -3) == "")
        #expect(Format.truncate("abc", Int.min) == "")
        #expect(Format.truncate("abc", 1) == "…")
        #expect(Format.truncate("abc", 3) == "abc")
        #expect(Format.padLeft("abc", -5) == "abc" && Format.padRight("abc", Int.min) == "abc")
        #expect(Format.bytes(Int64.max) == "9223372.0 TB")
        #expect(Format.bytes(Int64.min) == "\(Int64.min) B")
        #expect(Format.bytes(1_500) == "1.5 kB")
        #expect(Format.clampedInt(.nan) == 0)
        #expect(Format.clampedInt(1e19) == 1_000_000_000_000_000)
        #expect(Format.clampedInt(-.infinity) == -1_000_000_000_000_000)
        #expect(Format.clampedInt(-2.9) == -2)
        #expect(Format.number(.double(1e19)) == "1e+19")
        #expect(Format.number(.double(.nan)) == "nan")
        #expect(Format.date("2025-11-09T00:00:00.000Z") == "2025-11-09")
        #expect(Format.date("é") == "é")
        #expect(Format.time(.string("ééééééééééééééééééé")) == "éééééééééé éééééééé UTC")
        #expect(Format.time(.double(1e19)) == "-")
        // A row wider than the table's columns has its extra cells left out.
        let table = Table(columns: [.init(title: "A"), .init(title: "B", align: .right)], rows: [["1", "2", "3", "4"], [], ["x"]])
        #expect(table.render(style: plain) == "A  B\n1  2\n\nx")
        #expect(Table(columns: [], rows: [["a"]]).render(style: plain) == "\n")
    }
}
