import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

// Contract §8.1 on a real tnotes-server (issue #49): values are bounded where they are written (a push is
// `rejected` naming the field, a legacy write 400 naming it), and nothing stored makes the server trap. A
// publication's snapshot is whatever a client pushed (it is an object, nothing more is checked): its page and
// its JSON still answer, showing the good parts and leaving out fields of the wrong type. Values stored before
// the bounds (written here straight into the SQLite file) still render, pull and take edits of other fields.
@Suite("tnotes-server hostile values")
struct HostileValueTests {
    /// A publication record (contract §6.5) showing `snapshot`.
    static func publication(publicId: String, snapshot: JSON, parts: JSON = ["notes", "summary", "transcript"]) -> JSONObject {
        [
            "id": .string(Wire.id()), "sermonId": .string(Wire.id()), "publicId": .string(publicId), "parts": parts,
            "published": true, "snapshot": snapshot, "publishedAt": .string(Wire.t0), "updatedAt": .string(Wire.t0),
            "deletedAt": .null,
        ]
    }

    static let quoteWithMark = "\"\u{301} onmouseover=\"alert(1)\""
    static func newPublicId() -> String { PublicId.make(title: "Hostile") }

    /// GET `path` with no cache: 200 expected; the answer.
    static func page(_ http: HTTPTestClient, _ path: String) throws -> HTTPResponse {
        let r = try http.get(path, headers: noCache)
        #expect(r.status == 200, "\(path): \(r.status) \(r.text.prefix(2000))")
        return r
    }

    /// The server is still the process it was and answers.
    static func expectAlive(_ server: ServerProcess, _ http: HTTPTestClient) throws {
        #expect(server.isRunning, "tnotes-server died:\n\(server.log.suffix(3000))")
        let health = try http.get("/healthz", headers: noCache)
        #expect(health.status == 200 && health.json?["status"] == "ok", "healthz: \(health.status) \(health.text)")
    }

    static let hostileNotes: JSON = [
        ["timestamp": 1e19, "text": "huge time note"],
        ["timestamp": 1.7e308, "text": "max double note"],
        ["timestamp": "soon", "text": "string time note"],
        ["timestamp": -5, "text": "negative time note"],
        ["timestamp": 61, "text": "good note"],
        ["timestamp": 3, "text": 7],
        "a note that is a string",
        ["timestamp": [:] as JSON, "text": "object time note"],
        ["text": "no time note"],
    ]

