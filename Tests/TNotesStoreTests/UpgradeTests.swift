import Foundation
import Logging
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// Every schema version has a committed fixture with data. Each one upgrades to the latest schema with
/// every row kept (counts and content digests), and with a backup made first when there was anything to migrate.
@Suite("upgrades from every schema version")
struct UpgradeTests {
    static let versions = Array(1...Migrations.latestVersion)

    @Test("every version has a fixture")
    func everyVersionHasAFixture() throws {
        for v in Self.versions {
            let path = try fixturesDirectory().appendingPathComponent("v\(v).sqlite").path
            #expect(FileManager.default.fileExists(atPath: path), "no fixture for schema version \(v)")
        }
    }

    @Test("upgrades to the latest schema keeping every row", arguments: versions)
    func upgrade(from version: Int) throws {
        let dir = TempDirectory()
        let path = dir.file("tnotes.sqlite")
        try FileManager.default.copyItem(atPath: try fixturesDirectory().appendingPathComponent("v\(version).sqlite").path,
                                         toPath: path)
        let before = try Self.digests(path)
        let statesBefore = try Self.syncStates(path, sql: Self.syncStateBeforeV9)
        let store = try Store(path: path, backupDirectory: dir.file("backups"), logger: Logger(label: "test"))
        #expect(store.migratedFrom == version)
        #expect(store.schemaVersion == Migrations.latestVersion)
        store.close()
        // A column a step adds is not a row changed: the columns the fixture had are compared.
        let after = try Self.digests(path, columnsOf: before)
        // Every record reads the same sync state, however the store works it out (v9: the record's queued_seq).
        #expect(try Self.syncStates(path, sql: StoreSession.syncStateSQL) == statesBefore)
        for (table, digest) in before {
            #expect(after[table] == digest, "table \(table) changed in the upgrade from v\(version)")
        }
        let backups = (try? FileManager.default.contentsOfDirectory(atPath: dir.file("backups"))) ?? []
        if version < Migrations.latestVersion {
            #expect(backups.count == 1, "one backup before migrating v\(version)")
            if let b = backups.first {
                let backup = try Self.digests(dir.file("backups/\(b)"))
                #expect(backup == before, "the backup is not the database as it was")
            }
        } else {
            #expect(backups.isEmpty, "nothing to migrate, so no backup")
        }
        print("upgrade v\(version) → v\(Migrations.latestVersion): " + before.keys.sorted().map { "\($0) \(before[$0]!.count)" }.joined(separator: ", "))
    }

    /// How a record's sync state was read before store v9 (from the outbox by record).
    static let syncStateBeforeV9 = """
        CASE WHEN records.sync_state = 'pending' AND NOT EXISTS (SELECT 1 FROM outbox
            WHERE outbox.collection = records.collection AND outbox.record_id = records.id AND outbox.state = 'queued')
        THEN 'synced' ELSE records.sync_state END
        """

    /// "collection id state" for every record, in key order.
    static func syncStates(_ path: String, sql: String) throws -> [String] {
        let db = try SQLiteConnection(path: path, create: false)
        return try db.query("SELECT collection, id, \(sql) FROM records ORDER BY collection, id")
            .map { $0.values.map { "\($0)" }.joined(separator: " ") }
    }

    /// table → (row count, digest of all rows in key order), for every table the fixture has; with
    /// `columnsOf`, of the columns those digests were made of.
    static func digests(_ path: String, columnsOf reference: [String: Digest] = [:]) throws -> [String: Digest] {
        let db = try SQLiteConnection(path: path, create: false)
        var out = [String: Digest]()
        let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .compactMap { $0[0].string }
        // Derived indexes (full-text search, scripture references) are not data: the store may rebuild them
        // at open (a new parser version), so they are left out of "every row kept".
        let derived = ["search_", "scripture_refs", "derived_state"]
        for t in tables where !derived.contains(where: { t.hasPrefix($0) }) {
            let columns = try reference[t]?.columns
                ?? db.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(t)]).compactMap { $0[0].string }
            let rows = try db.query("SELECT \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \(t) ORDER BY 1, 2")
            var text = ""
            for r in rows { text += r.values.map { "\($0)" }.joined(separator: "|") + "\n" }
            out[t] = Digest(columns: columns, count: rows.count, text: text)
        }
        return out
    }

    struct Digest: Equatable {
        let columns: [String]
        let count: Int
        let text: String
    }
}
