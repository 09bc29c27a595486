import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// Store v11 makes the CHECKs of the tables every write fills cheap: a record's body and a queued change are
/// checked for their shape (an object's text) instead of parsed whole, and a value set is tested with ORs
/// instead of an IN list (which SQLite builds as a B-tree per statement). What must hold: the step changes
/// the tables' definitions in place (no row copied or changed, the file sound), a fresh store and an
/// upgraded one end with the same schema, the tables still refuse what the old CHECKs refused in those
/// columns' shapes and sets, and what the store writes is valid JSON all the same.
@Suite("store: cheaper CHECKs (v11)")
struct CheckConstraintTests {
    static let schemaSQL = "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"

    static func schema(_ db: SQLiteConnection) throws -> [String] {
        try db.query(schemaSQL).map { row in
            row.values.map { ($0.string ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ") }.joined(separator: " | ")
        }
    }

    @Test func theUpgradeEditsTheDefinitionsInPlaceAndMatchesAFreshStore() throws {
        let t = TempStore()
        try copyFile(try fixturesDirectory().appendingPathComponent("v10.sqlite").path, to: t.dbPath)
        let rowsSQL = "SELECT rowid, * FROM records ORDER BY rowid"
        let rowsBefore = try t.sql().query(rowsSQL).map(\.values)
        let outboxBefore = try t.sql().query("SELECT * FROM outbox ORDER BY seq").map(\.values)
        #expect(!rowsBefore.isEmpty)
        try t.open().close()

        let db = try t.sql()
        #expect(try db.scalar("PRAGMA user_version").int == Int64(Migrations.latestVersion))
        #expect(try db.query(rowsSQL).map(\.values) == rowsBefore)
        #expect(try db.query("SELECT * FROM outbox ORDER BY seq").map(\.values) == outboxBefore)
        #expect(try db.query("PRAGMA integrity_check").compactMap { $0[0].string } == ["ok"])
        let records = try #require(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'records'").string)
        #expect(!records.contains("json_valid") && records.contains("CHECK(substr(body, 1, 1) = '{')"))
        #expect(!records.contains(" IN (") && records.contains("sync_state = 'error'"))
        let history = try #require(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'history'").string)
        #expect(!history.contains(" IN (") && history.contains("reason = 'delete'"))
        let jobs = try #require(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'jobs'").string)
        #expect(!jobs.contains(" IN (") && jobs.contains("kind = 'chat'") && jobs.contains("state = 'failed'"))
        let outbox = try #require(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'outbox'").string)
        #expect(!outbox.contains("json_valid") && outbox.contains("CHECK(substr(change, 1, 1) = '{')"))

        // The fixtures' statements keep the indentation of the Swift source they were made from; the
        // words are compared.
        let fresh = TempStore()
        try fresh.open().close()
        #expect(try Self.schema(fresh.sql()) == (try Self.schema(db)))
    }

    @Test("the tables still refuse a body or change that is not an object's text", arguments: ["", "[1]", "text", "\"s\""])
    func theTablesRefuseANonObject(text: String) throws {
        let t = TempStore()
        try t.open().close()
        let db = try t.sql()
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO records(collection, id, updated_at, device_id, body) VALUES ('notes', 'x', 'u', 'd', ?)", [.text(text)])
        }
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO outbox(seq, op_id, collection, record_id, op, change, created_at) VALUES (1, 'o', 'notes', 'x', 'upsert', ?, 'c')",
                       [.text(text)])
        }
        #expect(try db.scalar("SELECT count(*) FROM records").int == 0)
    }

    @Test func theTablesStillRefuseAValueOutsideTheirSets() throws {
        let t = TempStore()
        try t.open().close()
        let db = try t.sql()
        for state in ["pending", "synced", "error"] {
            try db.run("INSERT INTO records(collection, id, updated_at, device_id, sync_state, body) VALUES ('notes', ?, 'u', 'd', ?, '{}')",
                       [.text(state), .text(state)])
        }
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO records(collection, id, updated_at, device_id, sync_state, body) VALUES ('notes', 'x', 'u', 'd', 'Synced', '{}')")
        }
        for reason in ["edit", "remote", "merge", "restore", "delete"] {
            try db.run("INSERT INTO history(collection, id, updated_at, device_id, body, replaced_at, reason) VALUES ('notes', 'x', 'u', 'd', '{}', 'r', ?)",
                       [.text(reason)])
        }
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO history(collection, id, updated_at, device_id, body, replaced_at, reason) VALUES ('notes', 'x', 'u', 'd', '{}', 'r', 'lost')")
        }
        for (kind, state) in [("transcribe", "queued"), ("summarize", "running"), ("chat", "done"), ("chat", "failed")] {
            try db.run("INSERT INTO jobs(id, kind, sermon_id, state, created_at, updated_at) VALUES (?, ?, 's', ?, 'c', 'u')",
                       [.text(kind + state), .text(kind), .text(state)])
        }
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO jobs(id, kind, sermon_id, state, created_at, updated_at) VALUES ('j1', 'dance', 's', 'queued', 'c', 'u')")
        }
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO jobs(id, kind, sermon_id, state, created_at, updated_at) VALUES ('j2', 'chat', 's', 'paused', 'c', 'u')")
        }
        #expect(try db.scalar("SELECT count(*) FROM jobs").int == 4)
        #expect(try db.scalar("SELECT count(*) FROM records").int == 3)
        #expect(try db.scalar("SELECT count(*) FROM history").int == 5)
    }

    @Test func aDefinitionEditThatDoesNotMatchChangesNothing() throws {
        let t = TempStore()
        try t.open().close()
        let db = try t.sql()
        let before = try db.query(Self.schemaSQL).map(\.values)
        #expect(throws: SQLiteError.self) {
            try db.transaction { try db.editTableDefinition("records", replacing: "CHECK(no such text)", with: "") }
        }
        // A replacement that leaves a statement SQLite cannot parse is refused inside the transaction.
        #expect(throws: SQLiteError.self) {
            try db.transaction { try db.editTableDefinition("records", replacing: "CHECK(substr(body, 1, 1) = '{')", with: "CHECK(((") }
        }
        // Made before (a step run again): nothing to do, nothing changed.
        try db.transaction {
            try db.editTableDefinition("records", replacing: "CHECK(json_valid(body) AND json_type(body) = 'object')",
                                       with: "CHECK(substr(body, 1, 1) = '{')")
        }
        #expect(try db.query(Self.schemaSQL).map(\.values) == before)
        #expect(try SQLiteConnection(path: t.dbPath, create: false).query("PRAGMA integrity_check").compactMap { $0[0].string } == ["ok"])
    }

    @Test func whatTheStoreWritesIsValidJSONObjects() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert)
            for i in 0..<20 {
                _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "n \(i) \u{1F600} \"q\" \\ é",
                                                                at: Double(i), updatedAt: s.stamp()), op: .upsert)
            }
        }
        store.close()
        let db = try t.sql()
        #expect(try db.scalar("SELECT count(*) FROM records").int == 21)
        #expect(try db.scalar("SELECT count(*) FROM records WHERE NOT json_valid(body) OR json_type(body) != 'object'").int == 0)
        #expect(try db.scalar("SELECT count(*) FROM outbox").int == 21)
        #expect(try db.scalar("SELECT count(*) FROM outbox WHERE NOT json_valid(change) OR json_type(change) != 'object'").int == 0)
    }
}
