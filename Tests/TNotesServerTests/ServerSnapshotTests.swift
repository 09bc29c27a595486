import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

/// One GET /v1/sync/snapshot page.
struct SnapshotPage {
    let changes: [JSON]
    let cursor: String
    let after: String?
    let hasMore: Bool
}

extension HTTPTestClient {
    func snapshotPage(after: String? = nil, limit: Int? = nil, tombstones: Bool = false) throws -> SnapshotPage {
        var query = [String]()
        if let after { query.append("after=\(after.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? after)") }
        if let limit { query.append("limit=\(limit)") }
        if tombstones { query.append("tombstones=true") }
        let path = "/v1/sync/snapshot" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let r = try get(path, headers: noCache)
        guard r.status == 200, let json = r.json, let changes = json["changes"]?.arrayValue,
              let cursor = json["cursor"]?.stringValue, let hasMore = json["hasMore"]?.boolValue
        else { throw HarnessError("snapshot \(path) answered \(r.status): \(r.text)") }
        return SnapshotPage(changes: changes, cursor: cursor, after: json["after"]?.stringValue, hasMore: hasMore)
    }

    /// Every page of one snapshot: its changes and the cursor its pages named (the same in each).
    func snapshotAll(limit: Int? = nil, tombstones: Bool = false, between: (Int) throws -> Void = { _ in })
        throws -> (changes: [JSON], cursors: Set<String>, pages: Int)
    {
        var all = [JSON](), cursors = Set<String>(), after: String?, pages = 0
        while true {
            let page = try snapshotPage(after: after, limit: limit, tombstones: tombstones)
            pages += 1
            all += page.changes
            cursors.insert(page.cursor)
            guard page.hasMore else { return (all, cursors, pages) }
            guard let next = page.after, next != after else { throw HarnessError("snapshot said hasMore without a new 'after'") }
            after = next
            try between(pages)
        }
    }
}

@Suite("tnotes-server snapshot: a first sync takes the records as they are, then the log from its cursor")
struct ServerSnapshotTests {
    @Test("one change per record at its current version, in key order, paged; tombstones only when asked; the cursor is where the log stood",
          arguments: Backend.allCases)
    func recordsAsTheyAre(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"]) { server, tokens in
            let alice = server.client(tokens["alice"]), bob = server.client(tokens["bob"])
            let sid = Wire.id()
            let notes = (0..<7).map { _ in Wire.id() }
            var changes = [Wire.change(.sermons, Wire.sermon(sid))]
            changes += notes.map { Wire.change(.notes, Wire.note($0, sermonId: sid, text: "first")) }
            changes.append(Wire.change(.transcripts, Wire.transcript(Wire.id(), sermonId: sid)))
            #expect(try alice.push(changes).statuses.allSatisfy { $0 == "applied" })
            // Every note edited twice more; two deleted.
            for round in 1...2 {
                let edits = notes.map { Wire.change(.notes, Wire.note($0, sermonId: sid, text: "edit \(round)", updatedAt: Wire.time(Double(round)))) }
                #expect(try alice.push(edits).statuses.allSatisfy { $0 == "applied" })
            }
            let deletes = notes.prefix(2).map {
                Wire.change(.notes, Wire.note($0, sermonId: sid, text: "edit 2", updatedAt: Wire.time(3), deletedAt: Wire.time(3)))
            }
            #expect(try alice.push(deletes).statuses.allSatisfy { $0 == "applied" })
            #expect(try bob.push([Wire.change(.sermons, Wire.sermon(Wire.id(), title: "Bob's"))]).statuses == ["applied"])

            let log = try alice.pullAll()
            #expect(log.changes.count == 1 + 7 + 1 + 14 + 2)
            let snap = try alice.snapshotAll(limit: 3)
            #expect(snap.pages == 3, "7 live records in pages of 3")
            #expect(snap.cursors == [log.cursor], "every page names the log's position when the snapshot began")
            let ids = snap.changes.compactMap { $0["id"]?.stringValue }
            #expect(Set(ids) == Set([sid] + notes.dropFirst(2) + [changes.last!["id"]!.stringValue!]), "live records only, each once")
            #expect(ids.count == 7)
            let keys = snap.changes.map { "\($0["collection"]!.stringValue!)/\($0["id"]!.stringValue!)" }
            #expect(keys == keys.sorted(), "key order")
            // Each is exactly the log's latest change of that record (its seq, version and body).
            let latest = latestById(log.changes)
            for c in snap.changes {
                let id = c["id"]!.stringValue!
                #expect(c == latest[id], "\(id): \(c.text) against \(latest[id]?.text ?? "nil")")
            }
            #expect(!snap.changes.contains { $0["record"]?["title"] == "Bob's" }, "only the user's own records")

            if backend == .sqlite {
                // A page is a range of the records' key index, read in its order (no sort).
                let db = try SQLiteConnection(path: server.database.replacingOccurrences(of: "sqlite://", with: ""), create: false)
                let plan = try db.query("""
                    EXPLAIN QUERY PLAN SELECT seq, collection, id, deleted_at IS NOT NULL, updated_at, device_id, body FROM records
                    WHERE user_id = ? AND (collection, id) > (?, ?) AND deleted_at IS NULL ORDER BY collection, id LIMIT ?
                    """, [.int(1), .text("notes"), .text(""), .int(3)]).compactMap { $0[3].string }.joined(separator: "; ")
                #expect(plan.contains("USING INDEX records_by_key") && !plan.contains("TEMP B-TREE"), "\(plan)")
            }
            let withTombstones = try alice.snapshotAll(limit: 4, tombstones: true)
            #expect(withTombstones.changes.count == 9)
            let deleted = withTombstones.changes.filter { $0["op"] == "delete" }.compactMap { $0["id"]?.stringValue }
            #expect(Set(deleted) == Set(notes.prefix(2)))
            for c in withTombstones.changes { #expect(c == latestById(log.changes)[c["id"]!.stringValue!]) }
        }
    }

