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
}
