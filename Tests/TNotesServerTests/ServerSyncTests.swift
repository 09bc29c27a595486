import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// Push/pull of contract §4 against a real tnotes-server, the same tests on SQLite and PostgreSQL.
// Every test starts its own server with its own database.

/// The latest pulled change of each record id (the state a device ends up with).
func latestById(_ changes: [JSON]) -> JSONObject {
    var out = JSONObject()
    for c in changes { if let id = c["id"]?.stringValue { out[id] = c } }
    return out
}

/// The `seq` values of pulled changes.
func seqs(_ changes: [JSON]) -> [Int64] { changes.map { $0["seq"]?.int64Value ?? -1 } }

/// Expects a 4xx/5xx answer with a JSON body holding non-empty `error` and `detail` strings.
func expectJSONError(_ r: HTTPResponse, status: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(r.status == status, "\(what): status \(r.status), body \(r.text)", sourceLocation: sourceLocation)
    let error = r.json?["error"]?.stringValue ?? ""
    let detail = r.json?["detail"]?.stringValue ?? ""
    #expect(!error.isEmpty && !detail.isEmpty, "\(what): body is not {error, detail}: \(r.text)", sourceLocation: sourceLocation)
}

@Suite("tnotes-server sync: push and pull")
struct ServerSyncTests {
    @Test("push/pull round trip of all five collections; paged by limit; seq strictly increasing, gap-free",
          arguments: Backend.allCases)
    func roundTrip(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let s1 = Wire.id(), s2 = Wire.id()
            let audio: JSON = ["fileName": "recording.m4a", "sizeBytes": 5_242_880,
                               "sha256": .string(String(repeating: "0123456789abcdef", count: 4))]
            let records: [(RecordCollection, JSONObject)] = [
                (.sermons, Wire.sermon(s1, title: "Romans 8", audio: audio)),
                (.sermons, Wire.sermon(s2, title: "Psalm 23 — \"The Lord is my shepherd\"\nline two", speaker: nil)),
                (.notes, Wire.note(Wire.id(), sermonId: s1, text: "Key point about scripture", timestamp: 120.5)),
                (.notes, Wire.note(Wire.id(), sermonId: s1, text: "Römer 8,28 ✝", timestamp: 0)),
                (.notes, Wire.note(Wire.id(), sermonId: s2, text: "", timestamp: 3600)),
                (.transcripts, Wire.transcript(Wire.id(), sermonId: s1)),
                (.transcripts, Wire.transcript(Wire.id(), sermonId: s2, segments: [])),
                (.summaries, Wire.summary(Wire.id(), sermonId: s1)),
                (.chatMessages, Wire.chat(Wire.id(), sermonId: s1, role: "user", content: "What is grace?")),
                (.chatMessages, Wire.chat(Wire.id(), sermonId: s1, role: "assistant", content: "Unmerited favour.",
                                          createdAt: Wire.time(1.5), deviceId: "devA")),
            ]
            let changes = records.map { Wire.change($0.0, $0.1, deviceId: "devA") }
            let pushed = try http.push(changes)
            #expect(pushed.results.map { $0["opId"] } == changes.map { $0["opId"] }, "one result per change, in order")
            #expect(pushed.statuses == Array(repeating: "applied", count: changes.count), "\(pushed.results)")

            // Page through with a small limit: every page but the last is full and says hasMore.
            var pulled = [JSON]()
            var cursor: String?
            var pages = 0
            while true {
                let page = try http.pullPage(cursor: cursor, limit: 3)
                pages += 1
                pulled += page.changes
                cursor = page.cursor
                if !page.hasMore { break }
                #expect(page.changes.count == 3, "a page with hasMore must be full")
                if pages > 20 { Issue.record("paging never ended"); break }
            }
            #expect(pages == 4, "10 changes at limit 3 are 4 pages")
            #expect(pulled.count == changes.count)
            #expect(seqs(pulled) == Array(1...Int64(changes.count)), "seq strictly increasing and gap-free: \(seqs(pulled))")

            // Each pulled change is the pushed one, record field for field.
            let byId = latestById(pulled)
            for (collection, record) in records {
                let id = record["id"]!.stringValue!
                guard let got = byId[id] else { Issue.record("\(collection) \(id) was not pulled"); continue }
                #expect(got["collection"]?.stringValue == collection.rawValue)
                #expect(got["op"] == "upsert")
                #expect(got["deviceId"] == "devA")
                #expect(got["updatedAt"]?.stringValue == (record["updatedAt"] ?? record["createdAt"])?.stringValue)
                #expect(Wire.canonical(got["record"] ?? .null) == Wire.canonical(.object(record)),
                        "\(collection) record changed on the way: pushed \(JSON.object(record).text) pulled \(got["record"]?.text ?? "nil")")
            }
            let transcript = pulled.first { $0["collection"] == "transcripts" && $0["record"]?["sermonId"]?.stringValue == s1 }
            #expect(transcript?["record"]?["segments"]?.arrayValue?.count == 3, "segments stay a real array")
            #expect(Wire.canonical(transcript?["record"]?["segments"] ?? .null) == Wire.canonical(Wire.sampleSegments))