    @Test("changes committed while a snapshot pages arrive by the log pull from its cursor; the result equals the log's",
          arguments: Backend.allCases)
    func changesWhilePaging(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id()
            let notes = (0..<12).map { _ in Wire.id() }
            _ = try http.push([Wire.change(.sermons, Wire.sermon(sid))] +
                              notes.map { Wire.change(.notes, Wire.note($0, sermonId: sid)) })
            var step = 0
            let snap = try http.snapshotAll(limit: 4) { _ in
                step += 1
                // Between pages: edit a record already sent, edit one not yet sent, delete one, add one.
                let t = Wire.time(Double(10 + step))
                _ = try http.push([
                    Wire.change(.notes, Wire.note(notes[0], sermonId: sid, text: "late \(step)", updatedAt: t)),
                    Wire.change(.notes, Wire.note(notes[11], sermonId: sid, text: "late \(step)", updatedAt: t)),
                    Wire.change(.notes, Wire.note(notes[5 + step], sermonId: sid, updatedAt: t, deletedAt: t)),
                    Wire.change(.notes, Wire.note(Wire.id(), sermonId: sid, text: "new \(step)", updatedAt: t)),
                ])
            }
            #expect(snap.cursors.count == 1)
            let tail = try http.pullAll(from: snap.cursors.first)
            // A device applying the snapshot and then the tail (newest version wins) ends where a device that
            // pulled the whole log ends.
            var device = JSONObject()
            for c in snap.changes + tail.changes {
                let id = c["id"]!.stringValue!
                if let held = device[id], (held["updatedAt"]!.stringValue!, held["deviceId"]!.stringValue!) >=
                    (c["updatedAt"]!.stringValue!, c["deviceId"]!.stringValue!) { continue }
                device[id] = c
            }
            let everything = latestById(try http.pullAll().changes)
            let live = everything.filter { $0.value["op"] != "delete" }
            #expect(Set(device.filter { $0.value["op"] != "delete" }.keys) == Set(live.keys))
            for (id, c) in live { #expect(device[id]?["record"] == c["record"], "\(id)") }
        }
    }

    @Test("bad input: a position that is not one answers 400 naming 'after', a bad limit or tombstones 400; another epoch's position starts over; no token 401",
          arguments: Backend.allCases)
    func badInput(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let sid = Wire.id()
            _ = try http.push([Wire.change(.sermons, Wire.sermon(sid))] +
                              (0..<3).map { _ in Wire.change(.notes, Wire.note(Wire.id(), sermonId: sid)) })
            for bad in ["nonsense", "a.b.c.d", "e.1.nocollection.x", "e.-1.notes.x", "e.1.notes."] {
                let r = try http.get("/v1/sync/snapshot?after=\(bad)", headers: noCache)
                expectJSONError(r, status: 400, bad)
                #expect(r.json?["field"] == "after" || r.text.contains("after"), "\(r.text)")
            }
            expectJSONError(try http.get("/v1/sync/snapshot?limit=0", headers: noCache), status: 400, "limit=0")
            expectJSONError(try http.get("/v1/sync/snapshot?tombstones=maybe", headers: noCache), status: 400, "tombstones")
            // A well-formed position from a replaced database (another epoch): the first page again.
            let first = try http.snapshotPage(limit: 2)
            let foreign = try http.snapshotPage(after: "0190a2b4-0000-7000-8000-000000000000.99.notes.zzz", limit: 2)
            #expect(foreign.changes == first.changes && foreign.cursor == first.cursor)
            // Positions split at their dots as bytes: a dot before a combining mark or an emoji modifier
            // (one grapheme with it) is still a dot.
            for odd in ["\u{00D5}\u{1F3FB}.+898887.conflicts.\u{1F3FB}P", "e.1.notes.\u{0301}x"] {
                let page = try http.snapshotPage(after: odd, limit: 2)
                #expect(page.changes == first.changes, "\(odd)")
            }
            #expect(try server.client().get("/v1/sync/snapshot", headers: noCache).status == 401)
            #expect(try http.request("HEAD", "/v1/sync/snapshot", headers: noCache).status == 200)
        }
    }
}
