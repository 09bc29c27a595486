import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// The full-text rows are written by the store beside each record (not by triggers): whatever the write —
/// local add, edit, delete, pulled version, a group with a write that rolls back — `search_docs` must hold
/// exactly what the `search_source` view derives from the records, and FTS must agree with `search_docs`.
@Suite("store: search index in step with the records")
struct SearchIndexTests {
    struct Refused: Error {}

    @Test func searchRowsFollowEveryKindOfWrite() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermons = (0..<6).map { _ in Identifier.make() }
        let notes = (0..<30).map { _ in Identifier.make() }
        try store.writeSync { s in
            for (k, id) in sermons.enumerated() {
                _ = try s.commitLocal(.sermons, record: Rec.sermon(id, title: "Grace upon grace \(k)", updatedAt: s.stamp()), op: .upsert)
                _ = try s.commitLocal(.transcripts, record: Rec.transcript(sermonId: id, updatedAt: s.stamp()), op: .upsert)
                _ = try s.commitLocal(.summaries, record: Rec.summary(sermonId: id, updatedAt: s.stamp()), op: .upsert)
            }
            for (k, id) in notes.enumerated() {
                let note = Rec.note(id, sermonId: sermons[k % sermons.count], text: "forgiveness number \(k)", at: Double(k), updatedAt: s.stamp())
                _ = try s.commitLocal(.notes, record: note, op: .upsert)
                // The same record replaced again inside the same write: its unflushed rows are replaced too.
                if k % 3 == 0 {
                    _ = try s.commitLocal(.notes, record: Rec.note(id, sermonId: sermons[k % sermons.count], text: "mercy number \(k)",
                                                                   at: Double(k), updatedAt: s.stamp()), op: .upsert)
                }
            }
        }
        // Later writes: edits, deletes, an empty transcript, pulled versions (new and replacing).
        try store.writeSync { s in
            _ = try s.commitLocal(.notes, record: Rec.note(notes[1], sermonId: sermons[1], text: "edited: covenant", at: 1, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.notes, record: Rec.note(notes[2], sermonId: sermons[2], text: "gone", at: 2, updatedAt: s.stamp(),
                                                           deletedAt: Timestamp.now()), op: .delete)
            _ = try s.commitLocal(.transcripts, record: Rec.transcript(sermonId: sermons[3], updatedAt: s.stamp(), segments: []), op: .upsert)
            let later = Timestamp.format(millis: Timestamp.nowMillis() + 60_000)
            try s.apply(try Rec.pulled(.notes, Rec.note(notes[4], sermonId: sermons[4], text: "pulled: redemption", at: 4, updatedAt: later)), origin: .remote)
            try s.apply(try Rec.pulled(.notes, Rec.note(Identifier.make(), sermonId: sermons[4], text: "pulled new: sanctification", at: 9, updatedAt: later)),
                        origin: .remote)
            try s.apply(try Rec.pulled(.sermons, Rec.sermon(sermons[5], title: "Deleted elsewhere", updatedAt: later, deletedAt: later), op: .delete),
                        origin: .remote)
        }
        // A group in which some writes roll back: their rows must leave no trace, in search_docs or in FTS.
        await withTaskGroup(of: Void.self) { group in
            for k in 0..<20 {
                group.addTask {
                    try? await store.write { s in
                        _ = try s.commitLocal(.notes, record: Rec.note(notes[10 + k], sermonId: sermons[k % sermons.count],
                                                                       text: "group \(k) hallelujah", at: Double(k), updatedAt: s.stamp()), op: .upsert)
                        if k % 4 == 0 { throw Refused() }
                    }
                }
            }
        }

        // Small writes leave their rows above the watermark for a moment; a search catches up first.
        try store.catchUpSearchSync()
        let hits = try store.readSync { s in try s.search("covenant", filter: SearchFilter(), limit: 10, offset: 0) }
        #expect(hits.map(\.recordId) == [notes[1]])
        let gone = try store.readSync { s in try s.search("forgiveness", filter: SearchFilter(), limit: 100, offset: 0) }
        #expect(!gone.contains { $0.recordId == notes[2] }, "a deleted note leaves the index")
        let refused = try store.readSync { s in try s.search("\"group 0 hallelujah\"", filter: SearchFilter(), limit: 10, offset: 0) }
        #expect(refused.isEmpty, "a rolled-back write left nothing in the index")
        let kept = try store.readSync { s in try s.search("\"group 1 hallelujah\"", filter: SearchFilter(), limit: 10, offset: 0) }
        #expect(kept.map(\.recordId) == [notes[11]])
        store.close()

        let db = try t.sql()
        let columns = "collection, record_id, sermon_id, kind, start, body"
        let missing = try db.query("SELECT \(columns) FROM search_source EXCEPT SELECT \(columns) FROM search_docs")
        let extra = try db.query("SELECT \(columns) FROM search_docs EXCEPT SELECT \(columns) FROM search_source")
        #expect(missing.isEmpty, "rows the records call for but the index lacks: \(missing.map(\.values))")
        #expect(extra.isEmpty, "rows the index holds for no record: \(extra.map(\.values))")
        #expect(try db.scalar("SELECT count(*) FROM search_docs").int ?? 0 > 40)
        // FTS against its content table (rank 1: compare with search_docs row by row); throws on a mismatch.
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
        #expect(try db.query("PRAGMA integrity_check").map { $0[0].string } == ["ok"])
    }

