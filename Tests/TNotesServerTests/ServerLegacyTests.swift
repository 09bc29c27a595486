import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// The seed-000 legacy endpoints (contract §4, §7; docs/seed-bugs.md §2) and how they meet /v1, on both backends.

/// A create-sermon body exactly in the seed §5.1 shape.
func seedCreateBody(sermon: String, notes: [(id: String, text: String, timestamp: JSON)], transcript: String?,
                    summary: String?, segments: JSON = Wire.sampleSegments) -> JSON
{
    var body: JSONObject = [
        "localId": .string(sermon), "title": "Sunday Service", "audioFilePath": "user-id/filename.m4a",
        "audioFileUrl": "https://example.invalid/filename.m4a", "audioFileName": "recording.m4a",
        "audioFileSizeBytes": 5_242_880, "date": "2025-11-06T10:00:00Z", "serviceType": "Sunday Service",
        "speaker": "Pastor John", "transcriptionStatus": "processing", "summaryStatus": "processing", "isArchived": false,
        "notes": .array(notes.map { ["id": .string($0.id), "text": .string($0.text), "timestamp": $0.timestamp] }),
    ]
    if let transcript {
        body["transcript"] = ["id": .string(transcript), "text": "Full transcribed text...", "segments": segments,
                              "status": "complete"]
    }
    if let summary {
        body["summary"] = ["id": .string(summary), "title": "Summary Title", "text": "Summary text...", "type": "devotional",
                           "status": "complete"]
    }
    return .object(body)
}

