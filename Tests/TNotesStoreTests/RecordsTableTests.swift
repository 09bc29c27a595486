import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// Store v10 keeps `records` in a rowid table with its (collection, id) key in an index of its own (it was a
/// WITHOUT ROWID table, whose interior pages hold whole rows). What must hold: the key stays unique, an
/// upsert updates the row it finds instead of adding one, the upgrade keeps every row and what the search
/// view derives from them, and the table's interior pages stay few (the reason for the change).
@Suite("store: records in a rowid table (v10)")
struct RecordsTableTests {
    @Test func theKeyStaysUniqueAndAnUpsertUpdatesItsRow() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make(), note = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "first", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        let db = try t.sql()
        let rowid = try #require(try db.scalar("SELECT rowid FROM records WHERE collection = 'notes' AND id = ?", [.text(note)]).int)
        try await store.write { s in
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "second", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(try db.scalar("SELECT count(*) FROM records WHERE collection = 'notes' AND id = ?", [.text(note)]).int == 1)
        #expect(try db.scalar("SELECT rowid FROM records WHERE collection = 'notes' AND id = ?", [.text(note)]).int == rowid)
        #expect(try store.readSync { s in try s.record(.notes, id: note)?.body["text"]?.stringValue } == "second")
        store.close()

        // A second row with the same key is refused by the table itself, not only by the store's upsert.
        #expect(throws: SQLiteError.self) {
            try db.run("""
                INSERT INTO records(collection, id, updated_at, device_id, body) VALUES ('notes', ?, 'x', 'd', '{}')
                """, [.text(note)])
        }
    }

    @Test func theUpgradeKeepsEveryRowAndTheSearchViewsRows() throws {
        let t = TempStore()
        try copyFile(try fixturesDirectory().appendingPathComponent("v9.sqlite").path, to: t.dbPath)
        let rowsSQL = "SELECT collection, id, sermon_id, updated_at, device_id, deleted_at, sort_key, sync_state, body, queued_seq FROM records ORDER BY collection, id"
        let viewSQL = "SELECT collection, record_id, sermon_id, kind, start, body FROM search_source ORDER BY 1, 2, 4, 5, 6"
        let (rowsBefore, viewBefore): ([[SQLValue]], [[SQLValue]]) = try {
            let db = try t.sql()
            #expect(throws: SQLiteError.self) { try db.query("SELECT rowid FROM records LIMIT 1") }
            return (try db.query(rowsSQL).map(\.values), try db.query(viewSQL).map(\.values))
        }()
        #expect(!rowsBefore.isEmpty && !viewBefore.isEmpty)
        try t.open().close()

        let db = try t.sql()
        #expect(try db.scalar("PRAGMA user_version").int == Int64(Migrations.latestVersion))
        #expect(try db.query(rowsSQL).map(\.values) == rowsBefore)
        #expect(try db.query(viewSQL).map(\.values) == viewBefore)
        #expect(try db.query("SELECT rowid FROM records").count == rowsBefore.count)
        let definition = try #require(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'records'").string)
        #expect(!definition.uppercased().contains("WITHOUT ROWID"))
        let indexes = Set(try db.query("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'records'").compactMap { $0[0].string })
        #expect(indexes.isSuperset(of: ["records_by_sermon", "records_sermon_order"]))
        #expect(try db.query("PRAGMA integrity_check").compactMap { $0[0].string } == ["ok"])
    }

    /// The search's and the scripture look-ups' join to the sermon reads `records_live_sermons`: it must hold
    /// exactly the live sermons, through creation, deletion and a pulled tombstone.
    @Test func theLiveSermonIndexHoldsExactlyTheLiveSermons() async throws {
        let t = TempStore()
        let store = try t.open()
        let kept = Identifier.make(), deleted = Identifier.make(), pulledAway = Identifier.make(), note = Identifier.make()
        try await store.write { s in
            for id in [kept, deleted, pulledAway] {
                _ = try s.commitLocal(.sermons, record: Rec.sermon(id, updatedAt: s.stamp()), op: .upsert)
            }
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: kept, text: "grace", at: 1, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.sermons, record: Rec.sermon(deleted, updatedAt: s.stamp(), deletedAt: s.stamp()), op: .delete)
        }
        let far = "2999-01-01T00:00:00.000Z"
        try await store.write { s in
            _ = try s.apply(try Rec.pulled(.sermons, Rec.sermon(pulledAway, updatedAt: far, deletedAt: far), op: .delete), origin: .remote)
        }
        store.close()
        let db = try t.sql()
        let indexed = try db.query("SELECT id FROM records INDEXED BY records_live_sermons WHERE collection = 'sermons' AND deleted_at IS NULL")
            .compactMap { $0[0].string }
        #expect(indexed == [kept])
        #expect(try db.scalar("SELECT count(*) FROM records WHERE collection = 'sermons'").int == 3)
    }

    /// With rows of 300 B and more, the WITHOUT ROWID table's interior pages were ~10 % of its leaves (whole rows
    /// in them); a rowid table's interior cells are a page number and a rowid.
    @Test func theTablesInteriorPagesStayFew() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert)
            for i in 0..<4000 {
                let text = "Note \(i): walk by the Spirit, and you will not gratify the desires of the flesh."
                _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: text, at: Double(i), updatedAt: s.stamp()),
                                      op: .upsert)
            }
        }
        store.close()
        let db = try t.sql()
        let pages = Dictionary(uniqueKeysWithValues: try db.query(
            "SELECT pagetype, count(*) FROM dbstat WHERE name = 'records' GROUP BY pagetype").map { ($0[0].string ?? "", $0[1].int ?? 0) })
        let leaves = try #require(pages["leaf"])
        #expect(leaves > 100)
        #expect(Double(pages["internal"] ?? 0) < Double(leaves) * 0.02, "interior \(pages["internal"] ?? 0) against \(leaves) leaves")
    }
}