    /// The rows FTS has not heard of yet, as an independent connection sees them.
    static func pendingRows(_ db: SQLiteConnection) throws -> Int {
        let through = try db.scalar("SELECT version FROM derived_state WHERE name = 'search_index'").int ?? -1
        return Int(try db.scalar("SELECT count(*) FROM search_docs WHERE doc > ?", [.int(through)]).int ?? 0)
    }

    static func ftsCount(_ db: SQLiteConnection, _ query: String) throws -> Int {
        Int(try db.scalar("SELECT count(*) FROM search_index WHERE search_index MATCH ?", [.text(query)]).int ?? 0)
    }

    /// A small write commits its search rows without adding them to FTS (they wait above the watermark);
    /// a catch-up adds them, and a replaced record's new row is never given a rowid at or below the
    /// watermark, even when the row it replaces was the highest (SQLite would otherwise reuse that rowid).
    @Test func smallWritesTrailAndCatchUp() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make(), note = Identifier.make()
        try store.writeSync { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, title: "Trailing index", updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "first words", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        let db = try t.sql()
        #expect(try Self.pendingRows(db) == 2, "a small write's rows wait above the watermark")
        #expect(try Self.ftsCount(db, "first") == 0)
        try await store.catchUpSearch()
        #expect(try Self.pendingRows(db) == 0)
        #expect(try Self.ftsCount(db, "first") == 1)
        // The note's row is the highest; replacing it must not hand its rowid to the new row.
        let highest = try db.scalar("SELECT max(doc) FROM search_docs").int ?? 0
        try store.writeSync { s in
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "second words", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(try db.scalar("SELECT doc FROM search_docs WHERE record_id = ?", [.text(note)]).int ?? 0 > highest)
        #expect(try Self.ftsCount(db, "first") == 0, "the replaced row left FTS at once")
        try await store.catchUpSearch()
        let hits = try await store.read { s in try s.search("second", filter: SearchFilter(), limit: 10, offset: 0) }
        #expect(hits.map(\.recordId) == [note])
        // Without a search, the catch-up comes by itself shortly after.
        try store.writeSync { s in
            _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "third words", at: 2, updatedAt: s.stamp()),
                                  op: .upsert)
        }
        var waited = 0
        while try Self.pendingRows(db) > 0 && waited < 100 { try await Task.sleep(for: .milliseconds(20)); waited += 1 }
        #expect(try Self.pendingRows(db) == 0, "the catch-up ran without a search")
        #expect(try Self.ftsCount(db, "third") == 1)
        store.close()
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
    }

    /// A write with many rows (a pulled page, an import batch) puts them into FTS in its own transaction.
    @Test func largeWritesIndexInline() throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make()
        try store.writeSync { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert)
            for k in 0..<1100 {
                _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "bulk \(k)", at: Double(k),
                                                               updatedAt: s.stamp()), op: .upsert)
            }
        }
        let db = try t.sql()
        #expect(try Self.pendingRows(db) == 0)
        #expect(try Self.ftsCount(db, "bulk") == 1100)
        store.close()
    }

    /// While a hold is on (a pull of many pages), even large writes leave their rows above the watermark and
    /// no background catch-up runs, but a search still catches up first; once released, the index fills by
    /// itself, in chunks of `searchCatchUpChunk` rows, each in a transaction of its own.
    @Test func heldIndexFillsAfterRelease() async throws {
        let t = TempStore()
        let store = try t.open()
        let db = try t.sql()
        let sermon = Identifier.make()
        func page(_ tag: String, _ n: Int) throws {
            try store.writeSync { s in
                _ = try s.commitLocal(.sermons, record: Rec.sermon(Identifier.make(), updatedAt: s.stamp()), op: .upsert)
                for k in 0..<n {
                    _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "\(tag) \(k)", at: Double(k),
                                                                   updatedAt: s.stamp()), op: .upsert)
                }
            }
        }
        let hold = store.holdSearchIndex()
        try page("held", 1100)
        try page("kept", 1100)
        try await Task.sleep(for: .milliseconds(400))  // past the catch-up delay: nothing ran
        #expect(try Self.pendingRows(db) == 2202, "held: the pages' rows wait above the watermark")
        #expect(try Self.ftsCount(db, "held") == 0)
        #expect(store.searchIndexBehind)
        // A search during the hold finds everything written.
        try await store.catchUpSearch()
        #expect(try Self.ftsCount(db, "held") == 1100)
        #expect(!store.searchIndexBehind)
        try page("later", 1100)
        #expect(try Self.pendingRows(db) == 1101)

        // Chunks: record each transaction's watermark as it commits (the version moves once per chunk).
        let chunk = Store.searchCatchUpChunk
        try page("bulk", Int(chunk) + 10)
        let before = try db.scalar("SELECT version FROM derived_state WHERE name = 'search_index'").int ?? 0
        hold.release()
        hold.release()  // once is enough; a second release changes nothing
        var seen: Set<Int64> = []
        var waited = 0
        while try Self.pendingRows(db) > 0 && waited < 500 {
            seen.insert(try db.scalar("SELECT version FROM derived_state WHERE name = 'search_index'").int ?? 0)
            try await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        #expect(try Self.pendingRows(db) == 0, "released: the index filled without a search")
        #expect(try Self.ftsCount(db, "bulk") == Int(chunk) + 10)
        #expect(try Self.ftsCount(db, "later") == 1100)
        let after = try db.scalar("SELECT version FROM derived_state WHERE name = 'search_index'").int ?? 0
        #expect(after - before > chunk, "more rows than one chunk waited")
        // Chunks are sized by time (at most `searchCatchUpChunk` rows): only versions between the two are seen.
        #expect(seen.allSatisfy { $0 >= before && $0 <= after }, "\(seen.sorted())")
        #expect(!store.searchIndexBehind)
        store.close()
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
    }

    /// A search's catch-up of more waiting records than one chunk goes chunk by chunk, a transaction each, and
    /// still finds everything. In one transaction `derivePending` held every waiting key in memory twice over
    /// (`temp_store=MEMORY`): a first search after a 16× pull took the daemon from ~95 to ~200 MiB of RSS.
    /// Each chunk's commit is seen from another connection while the search waits.
    @Test func searchCatchUpOfALargeBacklogCommitsChunkByChunk() async throws {
        let t = TempStore()
        let store = try t.open()
        let db = try t.sql()
        // More than a first chunk (`searchChunkFloor` rows, growing at most twice a chunk; a note makes one).
        let total = 30_000
        let sermon = Identifier.make()
        let later = Timestamp.format(millis: Timestamp.nowMillis() + 60_000)
        let hold = store.holdSearchIndex()
        try store.writeSync { s in
            for k in 0..<total {
                try s.apply(try Rec.pulled(.notes, Rec.note(Identifier.make(), sermonId: sermon, text: "waiting \(k)", at: Double(k),
                                                            updatedAt: later)), origin: .remote)
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM search_pending").int == Int64(total))
        let search = Task { try await store.catchUpSearch() }
        var seen: Set<Int> = []
        while true {
            let waiting = Int(try db.scalar("SELECT count(*) FROM search_pending").int ?? -1)
            seen.insert(waiting)
            if waiting <= 0 { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        try await search.value
        // Chunks are sized by time: a chunk's commit is seen before the last one's.
        #expect(seen.allSatisfy { $0 >= 0 && $0 <= total }, "\(seen.sorted())")
        #expect(seen.contains { $0 > 0 && $0 < total }, "the first chunk committed before the last ran: \(seen.sorted())")
        #expect(try Self.ftsCount(db, "waiting") == total)
        #expect(try Self.pendingRows(db) == 0)
        #expect(!store.searchIndexBehind)
        hold.release()
        store.close()
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
    }

    /// A chunk derives about as many rows as it is sized for, whatever the records make: waiting transcripts of
    /// 100 segments each are taken a few at a time, not as many as notes would be (the first chunk of a 1×
    /// bench pull's transcripts took 5,976 of them at once, 275 ms, and a `note.add` waited for it). Each
    /// chunk's commit is seen from another connection, so 40,000 rows arrive in several.
    @Test func transcriptsWaitingForRowsAreTakenByTheRowsTheyMake() async throws {
        let t = TempStore()
        let store = try t.open()
        let db = try t.sql()
        let segments: JSON = .array((0..<100).map { k in
            ["start": .int(Int64(k)), "end": .int(Int64(k) + 1), "text": .string("segment \(k) of a long sermon")]
        })
        let later = Timestamp.format(millis: Timestamp.nowMillis() + 60_000)
        let hold = store.holdSearchIndex()
        try store.writeSync { s in
            for _ in 0..<400 {
                try s.apply(try Rec.pulled(.transcripts, Rec.transcript(sermonId: Identifier.make(), updatedAt: later, segments: segments)),
                            origin: .remote)
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM search_docs").int == 0)
        let search = Task { try await store.catchUpSearch() }
        var seen: Set<Int> = []
        while true {
            let rows = Int(try db.scalar("SELECT count(*) FROM search_docs WHERE kind = 'transcript'").int ?? -1)
            seen.insert(rows)
            if rows >= 40_000 || rows < 0 { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        try await search.value
        #expect(seen.contains { $0 > 0 && $0 < 40_000 }, "the rows came in more than one chunk: \(seen.sorted())")
        #expect(try Self.ftsCount(db, "segment") == 40_000)
        #expect(try Self.pendingRows(db) == 0)
        hold.release()
        store.close()
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
    }

    /// Under a hold, a pulled new record waits in `search_pending` with no search rows; a catch-up derives
    /// them from the stored record, and they must be exactly what `search_source` (and so an inline write)
    /// makes, for every kind. A record written again while it waits gets its rows at once and leaves the
    /// queue, so the catch-up never doubles them; a tombstone never waits.
    @Test func heldPullDerivesRowsAfterwards() async throws {
        let t = TempStore()
        let store = try t.open()
        let db = try t.sql()
        let later = Timestamp.format(millis: Timestamp.nowMillis() + 60_000)
        let evenLater = Timestamp.format(millis: Timestamp.nowMillis() + 120_000)
        let sermons = (0..<3).map { _ in Identifier.make() }
        let notes = (0..<6).map { _ in Identifier.make() }
        let hold = store.holdSearchIndex()
        try store.writeSync { s in
            for (k, id) in sermons.enumerated() {
                try s.apply(try Rec.pulled(.sermons, Rec.sermon(id, title: "Pulled sermon \(k)", updatedAt: later)), origin: .remote)
            }
            try s.apply(try Rec.pulled(.transcripts, Rec.transcript(sermonId: sermons[0], updatedAt: later)), origin: .remote)
            try s.apply(try Rec.pulled(.transcripts, Rec.transcript(sermonId: sermons[1], updatedAt: later, segments: [])), origin: .remote)
            try s.apply(try Rec.pulled(.summaries, Rec.summary(sermonId: sermons[2], updatedAt: later)), origin: .remote)
            for (k, id) in notes.enumerated() {
                try s.apply(try Rec.pulled(.notes, Rec.note(id, sermonId: sermons[k % 3], text: "deferred mercy \(k)", at: Double(k) + 0.5,
                                                            updatedAt: later)), origin: .remote)
            }
            // Pulled twice in one page: the second version replaces the first and is indexed at once.
            try s.apply(try Rec.pulled(.notes, Rec.note(notes[0], sermonId: sermons[0], text: "replaced in the page", at: 1,
                                                        updatedAt: evenLater)), origin: .remote)
            // A new tombstone has nothing to index.
            try s.apply(try Rec.pulled(.notes, Rec.note(Identifier.make(), sermonId: sermons[0], text: "never shown", at: 2,
                                                        updatedAt: later, deletedAt: later), op: .delete), origin: .remote)
        }
        // Edited here while it waits: indexed at once, out of the queue.
        try store.writeSync { s in
            _ = try s.commitLocal(.notes, record: Rec.note(notes[1], sermonId: sermons[1], text: "edited while waiting", at: 3,
                                                           updatedAt: s.stamp()), op: .upsert)
        }
        let waiting = try db.scalar("SELECT count(*) FROM search_pending").int ?? -1
        #expect(waiting == 3 + 2 + 1 + 4, "3 sermons, 2 transcripts, 1 summary and 4 notes wait")
        #expect(try db.scalar("SELECT count(*) FROM search_docs WHERE record_id = ?", [.text(notes[2])]).int == 0)
        #expect(store.searchIndexBehind)

        // A search during the hold derives and indexes everything first.
        let hits = try await { () async throws -> [String] in
            try await store.catchUpSearch()
            return try await store.read { s in try s.search("mercy", filter: SearchFilter(), limit: 20, offset: 0) }.map(\.recordId)
        }()
        #expect(Set(hits) == Set(notes[2...]), "\(hits)")
        #expect(try db.scalar("SELECT count(*) FROM search_pending").int == 0)
        #expect(!store.searchIndexBehind)
        hold.release()
        store.close()

        let columns = "collection, record_id, sermon_id, kind, start, body"
        let missing = try db.query("SELECT \(columns) FROM search_source EXCEPT SELECT \(columns) FROM search_docs")
        let extra = try db.query("SELECT \(columns) FROM search_docs EXCEPT SELECT \(columns) FROM search_source")
        #expect(missing.isEmpty, "rows the records call for but the index lacks: \(missing.map(\.values))")
        #expect(extra.isEmpty, "rows the index holds for no record: \(extra.map(\.values))")
        let doubled = try db.query("SELECT \(columns), count(*) FROM search_docs GROUP BY \(columns) HAVING count(*) > 1")
        #expect(doubled.isEmpty, "rows written twice: \(doubled.map(\.values))")
        #expect(try db.scalar("SELECT count(*) FROM search_docs").int == 3 + 3 + 1 + 1 + 6)
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
    }

    /// Records a crash left waiting (a pull cut short) are derived after the next open, without a search.
    /// Their rows were the highest, so the derive finds the table's largest rowid below the watermark and
    /// must still number the new rows above it (`derivePending`'s placeholder): numbered from the largest,
    /// they were hidden from FTS and its integrity check failed.
    @Test func waitingRecordsAfterCrashAreDerived() async throws {
        let t = TempStore()
        let sermon = Identifier.make()
        let notes = (0..<4).map { _ in Identifier.make() }
        do {
            let store = try t.open()
            try store.writeSync { s in
                _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, title: "Cut short", updatedAt: s.stamp()), op: .upsert)
                for (k, id) in notes.enumerated() {
                    _ = try s.commitLocal(.notes, record: Rec.note(id, sermonId: sermon, text: "interrupted \(k)", at: Double(k), updatedAt: s.stamp()),
                                          op: .upsert)
                }
            }
            store.close()
        }
        // As the crash leaves it: the records stored, their keys waiting, no search rows.
        let db = try t.sql()
        try db.transaction {
            for r in try db.query("SELECT doc, body FROM search_docs WHERE collection = 'notes'") {
                try db.run("INSERT INTO search_index(search_index, rowid, body) VALUES ('delete', ?, ?)", [r[0], r[1]])
            }
            try db.run("DELETE FROM search_docs WHERE collection = 'notes'")
            for id in notes { try db.run("INSERT INTO search_pending(collection, record_id) VALUES ('notes', ?)", [.text(id)]) }
        }
        #expect(try Self.ftsCount(db, "interrupted") == 0)

        let store = try t.open()
        _ = try eventually(timeout: 2, every: 0.01) {
            try db.scalar("SELECT count(*) FROM search_pending").int == 0 && !store.searchIndexBehind
        }
        #expect(try db.scalar("SELECT count(*) FROM search_pending").int == 0, "derived after open, without a search")
        #expect(try Self.ftsCount(db, "interrupted") == 4)
        store.close()
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
    }

    /// Rows a crash left above the watermark (committed with their records, never added to FTS) are added
    /// by a catch-up right after the store opens (the open does not wait for it; a search would). The crash is made by hand: the rows are taken out
    /// of FTS again and the watermark set back, as if the catch-up had never run.
    @Test func openAfterCrashCatchesUp() async throws {
        let t = TempStore()
        let sermon = Identifier.make()
        do {
            let store = try t.open()
            try store.writeSync { s in
                _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, title: "Before the crash", updatedAt: s.stamp()), op: .upsert)
                for k in 0..<5 {
                    _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "unflushed \(k)", at: Double(k),
                                                                   updatedAt: s.stamp()), op: .upsert)
                }
            }
            store.close()
        }
        let db = try t.sql()
        let rows = try db.query("SELECT doc, body FROM search_docs ORDER BY doc")
        try db.transaction {
            for r in rows { try db.run("INSERT INTO search_index(search_index, rowid, body) VALUES ('delete', ?, ?)", [r[0], r[1]]) }
            try db.run("UPDATE derived_state SET version = ? WHERE name = 'search_index'", [.int((rows.first?[0].int ?? 1) - 1)])
        }
        #expect(try Self.ftsCount(db, "unflushed") == 0)
        #expect(try Self.pendingRows(db) == 6)

        let store = try t.open()
        _ = try eventually(timeout: 2, every: 0.01) { try Self.pendingRows(db) == 0 }
        #expect(try Self.pendingRows(db) == 0, "caught up after open, without a search")
        #expect(try Self.ftsCount(db, "unflushed") == 5)
        let hits = try store.readSync { s in try s.search("crash", filter: SearchFilter(), limit: 10, offset: 0) }
        #expect(hits.map(\.recordId) == [sermon])
        store.close()
        try db.run("INSERT INTO search_index(search_index, rank) VALUES ('integrity-check', 1)")
    }
}
