import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Integration tests of the record methods of contract §2 (and §7's clarifications) against a real tnotesd.
// Every test runs its own daemon in its own temp dir.

// MARK: - Helpers (fileprivate: other test files of this target may use the same names)

/// Runs `body` with a fresh daemon and a client, then stops the daemon and expects exit status 0.
fileprivate func withDaemon(_ body: (DaemonProcess, RPCClient) throws -> Void) throws {
    let d = try DaemonProcess().start()
    do {
        let c = try d.client()
        try body(d, c)
    } catch {
        _ = d.stop()
        throw error
    }
    let status = d.stop()
    #expect(status == 0, "tnotesd did not exit 0 on SIGTERM (status \(String(describing: status))); log:\n\(d.log)")
}

/// `2025-11-06T10:00:00.000Z`: UTC, milliseconds.
fileprivate func isCanonicalTime(_ v: JSON?) -> Bool {
    guard let s = v?.stringValue else { return false }
    return s.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil
}

/// A lowercase UUID string.
fileprivate func isLowercaseUUID(_ v: JSON?) -> Bool {
    guard let s = v?.stringValue else { return false }
    return s.range(of: #"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"#, options: .regularExpression) != nil
}

/// The same JSON value, treating 9 and 9.0 alike (compares the canonical text).
fileprivate func sameJSON(_ a: JSON?, _ b: JSON?) -> Bool { a?.text == b?.text }

fileprivate func expectCode(_ c: RPCClient, _ method: String, _ params: JSON, code: Int, field: String? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) throws
{
    let e = try c.callError(method, params)
    #expect(e.code == code, "\(method) \(params.text): \(e)", sourceLocation: sourceLocation)
    if let field { #expect(e.field == field, "\(method) \(params.text): \(e)", sourceLocation: sourceLocation) }
}

fileprivate func createSermon(_ c: RPCClient, _ title: String, date: String? = nil) throws -> String {
    var p: JSONObject = ["title": .string(title)]
    if let date { p["date"] = .string(date) }
    let s = try c.call("sermon.create", .object(p))
    guard let id = s["id"]?.stringValue else { throw HarnessError("sermon.create without id: \(s.text)") }
    return id
}

fileprivate func sha256sum(_ path: String) throws -> String {
    let r = try ProcessRunner.run("/usr/bin/sha256sum", [path])
    guard r.status == 0 else { throw HarnessError("sha256sum failed: \(r.stderr)") }
    return String(r.stdout.prefix(64))
}

fileprivate func randomBytes(_ n: Int) -> [UInt8] {
    var g = SystemRandomNumberGenerator()
    var out = [UInt8]()
    out.reserveCapacity(n + 8)
    while out.count < n {
        var v = g.next() as UInt64
        withUnsafeBytes(of: &v) { out += $0 }
    }
    return Array(out.prefix(n))
}

// MARK: - Tests

@Suite("Record methods of contract §2")
struct RecordMethodTests {

    @Test("sermon.create returns a full Sermon; sermon.get returns the same with children")
    func sermonCreateAndGet() throws {
        try withDaemon { _, c in
            let s = try c.call("sermon.create", ["title": "Grace", "date": "2025-11-06T10:00:00.000Z",
                                                 "serviceType": "Evening Service", "speaker": "Pastor John"])
            #expect(isLowercaseUUID(s["id"]), "\(s.text)")
            #expect(s["title"] == "Grace")
            #expect(s["date"] == "2025-11-06T10:00:00.000Z", "a canonical date comes back unchanged: \(s.text)")
            #expect(s["serviceType"] == "Evening Service")
            #expect(s["speaker"] == "Pastor John")
            #expect(s["isArchived"] == false)
            #expect(s["transcriptionStatus"] == "pending")
            #expect(s["summaryStatus"] == "pending")
            #expect(s["audio"] == .null)
            #expect(isCanonicalTime(s["createdAt"]), "\(s.text)")
            #expect(isCanonicalTime(s["updatedAt"]), "\(s.text)")
            #expect(s["deletedAt"] == .null)
            #expect(s["syncState"] == "pending")
            #expect(s["notes"] == [])
            #expect(s["transcript"] == .null)
            #expect(s["summary"] == .null)

            let id = try #require(s["id"]?.stringValue)
            let g = try c.call("sermon.get", ["id": .string(id)])
            #expect(g == s, "sermon.get differs from sermon.create:\n\(g.text)\n\(s.text)")

            // Defaults, and a client-chosen id (given in upper case, answered in lower case).
            let chosen = "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D"
            let m = try c.call("sermon.create", ["title": "Minimal", "id": .string(chosen)])
            #expect(m["id"] == .string(chosen.lowercased()), "\(m.text)")
            #expect(isCanonicalTime(m["date"]), "\(m.text)")
            #expect(m["speaker"] == .null)
            #expect(m["serviceType"]?.stringValue?.isEmpty == false)
            #expect(try c.call("sermon.get", ["id": .string(chosen.lowercased())])["title"] == "Minimal")
        }
    }

    @Test("dates: canonical form unchanged, YYYY-MM-DD accepted, offsets normalized to UTC")
    func dates() throws {
        try withDaemon { _, c in
            let a = try c.call("sermon.create", ["title": "a", "date": "2025-11-06T10:00:00.000Z"])
            #expect(a["date"] == "2025-11-06T10:00:00.000Z")
            let b = try c.call("sermon.create", ["title": "b", "date": "2025-11-06"])
            #expect(isCanonicalTime(b["date"]), "\(b.text)")
            #expect(b["date"]?.stringValue?.hasPrefix("2025-11-06T") == true, "\(b.text)")
            let cc = try c.call("sermon.create", ["title": "c", "date": "2025-11-06T12:00:00+02:00"])
            #expect(cc["date"] == "2025-11-06T10:00:00.000Z", "\(cc.text)")
            // Round trip through get and update.
            let id = try #require(a["id"]?.stringValue)
            #expect(try c.call("sermon.get", ["id": .string(id)])["date"] == "2025-11-06T10:00:00.000Z")
            let u = try c.call("sermon.update", ["id": .string(id), "date": "2024-01-02T03:04:05.678Z"])
            #expect(u["date"] == "2024-01-02T03:04:05.678Z")
            let u2 = try c.call("sermon.update", ["id": .string(id), "date": "2024-02-29"])
            #expect(u2["date"]?.stringValue?.hasPrefix("2024-02-29T") == true, "\(u2.text)")
            try expectCode(c, "sermon.create", ["title": "x", "date": "2025-13-01"], code: -32602, field: "date")
            try expectCode(c, "sermon.create", ["title": "x", "date": "2025-02-30"], code: -32602, field: "date")
        }
    }

    @Test("sermon.list: pagination with limit and next; includeArchived; includeDeleted")
    func sermonList() throws {
        try withDaemon { _, c in
            var ids = [String]()
            for i in 1...5 { ids.append(try createSermon(c, "s\(i)", date: "2025-11-0\(i)T10:00:00.000Z")) }

            var seen = [String]()
            var after: JSON = .null
            var pages = 0
            repeat {
                var p: JSONObject = ["limit": 2]
                if after != .null { p["after"] = after }
                let page = try c.call("sermon.list", .object(p))
                let items = try #require(page["items"]?.arrayValue)
                #expect(items.count <= 2)
                for item in items {
                    #expect(item["notes"] == nil, "list items come without children: \(item.text)")
                    #expect(item["transcript"] == nil && item["summary"] == nil, "\(item.text)")
                    #expect(item["title"]?.stringValue != nil && item["syncState"]?.stringValue != nil)
                    seen.append(item["id"]?.stringValue ?? "")
                }
                after = try #require(page["next"])
                pages += 1
                if after != .null { #expect(items.count == 2, "a page with a next is full") }
            } while after != .null && pages < 10
            #expect(pages == 3, "5 sermons in pages of 2")
            #expect(seen.count == 5)
            #expect(Set(seen) == Set(ids), "every sermon once")

            // One page holding all.
            let all = try c.call("sermon.list", [:])
            #expect(all["items"]?.arrayValue?.count == 5)
            #expect(all["next"] == .null)
            let exact = try c.call("sermon.list", ["limit": 5])
            #expect(exact["items"]?.arrayValue?.count == 5)
            #expect(exact["next"] == .null, "no next page when everything fit: \(exact["next"]?.text ?? "")")

            // Archived.
            _ = try c.call("sermon.update", ["id": .string(ids[0]), "isArchived": true])
            let live = try c.call("sermon.list", [:])["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(!live.contains(ids[0]) && live.count == 4)
            let withArchived = try c.call("sermon.list", ["includeArchived": true])["items"]?.arrayValue ?? []
            #expect(withArchived.count == 5)
            #expect(withArchived.first { $0["id"] == .string(ids[0]) }?["isArchived"] == true)

            // Deleted.
            let del = try c.call("sermon.delete", ["id": .string(ids[1])])
            let ids2 = try c.call("sermon.list", [:])["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(!ids2.contains(ids[1]) && ids2.count == 3)
            let withDeleted = try c.call("sermon.list", ["includeDeleted": true])["items"]?.arrayValue ?? []
            #expect(withDeleted.count == 4)
            let tomb = withDeleted.first { $0["id"] == .string(ids[1]) }
            #expect(tomb?["deletedAt"] == del["deletedAt"], "\(tomb?.text ?? "absent")")
            let everything = try c.call("sermon.list", ["includeDeleted": true, "includeArchived": true])
            #expect(everything["items"]?.arrayValue?.count == 5)

            // Bad params.
            try expectCode(c, "sermon.list", ["limit": 0], code: -32602, field: "limit")
            try expectCode(c, "sermon.list", ["after": "not a cursor"], code: -32602, field: "after")
        }
    }

    @Test("sermon.update changes fields and keeps createdAt")
    func sermonUpdate() throws {
        try withDaemon { _, c in
            let s = try c.call("sermon.create", ["title": "Old", "speaker": "A", "date": "2025-11-06T10:00:00.000Z"])
            let id = try #require(s["id"]?.stringValue)
            let u = try c.call("sermon.update", [
                "id": .string(id), "title": "New", "speaker": .null, "serviceType": "Midweek",
                "transcriptionStatus": "processing", "summaryStatus": "complete",
            ])
            #expect(u["id"] == .string(id))
            #expect(u["title"] == "New")
            #expect(u["speaker"] == .null)
            #expect(u["serviceType"] == "Midweek")
            #expect(u["transcriptionStatus"] == "processing")
            #expect(u["summaryStatus"] == "complete")
            #expect(u["date"] == "2025-11-06T10:00:00.000Z", "untouched fields stay")
            #expect(u["isArchived"] == false)
            #expect(u["createdAt"] == s["createdAt"])
            #expect((u["updatedAt"]?.stringValue ?? "") > (s["updatedAt"]?.stringValue ?? "~"), "updatedAt moves forward")
            #expect(u["notes"]?.arrayValue != nil, "sermon.update answers a Sermon")
            let g = try c.call("sermon.get", ["id": .string(id)])
            #expect(g == u)

            let a = try c.call("sermon.update", ["id": .string(id), "isArchived": true])
            #expect(a["isArchived"] == true)
            #expect(a["title"] == "New")
            let b = try c.call("sermon.update", ["id": .string(id), "isArchived": false, "speaker": "B"])
            #expect(b["isArchived"] == false && b["speaker"] == "B")

            try expectCode(c, "sermon.update", ["id": .string(id), "summaryStatus": "nope"], code: -32602,
                           field: "summaryStatus")
            try expectCode(c, "sermon.update", ["id": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "title": "x"], code: -32001)
        }
    }

    @Test("sermon.delete tombstones the sermon and its children; writes to them answer -32001")
    func sermonDelete() throws {
        try withDaemon { _, c in
            let sid = try createSermon(c, "To delete")
            let n1 = try c.call("note.add", ["sermonId": .string(sid), "text": "one", "timestamp": 1])
            let n2 = try c.call("note.add", ["sermonId": .string(sid), "text": "two", "timestamp": 2])
            _ = try c.call("transcript.set", ["sermonId": .string(sid), "text": "words"])
            _ = try c.call("summary.set", ["sermonId": .string(sid), "title": "S", "text": "sum", "type": "bullet"])
            let other = try createSermon(c, "Keeps living")
            let otherNote = try c.call("note.add", ["sermonId": .string(other), "text": "stays", "timestamp": 3])

            let r = try c.call("sermon.delete", ["id": .string(sid)])
            #expect(r["id"] == .string(sid))
            #expect(isCanonicalTime(r["deletedAt"]), "\(r.text)")

            let n1id = try #require(n1["id"]?.stringValue), n2id = try #require(n2["id"]?.stringValue)
            try expectCode(c, "note.update", ["id": .string(n1id), "text": "changed"], code: -32001)
            try expectCode(c, "note.delete", ["id": .string(n2id)], code: -32001)
            try expectCode(c, "sermon.update", ["id": .string(sid), "title": "back"], code: -32001)
            try expectCode(c, "sermon.delete", ["id": .string(sid)], code: -32001)
            try expectCode(c, "note.add", ["sermonId": .string(sid), "text": "late", "timestamp": 4], code: -32001)

            // If the tombstone is still readable, it shows no live children.
            if let g = try? c.call("sermon.get", ["id": .string(sid)]) {
                #expect(g["deletedAt"] == r["deletedAt"], "\(g.text)")
                #expect(g["notes"] == [], "\(g.text)")
                #expect(g["transcript"] == .null && g["summary"] == .null, "\(g.text)")
            }
            // The tombstone is kept (never hard-deleted).
            let listed = try c.call("sermon.list", ["includeDeleted": true])["items"]?.arrayValue ?? []
            #expect(listed.contains { $0["id"] == .string(sid) && $0["deletedAt"] != .null })

            // The other sermon is untouched.
            let g2 = try c.call("sermon.get", ["id": .string(other)])
            #expect(g2["deletedAt"] == .null)
            #expect(g2["notes"]?.arrayValue?.map { $0["id"] } == [otherNote["id"]])
            _ = try c.call("note.update", ["id": try #require(otherNote["id"]), "text": "still editable"])
        }
    }

    @Test("note.add/update/delete; notes in sermon.get sorted by timestamp, deleted ones absent")
    func notes() throws {
        try withDaemon { _, c in
            let sid = try createSermon(c, "Notes")
            let a = try c.call("note.add", ["sermonId": .string(sid), "text": "thirty", "timestamp": 30])
            let b = try c.call("note.add", ["sermonId": .string(sid), "text": "five and a half", "timestamp": 5.5])
            let z = try c.call("note.add", ["sermonId": .string(sid), "text": "twelve", "timestamp": 12])
            for n in [a, b, z] {
                #expect(isLowercaseUUID(n["id"]), "\(n.text)")
                #expect(n["sermonId"] == .string(sid))
                #expect(isCanonicalTime(n["createdAt"]) && isCanonicalTime(n["updatedAt"]), "\(n.text)")
                #expect(n["deletedAt"] == .null)
            }
            #expect(b["text"] == "five and a half")
            #expect(b["timestamp"]?.doubleValue == 5.5)

            var g = try c.call("sermon.get", ["id": .string(sid)])
            #expect(g["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["five and a half", "twelve", "thirty"])
            #expect(g["notes"]?.arrayValue?.first == b, "notes in sermon.get are the notes as returned")

            // Update: text and timestamp; the order follows.
            let aid = try #require(a["id"]?.stringValue)
            let u = try c.call("note.update", ["id": .string(aid), "text": "one", "timestamp": 1])
            #expect(u["id"] == .string(aid) && u["text"] == "one" && u["timestamp"]?.doubleValue == 1)
            #expect(u["createdAt"] == a["createdAt"])
            #expect((u["updatedAt"]?.stringValue ?? "") > (a["updatedAt"]?.stringValue ?? "~"))
            let u2 = try c.call("note.update", ["id": .string(aid), "text": "only text"])
            #expect(u2["timestamp"]?.doubleValue == 1)
            g = try c.call("sermon.get", ["id": .string(sid)])
            #expect(g["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["only text", "five and a half", "twelve"])

            // Delete.
            let zid = try #require(z["id"]?.stringValue)
            let d = try c.call("note.delete", ["id": .string(zid)])
            #expect(d["id"] == .string(zid))
            #expect(isCanonicalTime(d["deletedAt"]), "\(d.text)")
            g = try c.call("sermon.get", ["id": .string(sid)])
            #expect(g["notes"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [aid, try #require(b["id"]?.stringValue)])
            // A tombstoned note is gone for writes.
            try expectCode(c, "note.update", ["id": .string(zid), "text": "revive"], code: -32001)
            try expectCode(c, "note.delete", ["id": .string(zid)], code: -32001)

            // Zero is a valid timestamp; a client-chosen id is kept.
            let nid = "c0ffee00-1234-4abc-8def-0123456789ab"
            let zero = try c.call("note.add", ["sermonId": .string(sid), "text": "start", "timestamp": 0, "id": .string(nid)])
            #expect(zero["id"] == .string(nid))
            g = try c.call("sermon.get", ["id": .string(sid)])
            #expect(g["notes"]?.arrayValue?.first?["id"] == .string(nid))
        }
    }

    @Test("transcript.set with segments round-trips exactly; a JSON string for segments is refused")
    func transcript() throws {
        try withDaemon { _, c in
            let sid = try createSermon(c, "Transcript")
            let segments: JSON = [
                ["start": 0, "end": 4.25, "text": "In the beginning", "speaker": "Pastor John"],
                ["start": 4.25, "end": 9, "text": "was the Word, \"and\" ünïcode ✝"],
                ["start": 9, "end": 12.125, "text": ""],
            ]
            let t = try c.call("transcript.set", ["sermonId": .string(sid), "text": "In the beginning was the Word",
                                                  "segments": segments])
            #expect(isLowercaseUUID(t["id"]))
            #expect(t["sermonId"] == .string(sid))
            #expect(t["text"] == "In the beginning was the Word")
            #expect(t["status"] == "complete")
            #expect(isCanonicalTime(t["updatedAt"]))
            #expect(sameJSON(t["segments"], segments), "segments changed:\n\(t["segments"]?.text ?? "nil")\n\(segments.text)")
            #expect(t["segments"]?.arrayValue != nil, "segments is an array, not a string")

            let g = try c.call("sermon.get", ["id": .string(sid)])
            #expect(sameJSON(g["transcript"]?["segments"], segments))
            #expect(g["transcript"]?["id"] == t["id"])
            #expect(g["transcript"]?["text"] == t["text"])

            // Set again: replaced, same transcript record.
            let t2 = try c.call("transcript.set", ["sermonId": .string(sid), "text": "Shorter", "status": "processing"])
            #expect(t2["id"] == t["id"])
            #expect(t2["text"] == "Shorter" && t2["status"] == "processing")
            #expect(t2["segments"] == [])
            let g2 = try c.call("sermon.get", ["id": .string(sid)])
            #expect(g2["transcript"]?["text"] == "Shorter")

            // Segments as a string holding JSON: the seed's double-encoding bug, refused.
            try expectCode(c, "transcript.set", ["sermonId": .string(sid), "text": "x", "segments": .string(segments.text)],
                           code: -32602, field: "segments")
            try expectCode(c, "transcript.set", ["sermonId": .string(sid), "text": "x", "segments": ["start": 0]],
                           code: -32602, field: "segments")
            // The refused calls changed nothing.
            #expect(try c.call("sermon.get", ["id": .string(sid)])["transcript"]?["text"] == "Shorter")
        }
    }

    @Test("summary.set creates and replaces the summary")
    func summary() throws {
        try withDaemon { _, c in
            let sid = try createSermon(c, "Summary")
            let s = try c.call("summary.set", ["sermonId": .string(sid), "title": "Main points", "text": "1. Grace",
                                               "type": "bullet"])
            #expect(isLowercaseUUID(s["id"]))
            #expect(s["sermonId"] == .string(sid))
            #expect(s["title"] == "Main points" && s["text"] == "1. Grace" && s["type"] == "bullet")
            #expect(s["status"] == "complete")
            #expect(isCanonicalTime(s["updatedAt"]))
            let g = try c.call("sermon.get", ["id": .string(sid)])
            #expect(g["summary"]?["id"] == s["id"] && g["summary"]?["text"] == "1. Grace")

            for type in ["devotional", "theological"] {
                let s2 = try c.call("summary.set", ["sermonId": .string(sid), "title": "T", "text": .string(type),
                                                    "type": .string(type), "status": "failed"])
                #expect(s2["id"] == s["id"] && s2["type"] == .string(type) && s2["status"] == "failed")
            }
            let g2 = try c.call("sermon.get", ["id": .string(sid)])
            #expect(g2["summary"]?["type"] == "theological")
            try expectCode(c, "summary.set", ["sermonId": .string(sid), "title": "T", "text": "x", "type": "haiku"],
                           code: -32602, field: "type")
        }
    }

    @Test("chat.append / chat.list ordered by (createdAt, id, deviceId)")
    func chat() throws {
        try withDaemon { _, c in
            let sid = try createSermon(c, "Chat")
            let deviceId = try #require(try c.call("daemon.status")["deviceId"]?.stringValue)
            var appended = [JSON]()
            for (role, content) in [("user", "What is grace?"), ("assistant", "Unmerited favour."), ("user", "Thanks")] {
                let m = try c.call("chat.append", ["sermonId": .string(sid), "role": .string(role), "content": .string(content)])
                #expect(isLowercaseUUID(m["id"]))
                #expect(m["sermonId"] == .string(sid) && m["role"] == .string(role) && m["content"] == .string(content))
                #expect(isCanonicalTime(m["createdAt"]))
                #expect(m["deviceId"] == .string(deviceId))
                appended.append(m)
            }
            let chosen = "00000000-0000-4000-8000-000000000001"
            appended.append(try c.call("chat.append", ["sermonId": .string(sid), "role": "assistant", "content": "x",
                                                       "id": .string(chosen)]))
            #expect(appended.last?["id"] == .string(chosen))

            let list = try #require(try c.call("chat.list", ["sermonId": .string(sid)]).arrayValue)
            #expect(list.count == 4)
            #expect(Set(list.compactMap { $0["id"] }) == Set(appended.compactMap { $0["id"] }))
            func key(_ m: JSON) -> (String, String, String) {
                (m["createdAt"]?.stringValue ?? "", m["id"]?.stringValue ?? "", m["deviceId"]?.stringValue ?? "")
            }
            for (x, y) in zip(list, list.dropFirst()) { #expect(key(x) <= key(y), "chat.list out of order: \(list)") }
            // Messages appended one after another come back in that order (createdAt increases).
            #expect(list.map { $0["id"] } == appended.map { $0["id"] })
            #expect(list.first == appended.first, "chat.list shows messages as appended")

            // Another sermon's chat is separate.
            let other = try createSermon(c, "Other")
            #expect(try c.call("chat.list", ["sermonId": .string(other)]) == [])
        }
    }

    @Test("audio.import copies the file and records sha256, size; audio.path gives the copy")
    func audioImport() throws {
        try withDaemon { d, c in
            let sid = try createSermon(c, "Audio")
            let bytes = randomBytes(384 * 1024 + 17)
            let source = d.dir.file("in/sermon recording.mp3")
            try FileManager.default.createDirectory(atPath: d.dir.file("in"), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: source))
            let expected = try sha256sum(source)

            let s = try c.call("audio.import", ["sermonId": .string(sid), "path": .string(source)], timeout: 120)
            let audio = try #require(s["audio"]?.objectValue, "\(s.text)")
            #expect(audio["sha256"] == .string(expected), "\(s.text)")
            #expect(audio["sizeBytes"]?.int64Value == Int64(bytes.count))
            #expect(audio["localAvailable"] == true)
            #expect(audio["uploaded"] == false)
            #expect(audio["fileName"]?.stringValue?.isEmpty == false)
            #expect(s["id"] == .string(sid))
            #expect(try c.call("sermon.get", ["id": .string(sid)])["audio"] == s["audio"])

            let p = try c.call("audio.path", ["sermonId": .string(sid)])
            #expect(p["localAvailable"] == true)
            let path = try #require(p["path"]?.stringValue, "\(p.text)")
            #expect(path != source, "the file is copied")
            #expect(path.hasPrefix(d.dataDir), "the copy lives in the data dir: \(path)")
            let copy = try #require(FileManager.default.contents(atPath: path))
            #expect(copy == Data(bytes), "the copy differs from the source")
            #expect(try sha256sum(path) == expected)

            // The source is left alone.
            #expect(FileManager.default.contents(atPath: source) == Data(bytes))

            // Bad paths answer -32602 naming "path".
            try expectCode(c, "audio.import", ["sermonId": .string(sid), "path": .string(d.dir.file("in/missing.mp3"))],
                           code: -32602, field: "path")
            try expectCode(c, "audio.import", ["sermonId": .string(sid), "path": .string(d.dir.file("in"))],
                           code: -32602, field: "path")
            try expectCode(c, "audio.import", ["sermonId": .string(sid), "path": ""], code: -32602, field: "path")
            // The failed imports left the recorded audio alone.
            #expect(try c.call("sermon.get", ["id": .string(sid)])["audio"]?["sha256"] == .string(expected))
        }
    }

    @Test("audio.path of a sermon without audio")
    func audioPathWithoutAudio() throws {
        try withDaemon { _, c in
            let sid = try createSermon(c, "Silent")
            let p = try c.call("audio.path", ["sermonId": .string(sid)])
            #expect(p["path"] == .null, "\(p.text)")
            #expect(p["localAvailable"] == false, "\(p.text)")
        }
    }

    @Test("daemon.status fields")
    func daemonStatus() throws {
        try withDaemon { d, c in
            let s = try c.call("daemon.status")
            #expect(s["version"]?.stringValue?.isEmpty == false, "\(s.text)")
            #expect((s["schemaVersion"]?.int64Value ?? 0) >= 1, "\(s.text)")
            let deviceId = try #require(s["deviceId"]?.stringValue)
            #expect(!deviceId.isEmpty)
            #expect(s["pid"]?.int64Value == Int64(d.pid), "\(s.text)")
            #expect((s["uptimeSeconds"]?.doubleValue ?? -1) >= 0, "\(s.text)")
            #expect(s["socketPath"] == .string(d.socketPath), "\(s.text)")
            #expect(s["dataDir"] == .string(d.dataDir), "\(s.text)")
            #expect(s["sync"]?["state"] == "disabled", "\(s.text)")
            #expect(s["sync"]?["pendingOps"]?.int64Value != nil)
            #expect(s["searchIndexCatchingUp"] == .bool(false), "an empty store has nothing to index: \(s.text)")
            // Stable across calls and connections.
            let c2 = try d.client()
            #expect(try c2.call("daemon.status")["deviceId"] == .string(deviceId))
        }
    }

    @Test("sync.status: disabled, pendingOps counts queued writes")
    func syncStatus() throws {
        try withDaemon { _, c in
            let s0 = try c.call("sync.status")
            #expect(s0["state"] == "disabled", "\(s0.text)")
            #expect(s0["serverUrl"] == .null)
            #expect(s0["failedOps"]?.int64Value == 0)
            #expect(s0["attempt"]?.int64Value == 0)
            #expect(s0["nextAttemptAt"] == .null && s0["lastSuccessAt"] == .null && s0["lastError"] == .null)
            let triggers = try #require(s0["triggers"]?.objectValue, "\(s0.text)")
            #expect(Set(triggers.keys) == ["startup", "periodic", "localChange", "network", "manual", "realtime", "resume"])
            #expect(s0["metered"] == false && s0["onBattery"] == false, "no desktop bus: as usual")
            for (_, v) in triggers { #expect(v.int64Value != nil) }
            let p0 = try #require(s0["pendingOps"]?.int64Value)
            #expect(p0 == 0, "a fresh daemon has nothing queued")

            let sid = try createSermon(c, "Queued")
            #expect(try c.call("sync.status")["pendingOps"]?.int64Value == p0 + 1)
            _ = try c.call("note.add", ["sermonId": .string(sid), "text": "a", "timestamp": 1])
            #expect(try c.call("sync.status")["pendingOps"]?.int64Value == p0 + 2)
            _ = try c.call("note.add", ["sermonId": .string(sid), "text": "b", "timestamp": 2])
            _ = try c.call("chat.append", ["sermonId": .string(sid), "role": "user", "content": "hi"])
            let s1 = try c.call("sync.status")
            #expect(s1["pendingOps"]?.int64Value == p0 + 4, "\(s1.text)")
            // Reads queue nothing; refused writes queue nothing.
            _ = try c.call("sermon.get", ["id": .string(sid)])
            _ = try c.call("sermon.list")
            _ = try? c.call("note.add", ["sermonId": .string(sid), "text": "bad", "timestamp": -1])
            #expect(try c.call("sync.status")["pendingOps"]?.int64Value == p0 + 4)
            // daemon.status embeds the same sync status.
            #expect(try c.call("daemon.status")["sync"]?["pendingOps"]?.int64Value == p0 + 4)
        }
    }
}
