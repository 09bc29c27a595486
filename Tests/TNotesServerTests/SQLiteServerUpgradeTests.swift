import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

/// SQLite schema step 4 rebuilt `records` as a rowid table (it was WITHOUT ROWID, clustered on the key). A
/// database at step 3 upgrades in place: every record and logged change is kept, and pushes and pulls
/// after the upgrade work on the new table (an update of a record from before it included).
@Suite("tnotes-server: SQLite upgrade keeps the records")
struct SQLiteServerUpgradeTests {
    @Test("a step-3 database (records clustered on their key) upgrades; records, log and pulls are the same after")
    func clusteredRecordsUpgrade() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        let s1 = Wire.id(), n1 = Wire.id()
        let records: [(RecordCollection, [String: JSON])] = [
            (.sermons, Wire.sermon(s1, title: "Psalm 23 — \"The Lord is my shepherd\"\nline two")),
            (.notes, Wire.note(n1, sermonId: s1, text: "Römer 8,28 ✝", timestamp: 120.5)),
            (.transcripts, Wire.transcript(Wire.id(), sermonId: s1)),
        ]
        #expect(try http.push(records.map { Wire.change($0.0, $0.1, deviceId: "devA") }).statuses == ["applied", "applied", "applied"])
        let before = try http.pullAll(from: nil, limit: 100).changes
        _ = server.stop()

        // Back to step 3 as a server of that version left it: records clustered on (user, collection, id).
        let path = server.dataDir + "/tnotes-server.sqlite"
        let rowsBefore: [String]
        do {
            let db = try SQLiteConnection(path: path, create: false)
            rowsBefore = try Self.rows(db)
            try db.exec("""
                BEGIN;
                CREATE TABLE records_v3(user_id INTEGER NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL, sermon_id TEXT,
                    updated_at TEXT NOT NULL, device_id TEXT NOT NULL, deleted_at TEXT, seq INTEGER NOT NULL,
                    body TEXT NOT NULL CHECK(json_valid(body)), PRIMARY KEY(user_id, collection, id)) WITHOUT ROWID;
                INSERT INTO records_v3 SELECT user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body FROM records;
                DROP TABLE records;
                ALTER TABLE records_v3 RENAME TO records;
                CREATE INDEX records_by_sermon ON records(user_id, sermon_id, collection);
                CREATE UNIQUE INDEX records_by_public_id ON records(json_extract(body, '$.publicId')) WHERE collection = 'publications';
                PRAGMA user_version = 3;
                COMMIT;
                """)
            #expect(try Self.rows(db) == rowsBefore)
            #expect(try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'records'").string?.contains("WITHOUT ROWID") == true)
        }

        try server.start()
        defer { _ = server.stop() }
        do {
            let db = try SQLiteConnection(path: path, create: false, readOnly: true)
            #expect(try db.scalar("PRAGMA user_version").int == 4)
            #expect(try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'records'").string?.contains("WITHOUT ROWID") == false)
            #expect(try Self.rows(db) == rowsBefore, "every record kept, byte for byte")
        }
        let http2 = HTTPTestClient(baseURL: server.baseURL, token: token)  // a new port
        #expect(try http2.pullAll(from: nil, limit: 100).changes.map(\.text) == before.map(\.text))
        // An update of a record from before the upgrade (the unique key index finds it), and a new one.
        var edited = records[1].1
        edited["text"] = "edited after the upgrade"
        edited["updatedAt"] = .string(Wire.time(60))
        let later = Wire.change(.notes, Wire.note(Wire.id(), sermonId: s1, text: "after the upgrade", timestamp: 3), deviceId: "devB")
        #expect(try http2.push([Wire.change(.notes, edited, deviceId: "devB"), later]).statuses == ["applied", "applied"])
        let after = try http2.pullAll(from: nil, limit: 100).changes
        #expect(after.count == before.count + 2)
        #expect(after.dropLast().last?["record"]?["text"] == "edited after the upgrade")
        let db = try SQLiteConnection(path: path, create: false, readOnly: true)
        #expect(try db.scalar("SELECT count(*) FROM records WHERE id = ?", [.text(n1)]).int == 1)
        #expect(try db.scalar("SELECT json_extract(body, '$.text') FROM records WHERE id = ?", [.text(n1)]).string == "edited after the upgrade")
    }

    /// Every record row, in key order, as text.
    static func rows(_ db: SQLiteConnection) throws -> [String] {
        try db.query("SELECT user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body FROM records ORDER BY 1, 2, 3")
            .map { $0.values.map { "\($0)" }.joined(separator: "|") }
    }
}