            // Nothing after the last cursor, nor after the cursor the push answered.
            let tail = try http.pullPage(cursor: cursor)
            #expect(tail.changes.isEmpty && !tail.hasMore)
            let afterPush = try http.pullPage(cursor: pushed.cursor)
            #expect(afterPush.changes.isEmpty && !afterPush.hasMore, "push cursor \(pushed.cursor ?? "nil") is not the end")

            // A later push continues the sequence; the old cursor yields exactly the new changes.
            let later = [
                Wire.change(.sermons, Wire.sermon(s2, title: "Psalm 23 (edited)", updatedAt: Wire.time(60)), deviceId: "devB"),
                Wire.change(.summaries, Wire.summary(Wire.id(), sermonId: s2, updatedAt: Wire.time(61)), deviceId: "devB"),
            ]
            #expect(try http.push(later).statuses == ["applied", "applied"])
            let more = try http.pullAll(from: cursor, limit: 1)
            #expect(seqs(more.changes) == [11, 12])
            #expect(more.changes.map { $0["id"] } == later.map { $0["id"] })
            #expect(more.changes.first?["deviceId"] == "devB")

            // A pull without a cursor starts at the beginning and sees all twelve (default limit).
            let everything = try http.pullAll()
            #expect(seqs(everything.changes) == Array(1...12))
        }
    }

    @Test("same batch pushed twice: second time all duplicate, pulled once; a chat message again is duplicate",
          arguments: Backend.allCases)
    func idempotentOpIds(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let s = Wire.id(), chatId = Wire.id()
            let batch = [
                Wire.change(.sermons, Wire.sermon(s)),
                Wire.change(.notes, Wire.note(Wire.id(), sermonId: s)),
                Wire.change(.transcripts, Wire.transcript(Wire.id(), sermonId: s)),
                Wire.change(.summaries, Wire.summary(Wire.id(), sermonId: s)),
                Wire.change(.chatMessages, Wire.chat(chatId, sermonId: s)),
            ]
            #expect(try http.push(batch).statuses == Array(repeating: "applied", count: 5))
            let again = try http.push(batch)
            #expect(again.statuses == Array(repeating: "duplicate", count: 5), "\(again.results)")
            #expect(again.results.map { $0["opId"] } == batch.map { $0["opId"] })

            // The same op id twice inside one batch: the second is a duplicate.
            let n = Wire.change(.notes, Wire.note(Wire.id(), sermonId: s, text: "once"))
            #expect(try http.push([n, n]).statuses == ["applied", "duplicate"])

            // A chat message pushed again under a new op id (even with other content) is a duplicate.
            let chatAgain = Wire.change(.chatMessages, Wire.chat(chatId, sermonId: s))
            #expect(try http.push([chatAgain]).statuses == ["duplicate"])
            let chatChanged = Wire.change(.chatMessages, Wire.chat(chatId, sermonId: s, content: "edited?", deviceId: "devB"),
                                          deviceId: "devB")
            #expect(try http.push([chatChanged]).statuses == ["duplicate"])

            let pulled = try http.pullAll().changes
            #expect(pulled.count == 6, "each change once: \(pulled.map { $0["collection"]?.stringValue ?? "" })")
            #expect(Set(pulled.compactMap { $0["id"]?.stringValue }).count == 6)
            #expect(seqs(pulled) == Array(1...6))
            let chat = pulled.first { $0["id"]?.stringValue == chatId }
            #expect(chat?["record"]?["content"] == "What is grace?", "an append-only message never changes")
        }
    }

    /// One batch in which later changes depend on earlier ones: PostgreSQL merges a batch set-wise (a few
    /// statements for the whole batch), and must give exactly the verdicts of one-at-a-time merging.
    @Test("one batch: a record written twice, an older write, a repeated op id, a chat message twice, a delete",
          arguments: Backend.allCases)
    func dependentChangesInOneBatch(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let s = Wire.id(), n = Wire.id(), chat = Wire.id()
            let first = Wire.change(.notes, Wire.note(n, sermonId: s, text: "v1", updatedAt: Wire.time(10)))
            let batch = [
                Wire.change(.sermons, Wire.sermon(s)),
                first,
                Wire.change(.notes, Wire.note(n, sermonId: s, text: "v2", updatedAt: Wire.time(20))),
                Wire.change(.notes, Wire.note(n, sermonId: s, text: "older", updatedAt: Wire.time(15))),
                first,
                Wire.change(.chatMessages, Wire.chat(chat, sermonId: s)),
                Wire.change(.chatMessages, Wire.chat(chat, sermonId: s, content: "again")),
                Wire.change(.notes, Wire.note(n, sermonId: s, text: "v2", updatedAt: Wire.time(30), deletedAt: Wire.time(30))),
                Wire.change(.notes, Wire.note(n, sermonId: s, text: "v2", updatedAt: Wire.time(20))),
            ]
            let answer = try http.push(batch)
            #expect(answer.statuses == ["applied", "applied", "applied", "superseded", "duplicate", "applied", "duplicate",
                                        "applied", "superseded"], "\(answer.results)")
            let pulled = try http.pullAll().changes
            #expect(seqs(pulled) == Array(1...5))
            let noteLog = pulled.filter { $0["id"]?.stringValue == n }
            #expect(noteLog.map { $0["op"] } == ["upsert", "upsert", "delete"])
            #expect(noteLog.map { $0["record"]?["text"] } == ["v1", "v2", "v2"])
            #expect(noteLog.last?["record"]?["deletedAt"] == .string(Wire.time(30)))
            #expect(pulled.first { $0["id"]?.stringValue == chat }?["record"]?["content"] == "What is grace?")

            // The stored version is the batch's last applied one: a later push compares against it.
            let late = Wire.change(.notes, Wire.note(n, sermonId: s, text: "v3", updatedAt: Wire.time(25)))
            #expect(try http.push([late]).statuses == ["superseded"])
            let newer = Wire.change(.notes, Wire.note(n, sermonId: s, text: "v4", updatedAt: Wire.time(40)))
            #expect(try http.push([newer]).statuses == ["applied"])
            // The whole batch again: every op id is known.
            #expect(try http.push(batch).statuses == Array(repeating: "duplicate", count: batch.count))
            #expect(try http.pullAll().changes.count == 6)
        }
    }

    @Test("every logged version pulls with its own body after its record moved on (a body is stored once); a base among them merges",
          arguments: Backend.allCases)
    func olderVersionsKeepTheirBodies(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let s = Wire.id(), n = Wire.id()
            func push(_ text: String, at t: Double, deleted: Bool = false) throws -> [String] {
                try http.push([Wire.change(.notes, Wire.note(n, sermonId: s, text: text, updatedAt: Wire.time(t),
                                                             deletedAt: deleted ? Wire.time(t) : nil))]).statuses
            }
            #expect(try http.push([Wire.change(.sermons, Wire.sermon(s))]).statuses == ["applied"])
            #expect(try push("v1", at: 10) == ["applied"])
            #expect(try push("v2", at: 20) == ["applied"])
            #expect(try push("v2", at: 30, deleted: true) == ["applied"])
            #expect(try push("v4", at: 40) == ["applied"])
            // Two versions in one batch: the first is never the record's, the second is.
            #expect(try http.push([Wire.change(.notes, Wire.note(n, sermonId: s, text: "v5", updatedAt: Wire.time(50))),
                                   Wire.change(.notes, Wire.note(n, sermonId: s, text: "v6", updatedAt: Wire.time(60)))]).statuses
                    == ["applied", "applied"])
            for limit in [1, 100] {
                let log = try http.pullAll(from: nil, limit: limit).changes.filter { $0["id"]?.stringValue == n }
                #expect(log.map { $0["record"]?["text"]?.stringValue } == ["v1", "v2", "v2", "v4", "v5", "v6"])
                #expect(log.map { $0["record"]?["updatedAt"]?.stringValue } == [10, 20, 30, 40, 50, 60].map { Wire.time(Double($0)) })
            }
            // An edit made on v2 finds it as its base: a three-way merge, not the plain rule's "applied".
            var onV2 = Wire.change(.notes, Wire.note(n, sermonId: s, text: "v2 edited", updatedAt: Wire.time(70)),
                                   deviceId: "devB").objectValue ?? [:]
            onV2["base"] = ["updatedAt": .string(Wire.time(20)), "deviceId": "devA"]
            let merged = try http.push([.object(onV2)], deviceId: "devB")
            #expect(merged.statuses == ["merged"], "\(merged.results)")
            let log = try http.pullAll().changes.filter { $0["id"]?.stringValue == n }
            #expect(log.dropLast().map { $0["record"]?["text"]?.stringValue } == ["v1", "v2", "v2", "v4", "v5", "v6"])
        }
    }

    @Test("LWW by (updatedAt, deviceId): devB beats devA at the same time in either order; older is superseded",
          arguments: Backend.allCases)
    func lastWriterWins(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let s1 = Wire.id(), s2 = Wire.id(), s3 = Wire.id(), n = Wire.id()
            func version(_ id: String, _ title: String, _ device: String, at: String = Wire.t0) -> JSON {
                Wire.change(.sermons, Wire.sermon(id, title: title, updatedAt: at), deviceId: device)
            }
            // devA first, then devB: devB applies.
            #expect(try http.push([version(s1, "from A", "devA")]).statuses == ["applied"])
            #expect(try http.push([version(s1, "from B", "devB")]).statuses == ["applied"])
            // devB first, then devA: devA is superseded.
            #expect(try http.push([version(s2, "from B", "devB")]).statuses == ["applied"])
            #expect(try http.push([version(s2, "from A", "devA")]).statuses == ["superseded"])
            // Both in one batch, devB first.
            #expect(try http.push([version(s3, "from B", "devB"), version(s3, "from A", "devA")]).statuses
                    == ["applied", "superseded"])
            // The same on a child record.
            let noteB = Wire.change(.notes, Wire.note(n, sermonId: s1, text: "from B"), deviceId: "devB")
            let noteA = Wire.change(.notes, Wire.note(n, sermonId: s1, text: "from A"), deviceId: "devA")
            #expect(try http.push([noteB]).statuses == ["applied"])
            #expect(try http.push([noteA]).statuses == ["superseded"])
            // An older updatedAt loses whatever its device id.
            #expect(try http.push([version(s1, "older", "devZ", at: Wire.time(-60))]).statuses == ["superseded"])
            #expect(try http.push([Wire.change(.notes, Wire.note(n, sermonId: s1, text: "older", updatedAt: Wire.time(-1)),
                                               deviceId: "devZ")]).statuses == ["superseded"])

            let pulled = try http.pullAll().changes
            let latest = latestById(pulled)
            for id in [s1, s2, s3] {
                #expect(latest[id]?["record"]?["title"] == "from B", "\(id): \(latest[id]?.text ?? "nil")")
                #expect(latest[id]?["deviceId"] == "devB")
            }
            #expect(latest[n]?["record"]?["text"] == "from B")
            let titles = pulled.compactMap { $0["record"]?["title"]?.stringValue ?? $0["record"]?["text"]?.stringValue }
            #expect(!titles.contains("older"), "a superseded version is never handed out")
            #expect(pulled.filter { $0["id"]?.stringValue == s2 || $0["id"]?.stringValue == s3 }.count == 2,
                    "the losing versions of s2/s3 are not in the log")

            // A later version from devA wins again.
            #expect(try http.push([version(s1, "later A", "devA", at: Wire.time(1))]).statuses == ["applied"])
            let sermons = try http.get("/api/get-sermons", headers: noCache).json?.arrayValue ?? []
            let titleOf = { (id: String) in sermons.first { $0["localId"]?.stringValue == id }?["title"]?.stringValue }
            #expect(titleOf(s1) == "later A")
            #expect(titleOf(s2) == "from B")
        }
    }

    @Test("tombstones: a delete with deletedAt is pulled as a delete; one without is rejected, the rest applies",
          arguments: Backend.allCases)
    func tombstones(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let s = Wire.id(), n1 = Wire.id(), n2 = Wire.id(), sum = Wire.id()
            #expect(try http.push([
                Wire.change(.sermons, Wire.sermon(s)),
                Wire.change(.notes, Wire.note(n1, sermonId: s, text: "first")),
                Wire.change(.notes, Wire.note(n2, sermonId: s, text: "second")),
            ]).statuses == ["applied", "applied", "applied"])
            let cursor = try http.pullAll().cursor

            let tombstone = Wire.note(n1, sermonId: s, text: "first", updatedAt: Wire.time(10), deletedAt: Wire.time(10))
            let noTombstone = Wire.change(.notes, Wire.note(n2, sermonId: s, text: "second", updatedAt: Wire.time(10)), op: "delete")
            let other = Wire.change(.summaries, Wire.summary(sum, sermonId: s, updatedAt: Wire.time(10)))
            let answer = try http.push([Wire.change(.notes, tombstone, op: "delete"), noTombstone, other])
            #expect(answer.statuses == ["applied", "rejected", "applied"], "\(answer.results)")
            let error = answer.results[1]["error"]?.stringValue ?? ""
            #expect(!error.isEmpty, "a rejected change says why")
            #expect(answer.results[0]["error"] == nil && answer.results[2]["error"] == nil)

            let pulled = try http.pullAll(from: cursor).changes
            #expect(pulled.map { $0["id"] } == [.string(n1), .string(sum)], "the rejected change is not in the log")
            let delete = pulled.first
            #expect(delete?["op"] == "delete")
            #expect(delete?["record"]?["deletedAt"]?.stringValue == Wire.time(10))
            #expect(Wire.canonical(delete?["record"] ?? .null) == Wire.canonical(.object(tombstone)))

            // The tombstone is a version like any other: an older upsert cannot bring the note back.
            #expect(try http.push([Wire.change(.notes, Wire.note(n1, sermonId: s, text: "back?", updatedAt: Wire.time(5)))])
                .statuses == ["superseded"])
            // get-sermons shows live notes only.
            let legacy = try http.get("/api/get-sermons", headers: noCache).json?.arrayValue?.first
            #expect(legacy?["notes"]?.arrayValue?.map { $0["localId"] } == [.string(n2)])

            // A sermon tombstone, then its pull.
            let sermonGone = Wire.sermon(s, updatedAt: Wire.time(20), deletedAt: Wire.time(20))
            #expect(try http.push([Wire.change(.sermons, sermonGone)]).statuses == ["applied"])
            let last = try http.pullAll(from: cursor).changes.last
            #expect(last?["op"] == "delete" && last?["collection"] == "sermons")
            #expect(last?["record"]?["deletedAt"]?.stringValue == Wire.time(20))
            #expect(try http.get("/api/get-sermons", headers: noCache).json?.arrayValue?.isEmpty == true)
        }
    }

    @Test("malformed JSON → 400 {error, detail}; an unknown collection or a bad record is rejected per change",
          arguments: Backend.allCases)
    func malformedAndRejected(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let json = ["Content-Type": "application/json"]
            for text in ["{\"changes\": [", "not json", "{\"changes\": [],}", "", "{\"deviceId\": \"a\"} trailing"] {
                let r = try http.request("POST", "/v1/sync/push", body: Data(text.utf8), headers: json)
                expectJSONError(r, status: 400, "push of \(text.debugDescription)")
            }
            expectJSONError(try http.request("POST", "/api/create-sermon", body: Data("{\"localId\":".utf8), headers: json),
                            status: 400, "legacy create-sermon with malformed JSON")
            expectJSONError(try http.post("/v1/sync/push", json: ["deviceId": "a", "changes": 5]), status: 400,
                            "changes that are not an array")
            expectJSONError(try http.get("/v1/sync/pull?limit=zero", headers: noCache), status: 400, "a bad limit")

            let s = Wire.id()
            var unknown = Wire.change(.notes, Wire.note(Wire.id(), sermonId: s))
            if case .object(var o) = unknown { o["collection"] = "prayers"; unknown = .object(o) }
            let stringSegments = Wire.change(.transcripts, Wire.transcript(Wire.id(), sermonId: s,
                                                                           segments: .string(Wire.sampleSegments.text)))
            let badUUID = Wire.change(.sermons, Wire.sermon("not-a-uuid"))
            let answer = try http.push([
                Wire.change(.sermons, Wire.sermon(s)), unknown, stringSegments, badUUID,
                Wire.change(.notes, Wire.note(Wire.id(), sermonId: s)),
            ])
            #expect(answer.statuses == ["applied", "rejected", "rejected", "rejected", "applied"], "\(answer.results)")
            #expect(answer.results[1]["error"]?.stringValue?.contains("collection") == true, "\(answer.results[1])")
            #expect(answer.results[2]["error"]?.stringValue?.contains("segments") == true, "\(answer.results[2])")
            let pulled = try http.pullAll().changes
            #expect(pulled.count == 2)
            #expect(seqs(pulled) == [1, 2], "rejected changes take no seq")
        }
    }
}