    @Test("a hostile publication snapshot pushed straight to the server: page and JSON answer 200 with the good parts, bad fields left out",
          arguments: Backend.allCases)
    func hostileSnapshot(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let first = Self.newPublicId(), second = Self.newPublicId()
            let one: JSON = [
                "title": 42, "speaker": "Pastor Hostile", "date": 12345, "serviceType": ["x"],
                "notes": Self.hostileNotes,
                "summary": "a string where the summary goes",
                "transcript": ["text": "the transcript text itself", "segments": ["start": 1, "text": "segments as an object"]],
            ]
            let two: JSON = [
                "title": "Second sermon", "date": "2025-11-09T10:30:00.000Z", "speaker": .string(Self.quoteWithMark),
                "notes": ["timestamp": 1e19, "text": "notes as an object"],
                "summary": ["title": 5, "text": "the summary body", "type": [] as JSON],
                "transcript": ["text": "second transcript", "segments": [
                    ["start": 1e300, "end": 1.7e308, "text": "segment at a huge start"],
                    ["start": "later", "text": "segment with a string start"],
                    5,
                    ["start": 3],
                    ["start": 700_000, "text": "segment past seven days"],
                ]],
            ]
            let pushed = try http.push([
                Wire.change(.publications, Self.publication(publicId: first, snapshot: one)),
                Wire.change(.publications, Self.publication(publicId: second, snapshot: two)),
            ])
            #expect(pushed.statuses == ["applied", "applied"], "a snapshot is only checked to be an object: \(pushed.results)")

            // The first: every note with text, in time order (one without a time as at 0), times through ClockTime.
            let html1 = try Self.page(http, "/p/\(first)").text
            for text in ["huge time note", "max double note", "string time note", "negative time note", "good note",
                         "object time note", "no time note", "Pastor Hostile", "the transcript text itself"] where !html1.contains(text) {
                Issue.record("the page leaves out \"\(text)\":\n\(html1)")
            }
            #expect(html1.contains("<time class=\"at\">01:01</time><span class=\"text\">good note</span>"), "\(html1)")
            #expect(html1.contains("<time class=\"at\">\(ClockTime.format(1e19))</time><span class=\"text\">huge time note</span>"))
            #expect(html1.contains("<time class=\"at\">\(ClockTime.format(1.7e308))</time><span class=\"text\">max double note</span>"))
            #expect(html1.contains("<time class=\"at\">00:00</time><span class=\"text\">negative time note</span>"))
            // A time of the wrong type is left out, not shown as some time.
            #expect(html1.contains("<li><span class=\"text\">string time note</span></li>"), "\(html1)")
            #expect(html1.contains("<li><span class=\"text\">object time note</span></li>"), "\(html1)")
            #expect(html1.contains("<h1>Untitled sermon</h1>"), "a title that is a number is left out")
            #expect(!html1.contains("a string where the summary goes") && !html1.contains("a note that is a string"))
            #expect(!html1.contains("segments as an object"))

            let json1 = try #require(try Self.page(http, "/p/\(first).json").json, "the .json page is valid JSON")
            let notes1 = json1["notes"]?.arrayValue ?? []
            #expect(notes1.compactMap { $0["text"]?.stringValue } == [
                "negative time note", "string time note", "object time note", "no time note", "good note",
                "huge time note", "max double note",
            ], "\(json1.text)")
            #expect(notes1.first { $0["text"] == "huge time note" }?["timestamp"]?.doubleValue == 1e19)
            #expect(notes1.first { $0["text"] == "max double note" }?["timestamp"]?.doubleValue == 1.7e308)
            #expect(notes1.first { $0["text"] == "good note" }?["timestamp"]?.doubleValue == 61)
            #expect(notes1.first { $0["text"] == "string time note" }?.objectValue?["timestamp"] == nil, "\(json1.text)")
            #expect(json1["title"] == "Untitled sermon" && json1["date"] == .null && json1["serviceType"] == .null)
            #expect(json1["speaker"] == "Pastor Hostile")
            #expect(json1["summary"] == .null, "a summary that is a string is left out: \(json1.text)")
            #expect(json1["transcript"] == ["text": "the transcript text itself", "segments": []], "\(json1.text)")

            // The second: notes as an object are no notes; the summary's and segments' good fields stay.
            let html2 = try Self.page(http, "/p/\(second)").text
            #expect(html2.contains("<h1>Second sermon</h1>") && html2.contains("9 November 2025"))
            // A quote followed by a combining mark is one Character, and a per-Character escape let it out raw;
            // in an attribute (the description) it would have ended the value and opened another.
            #expect(!html2.contains(Self.quoteWithMark) && !html2.contains("\" onmouseover"), "\(html2)")
            #expect(html2.contains("&quot;\u{301} onmouseover=&quot;alert(1)&quot;"), "\(html2)")
            #expect(!html2.contains("notes as an object") && !html2.contains("<section class=\"notes\">"))
            #expect(html2.contains("<h2>Summary</h2>") && html2.contains("the summary body"), "\(html2)")
            #expect(html2.contains("<time class=\"at\">\(ClockTime.format(1e300))</time><span class=\"text\">segment at a huge start</span>"))
            #expect(html2.contains("<li><span class=\"text\">segment with a string start</span></li>"), "\(html2)")
            #expect(html2.contains("<time class=\"at\">\(ClockTime.format(700_000))</time><span class=\"text\">segment past seven days</span>"))
            let json2 = try #require(try Self.page(http, "/p/\(second).json").json)
            #expect(json2["notes"] == [], "\(json2.text)")
            #expect(json2["summary"] == ["title": "Summary", "text": "the summary body", "type": ""], "\(json2.text)")
            let segments = json2["transcript"]?["segments"]?.arrayValue ?? []
            #expect(segments.compactMap { $0["text"]?.stringValue } == [
                "segment at a huge start", "segment with a string start", "segment past seven days",
            ], "\(json2.text)")
            #expect(segments.first?["start"]?.doubleValue == 1e300)
            #expect(segments.dropFirst().first?.objectValue?["start"] == nil)

            // HEAD and a conditional GET take the same path.
            let etag = try #require(try http.get("/p/\(first)", headers: noCache).header("ETag"))
            #expect(try http.get("/p/\(first)", headers: ["If-None-Match": etag]).status == 304)
            #expect(try http.request("HEAD", "/p/\(second).json").status == 200)
            try Self.expectAlive(server, http)
        }
    }

    @Test("pushed values out of bounds are rejected naming the field; the rest of the batch applies; a note at the bounds applies",
          arguments: Backend.allCases)
    func pushedBounds(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id()
            let sermon = Wire.change(.sermons, Wire.sermon(sid, title: "Fine"))
            let hugeTime = Wire.change(.notes, Wire.note(Wire.id(), sermonId: sid, text: "far away", timestamp: 1e19))
            let negative = Wire.change(.notes, Wire.note(Wire.id(), sermonId: sid, text: "before it began", timestamp: -1))
            let longTitle = Wire.change(.sermons, Wire.sermon(Wire.id(), title: String(repeating: "t", count: 1_001)))
            let lateSegment = Wire.change(.transcripts, Wire.transcript(Wire.id(), sermonId: sid, segments: [
                ["start": 700_000, "end": 700_001, "text": "a week and more in"],
            ]))
            let lateEnd = Wire.change(.transcripts, Wire.transcript(Wire.id(), sermonId: sid, segments: [
                ["start": 0, "end": 1, "text": "fine"], ["start": 2, "end": 604_801, "text": "ends too late"],
            ]))
            let atBounds = Wire.change(.notes, Wire.note(Wire.id(), sermonId: sid, text: String(repeating: "n", count: 100_000),
                                                         timestamp: 604_800))
            let longNote = Wire.change(.notes, Wire.note(Wire.id(), sermonId: sid, text: String(repeating: "é", count: 100_001)))
            let okTitle = Wire.change(.sermons, Wire.sermon(Wire.id(), title: String(repeating: "✝", count: 1_000)))
            let batch = [sermon, hugeTime, negative, longTitle, lateSegment, lateEnd, atBounds, longNote, okTitle]
            let answer = try http.push(batch)
            #expect(answer.statuses == ["applied", "rejected", "rejected", "rejected", "rejected", "rejected", "applied", "rejected",
                                        "applied"], "\(answer.results)")
            let errors = answer.results.map { $0["error"]?.stringValue ?? "" }
            #expect(errors[1].hasPrefix("record.timestamp:"), "\(errors[1])")
            #expect(errors[2].hasPrefix("record.timestamp:"), "\(errors[2])")
            #expect(errors[3].hasPrefix("record.title:"), "\(errors[3])")
            #expect(errors[4].hasPrefix("record.segments[0].start:"), "\(errors[4])")
            #expect(errors[5].hasPrefix("record.segments[1].end:"), "\(errors[5])")
            #expect(errors[7].hasPrefix("record.text:"), "\(errors[7])")

            // Exactly what applied is stored, nothing of what was rejected.
            let pulled = try http.pullAll().changes
            let ids = Set(pulled.compactMap { $0["id"]?.stringValue })
            #expect(ids == Set([sermon, atBounds, okTitle].compactMap { $0["id"]?.stringValue }), "\(pulled.map(\.text))")
            let stored = pulled.first { $0["id"] == atBounds["id"] }?["record"]
            #expect(stored?["timestamp"]?.doubleValue == 604_800 && stored?["text"]?.stringValue?.count == 100_000)
            try Self.expectAlive(server, http)
        }
    }

    @Test("the legacy API refuses a value out of bounds with 400 naming the field, and keeps nothing of the request",
          arguments: Backend.allCases)
    func legacyBounds(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let cases: [(String, JSON, String)] = [
                ("a note at 1e19 s", seedCreateBody(sermon: Wire.id(), notes: [(Wire.id(), "far away", 1e19)], transcript: nil, summary: nil),
                 "timestamp"),
                ("a 1,001-character title", {
                    var b = seedCreateBody(sermon: Wire.id(), notes: [], transcript: nil, summary: nil).objectValue ?? [:]
                    b["title"] = .string(String(repeating: "t", count: 1_001))
                    return .object(b)
                }(), "title"),
                ("a segment starting at 700,000 s", seedCreateBody(sermon: Wire.id(), notes: [], transcript: Wire.id(), summary: nil,
                                                                   segments: [["start": 700_000, "end": 700_001, "text": "late"]]),
                 "segments[0].start"),
            ]
            for (what, body, field) in cases {
                let r = try http.post("/api/create-sermon", json: body)
                expectJSONError(r, status: 400, what)
                #expect(r.json?["field"]?.stringValue?.hasSuffix(field) == true, "\(what): \(r.text)")
                #expect(r.json?["detail"]?.stringValue?.contains(field) == true, "\(what): \(r.text)")
            }
            #expect(try http.pullAll().changes.isEmpty, "nothing of a refused legacy write is kept")
            let sermons = try #require(try http.get("/api/get-sermons", headers: noCache).json?.arrayValue)
            #expect(sermons.isEmpty)

            // At the bounds it is created.
            let sid = Wire.id()
            let ok = try http.post("/api/create-sermon", json: seedCreateBody(
                sermon: sid, notes: [(Wire.id(), String(repeating: "n", count: 100_000), 604_800)], transcript: nil, summary: nil))
            #expect(ok.status == 201, "\(ok.status) \(ok.text.prefix(500))")
            try Self.expectAlive(server, http)
        }
    }

    @Test("a pull cursor or snapshot position at the largest seq answers (no overflow), on both backends",
          arguments: Backend.allCases)
    func largestCursor(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id()
            _ = try http.push([Wire.change(.sermons, Wire.sermon(sid))])
            let epoch = try #require(try http.pullPage().cursor.split(separator: ".").first.map(String.init))
            for limit in [1, 500, 5000] {
                let page = try http.pullPage(cursor: "\(epoch).\(Int64.max)", limit: limit)
                #expect(page.changes.isEmpty && page.cursor == "\(epoch).\(Int64.max)", "limit \(limit): \(page)")
            }
            let after = "\(epoch).\(Int64.max).sermons.\(sid)"
            let snap = try http.get("/v1/sync/snapshot?after=\(after)", headers: noCache)
            #expect(snap.status == 200 && snap.json?["changes"] == [], "\(snap.status) \(snap.text)")
            // One past the largest is not a cursor this server issued.
            let past = try http.get("/v1/sync/pull?cursor=\(epoch).9223372036854775808", headers: noCache)
            expectJSONError(past, status: 400, "a seq past Int64")
            try Self.expectAlive(server, http)
        }
    }

    /// The server's SQLite file, opened beside the running server (WAL: it sees the server's commits and the
    /// server sees these writes).
    static func database(_ server: ServerProcess) throws -> SQLiteConnection {
        try SQLiteConnection(path: server.database.replacingOccurrences(of: "sqlite://", with: ""), create: false)
    }

    /// Replaces the stored body of record `id` with `edit` of it, as a server from before the bounds (or a
    /// hand edit of the file) could have left it: not through any check.
    static func rewrite(_ db: SQLiteConnection, id: String, _ edit: (inout JSONObject) -> Void) throws {
        let text = try #require(try db.scalar("SELECT body FROM records WHERE id = ?", [.text(id)]).string)
        var body = try #require(try JSON.parse(text).objectValue)
        edit(&body)
        try db.run("UPDATE records SET body = ? WHERE id = ?", [.text(JSON.object(body).text), .text(id)])
    }

    @Test("values stored before the bounds (written into the SQLite file): the page, the legacy list and pulls answer; an edit of another field applies")
    func storedBeforeBounds() throws {
        try withServer(.sqlite) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id(), far = Wire.id(), stringy = Wire.id(), good = Wire.id(), tid = Wire.id(), pid = Wire.id()
            let publicId = Self.newPublicId()
            var publication = Self.publication(publicId: publicId, snapshot: ["title": "Before the bounds", "notes": []],
                                               parts: ["notes", "transcript"])
            publication["id"] = .string(pid)
            publication["sermonId"] = .string(sid)
            let answer = try http.push([
                Wire.change(.sermons, Wire.sermon(sid, title: "Old sermon")),
                Wire.change(.notes, Wire.note(far, sermonId: sid, text: "far away", timestamp: 10)),
                Wire.change(.notes, Wire.note(stringy, sermonId: sid, text: "a time in words", timestamp: 11)),
                Wire.change(.notes, Wire.note(good, sermonId: sid, text: "in time", timestamp: 12)),
                Wire.change(.transcripts, Wire.transcript(tid, sermonId: sid)),
                Wire.change(.publications, publication),
            ])
            #expect(answer.statuses == Array(repeating: "applied", count: 6), "\(answer.results)")

            let db = try Self.database(server)
            let longTitle = String(repeating: "T", count: 2_000)
            try Self.rewrite(db, id: sid) { $0["title"] = .string(longTitle) }
            try Self.rewrite(db, id: far) { $0["timestamp"] = 1e19 }
            try Self.rewrite(db, id: stringy) { $0["timestamp"] = "ten past" }
            try Self.rewrite(db, id: tid) { $0["segments"] = [["start": 1.7e308, "end": -3, "text": "stored late"]] }
            try Self.rewrite(db, id: pid) {
                $0["parts"] = [1, "notes", .null, ["transcript"], "transcript"]
                $0["snapshot"] = ["title": "Before the bounds", "notes": [["timestamp": 1e19, "text": "published far away"]],
                                  "transcript": ["text": "t", "segments": [["start": 1e19, "text": "published late"]]]]
            }

            let html = try Self.page(http, "/p/\(publicId)").text
            #expect(html.contains("<time class=\"at\">\(ClockTime.format(1e19))</time><span class=\"text\">published far away</span>"))
            #expect(html.contains("published late"), "junk among the parts leaves the good ones: \(html)")
            #expect(try Self.page(http, "/p/\(publicId).json").json?["notes"]?.arrayValue?.count == 1)

            let legacy = try #require(try Self.page(http, "/api/get-sermons").json?.arrayValue?.first)
            #expect(legacy["title"]?.stringValue == longTitle)
            #expect(legacy["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["a time in words", "in time", "far away"],
                    "a time that is not a number orders as 0: \(legacy["notes"]?.text ?? "")")
            #expect(legacy["transcript"]?["segments"]?.arrayValue?.first?["start"]?.doubleValue == 1.7e308)
            // (The log keeps each version as it was pushed: the file's trigger copied the old body into it on the
            // rewrite. The records as they are now come by a snapshot.)
            #expect(try http.pullAll().changes.count == 6)
            let snapshot = try Self.page(http, "/v1/sync/snapshot?limit=5000").json?["changes"]?.arrayValue ?? []
            #expect(snapshot.first { $0["id"] == .string(far) }?["record"]?["timestamp"]?.doubleValue == 1e19)
            #expect(snapshot.first { $0["id"] == .string(stringy) }?["record"]?["timestamp"] == "ten past")

            // An edit of another field of such a record applies; a new value out of bounds does not.
            let edited = Wire.note(far, sermonId: sid, text: "far away, edited", timestamp: 1e19, updatedAt: Wire.time(60))
            let moved = Wire.note(far, sermonId: sid, text: "far away, moved", timestamp: 2e19, updatedAt: Wire.time(120))
            var renamed = Wire.sermon(sid, title: longTitle, updatedAt: Wire.time(60))
            renamed["speaker"] = "Someone else"
            let edits = try http.push([Wire.change(.notes, edited), Wire.change(.notes, moved), Wire.change(.sermons, renamed)])
            #expect(edits.statuses == ["applied", "rejected", "applied"], "\(edits.results)")
            let update = try http.post("/api/update-sermon", json: ["remoteId": .string(sid), "speaker": "A third speaker"])
            #expect(update.status == 200, "a legacy edit of another field of a sermon with a stored long title: \(update.text.prefix(500))")
            try Self.expectAlive(server, http)
        }
    }
}