@Suite("tnotes-server legacy API")
struct ServerLegacyTests {
    @Test("create-sermon → 201 with the §5.3 sermon; it appears in /v1 pull as sermon/notes/transcript/summary",
          arguments: Backend.allCases)
    func createSermonThenPull(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id(), n1 = Wire.id(), tid = Wire.id(), sumId = Wire.id()
            let r = try http.post("/api/create-sermon", json: seedCreateBody(
                sermon: sid, notes: [(n1, "Key point about scripture", 120.5)], transcript: tid, summary: sumId))
            #expect(r.status == 201, "create-sermon: \(r.status) \(r.text)")
            let s = r.json ?? .null
            #expect(s.objectValue != nil, "the answer is one sermon object: \(r.text)")
            #expect(s["localId"]?.stringValue == sid)
            #expect(s["id"]?.stringValue.map(Identifier.isUUID) == true)
            #expect(s["title"] == "Sunday Service")
            #expect(s["serviceType"] == "Sunday Service")
            #expect(s["speaker"] == "Pastor John")
            #expect(s["transcriptionStatus"] == "processing")
            #expect(s["summaryStatus"] == "processing")
            #expect(s["isArchived"] == false)
            #expect(s["date"]?.stringValue.flatMap(Timestamp.canonical) == Wire.t0)
            #expect(s["updatedAt"]?.stringValue != nil)
            let notes = s["notes"]?.arrayValue ?? []
            #expect(notes.count == 1)
            #expect(notes.first?["localId"]?.stringValue == n1)
            #expect(notes.first?["id"]?.stringValue != nil)
            #expect(notes.first?["text"] == "Key point about scripture")
            #expect(notes.first?["timestamp"]?.doubleValue == 120.5)
            #expect(s["transcript"]?["localId"]?.stringValue == tid)
            #expect(s["transcript"]?["text"] == "Full transcribed text...")
            #expect(s["transcript"]?["status"] == "complete")
            #expect(s["transcript"]?["segments"]?.arrayValue != nil, "segments must be an array: \(s["transcript"]?.text ?? "nil")")
            #expect(Wire.canonical(s["transcript"]?["segments"] ?? .null) == Wire.canonical(Wire.sampleSegments))
            #expect(s["summary"]?["localId"]?.stringValue == sumId)
            #expect(s["summary"]?["type"] == "devotional")
            #expect(s["summary"]?["title"] == "Summary Title")

            let pulled = try http.pullAll().changes
            #expect(seqs(pulled) == Array(1...Int64(pulled.count)))
            let by = Dictionary(grouping: pulled) { $0["collection"]?.stringValue ?? "" }
            #expect(by["sermons"]?.map { $0["id"] } == [.string(sid)])
            #expect(by["notes"]?.map { $0["id"] } == [.string(n1)])
            #expect(by["transcripts"]?.map { $0["id"] } == [.string(tid)])
            #expect(by["summaries"]?.map { $0["id"] } == [.string(sumId)])
            #expect(by["chatMessages"] == nil)
            #expect(pulled.allSatisfy { $0["op"] == "upsert" })
            let sermon = by["sermons"]?.first?["record"]
            #expect(sermon?["title"] == "Sunday Service" && sermon?["speaker"] == "Pastor John")
            #expect(sermon?["date"]?.stringValue == Wire.t0)
            let note = by["notes"]?.first?["record"]
            #expect(note?["sermonId"]?.stringValue == sid && note?["text"] == "Key point about scripture")
            #expect(note?["timestamp"]?.doubleValue == 120.5)
            let transcript = by["transcripts"]?.first?["record"]
            #expect(transcript?["sermonId"]?.stringValue == sid)
            #expect(Wire.canonical(transcript?["segments"] ?? .null) == Wire.canonical(Wire.sampleSegments))
            let summary = by["summaries"]?.first?["record"]
            #expect(summary?["sermonId"]?.stringValue == sid && summary?["text"] == "Summary text...")
            // Each pulled record passes the same schema a device would apply it with.
            for c in pulled {
                let change = try? Change(json: c.objectValue.map { o in .object(o.filter { $0.key != "seq" }) } ?? .null,
                                         requireOpId: false)
                #expect(change != nil, "pulled change does not validate: \(c.text)")
            }
        }
    }

    @Test("/v1 sermon, then LATER pushes of notes, transcript, summary → get-sermons shows all (seed-000 bug); userId ignored",
          arguments: Backend.allCases)
    func v1ChildrenShowInGetSermons(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"]) { server, tokens in
            let a = server.client(tokens["alice"]), b = server.client(tokens["bob"])
            let s = Wire.id(), n1 = Wire.id(), n2 = Wire.id(), tid = Wire.id(), sumId = Wire.id()
            #expect(try a.push([Wire.change(.sermons, Wire.sermon(s, title: "Romans 8"))]).statuses == ["applied"])
            // Before children exist.
            let bare = try a.get("/api/get-sermons?userId=whatever", headers: noCache).json?.arrayValue
            #expect(bare?.count == 1)
            #expect(bare?.first?["notes"]?.arrayValue?.isEmpty == true)
            #expect(bare?.first?["transcript"] == .null && bare?.first?["summary"] == .null)

            // The children come later, each in its own push, the sermon itself unchanged.
            #expect(try a.push([Wire.change(.notes, Wire.note(n2, sermonId: s, text: "second", timestamp: 300, updatedAt: Wire.time(60))),
                                Wire.change(.notes, Wire.note(n1, sermonId: s, text: "first", timestamp: 12.5, updatedAt: Wire.time(60)))])
                .statuses == ["applied", "applied"])
            #expect(try a.push([Wire.change(.transcripts, Wire.transcript(tid, sermonId: s, updatedAt: Wire.time(120)))])
                .statuses == ["applied"])
            #expect(try a.push([Wire.change(.summaries, Wire.summary(sumId, sermonId: s, updatedAt: Wire.time(180)))])
                .statuses == ["applied"])

            let list = try a.get("/api/get-sermons?userId=whatever", headers: noCache)
            #expect(list.status == 200)
            let sermons = list.json?.arrayValue ?? []
            #expect(sermons.count == 1)
            let got = sermons.first ?? .null
            #expect(got["localId"]?.stringValue == s && got["title"] == "Romans 8")
            let notes = got["notes"]?.arrayValue ?? []
            #expect(Set(notes.compactMap { $0["localId"]?.stringValue }) == [n1, n2], "notes pushed later are missing: \(list.text)")
            #expect(notes.first { $0["localId"]?.stringValue == n1 }?["timestamp"]?.doubleValue == 12.5)
            #expect(notes.first { $0["localId"]?.stringValue == n2 }?["text"] == "second")
            #expect(got["transcript"]?["localId"]?.stringValue == tid, "transcript pushed later is missing: \(list.text)")
            #expect(got["transcript"]?["segments"]?.arrayValue?.count == 3)
            #expect(Wire.canonical(got["transcript"]?["segments"] ?? .null) == Wire.canonical(Wire.sampleSegments))
            #expect(got["summary"]?["localId"]?.stringValue == sumId, "summary pushed later is missing: \(list.text)")
            #expect(got["summary"]?["text"] == "Summary text...")

            // userId is ignored: Bob, naming Alice's userId or none, sees only his own (nothing).
            let aliceId = got["userId"]?.stringValue ?? "1"
            for q in ["?userId=\(aliceId)", "?userId=whatever", ""] {
                let r = try b.get("/api/get-sermons\(q)", headers: noCache)
                #expect(r.status == 200 && r.json == .array([]), "bob get-sermons\(q): \(r.text)")
            }
        }
    }

    @Test("update-sermon replaces notes as a set (missing one pulled as a delete), upserts the transcript, parses string segments",
          arguments: Backend.allCases)
    func updateSermon(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id(), n1 = Wire.id(), n2 = Wire.id(), n3 = Wire.id(), tid = Wire.id()
            let created = try http.post("/api/create-sermon", json: seedCreateBody(
                sermon: sid, notes: [(n1, "one", 10), (n2, "two", 20)], transcript: tid, summary: nil, segments: .null))
            #expect(created.status == 201, "create-sermon: \(created.text)")
            #expect(created.json?["transcript"]?["segments"] == .array([]), "null segments become an empty array")
            let remoteId = created.json?["id"]?.stringValue ?? sid
            let cursor = try http.pullAll().cursor

            let newSegments: JSON = [["start": 0, "end": 1.5, "text": "Amen."], ["start": 1.5, "end": 3, "text": "Let us pray."]]
            let update: JSON = [
                "remoteId": .string(remoteId), "localId": .string(sid), "title": "Renamed", "serviceType": "Sunday Service",
                "speaker": "Pastor John", "transcriptionStatus": "complete", "summaryStatus": "processing", "isArchived": false,
                "date": "2025-11-06T10:00:00Z",
                "notes": [["id": .string(n1), "text": "one (edited)", "timestamp": 10],
                          ["id": .string(n3), "text": "three", "timestamp": 60.25]],
                "transcript": ["id": .string(tid), "text": "Revised text", "segments": .string(newSegments.text),
                               "status": "complete"],
            ]
            let r = try http.post("/api/update-sermon", json: update)
            #expect(r.status == 200, "update-sermon: \(r.status) \(r.text)")

            let got = try http.get("/api/get-sermons", headers: noCache).json?.arrayValue?.first ?? .null
            #expect(got["title"] == "Renamed")
            #expect(got["transcriptionStatus"] == "complete")
            let notes = got["notes"]?.arrayValue ?? []
            #expect(Set(notes.compactMap { $0["localId"]?.stringValue }) == [n1, n3], "notes after update: \(got.text)")
            #expect(notes.first { $0["localId"]?.stringValue == n1 }?["text"] == "one (edited)")
            #expect(got["transcript"]?["localId"]?.stringValue == tid, "the transcript is upserted, not replaced")
            #expect(got["transcript"]?["text"] == "Revised text")
            #expect(got["transcript"]?["segments"]?.arrayValue != nil, "segments stored as a string: \(got["transcript"]?.text ?? "")")
            #expect(Wire.canonical(got["transcript"]?["segments"] ?? .null) == Wire.canonical(newSegments))

            let pulled = try http.pullAll(from: cursor).changes
            #expect(seqs(pulled).count == pulled.count && seqs(pulled) == seqs(pulled).sorted())
            let latest = latestById(pulled)
            #expect(latest[n2]?["op"] == "delete", "the dropped note is pulled as a delete: \(JSON.array(pulled).text)")
            #expect(latest[n2]?["record"]?["deletedAt"]?.stringValue != nil)
            #expect(latest[n1]?["op"] == "upsert" && latest[n1]?["record"]?["text"] == "one (edited)")
            #expect(latest[n3]?["op"] == "upsert" && latest[n3]?["record"]?["timestamp"]?.doubleValue == 60.25)
            #expect(latest[n3]?["record"]?["sermonId"]?.stringValue == sid)
            #expect(latest[tid]?["record"]?["segments"]?.arrayValue != nil)
            #expect(Wire.canonical(latest[tid]?["record"]?["segments"] ?? .null) == Wire.canonical(newSegments))
            #expect(latest[sid]?["record"]?["title"] == "Renamed")
            #expect(pulled.filter { $0["collection"] == "transcripts" }.allSatisfy { $0["id"]?.stringValue == tid },
                    "one transcript per sermon")

            // The same update again is fine.
            #expect(try http.post("/api/update-sermon", json: update).status == 200)
            // An unknown sermon answers 404.
            let unknown = Wire.id()
            expectJSONError(try http.post("/api/update-sermon", json: ["remoteId": .string(unknown), "localId": .string(unknown),
                                                                        "title": "x"]), status: 404, "update of an unknown sermon")
        }
    }
}
