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
        let records: [(RecordCollection, JSONObject)] = [
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
                DROP INDEX users_by_handle;  -- step 7
                ALTER TABLE users DROP COLUMN handle;
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
            #expect(try db.scalar("PRAGMA user_version").int == 8)
            let definition = try db.scalar("SELECT sql FROM sqlite_master WHERE name = 'records'").string ?? ""
            #expect(!definition.contains("WITHOUT ROWID"))
            // Step 6: the body checked for its shape, not parsed.
            #expect(!definition.contains("json_valid") && definition.contains("CHECK(substr(body, 1, 1) = '{')"))
            #expect(try db.query("PRAGMA integrity_check").compactMap { $0[0].string } == ["ok"])
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
        #expect(try db.scalar("SELECT count(*) FROM records WHERE NOT json_valid(body) OR json_type(body) != 'object'").int == 0)
        #expect(try db.scalar("SELECT count(*) FROM records WHERE id = ?", [.text(n1)]).int == 1)
        #expect(try db.scalar("SELECT json_extract(body, '$.text') FROM records WHERE id = ?", [.text(n1)]).string == "edited after the upgrade")
    }

    @Test("a body is stored once: the log's current version has none of its own; a record moving on or an upgrade keeps every older one")
    func bodyStoredOnce() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        let s = Wire.id(), n = Wire.id()
        #expect(try http.push([Wire.change(.sermons, Wire.sermon(s)),
                               Wire.change(.notes, Wire.note(n, sermonId: s, text: "v1", updatedAt: Wire.time(10)))]).statuses
                == ["applied", "applied"])
        #expect(try http.push([Wire.change(.notes, Wire.note(n, sermonId: s, text: "v2", updatedAt: Wire.time(20)))]).statuses
                == ["applied"])
        let path = server.dataDir + "/tnotes-server.sqlite"
        func loggedBodies() throws -> [String?] {
            let db = try SQLiteConnection(path: path, create: false, readOnly: true)
            return try db.query("SELECT json_extract(body, '$.text') FROM changes WHERE id = ? ORDER BY seq", [.text(n)]).map { $0[0].string }
        }
        // v1 was copied into its log row when v2 replaced it; v2, the current one, lives only in the record.
        #expect(try loggedBodies() == ["v1", nil])
        #expect(try http.pullAll(from: nil, limit: 1).changes.compactMap { $0["record"]?["text"]?.stringValue } == ["v1", "v2"])
        // A delete moves the record on again: v2 is copied, the tombstone is the record's.
        #expect(try http.push([Wire.change(.notes, Wire.note(n, sermonId: s, text: "v2", updatedAt: Wire.time(30),
                                                             deletedAt: Wire.time(30)))]).statuses == ["applied"])
        #expect(try loggedBodies() == ["v1", "v2", nil])
        _ = server.stop()

        // A step-4 log (a body in every row, NOT NULL) upgrades with its bodies; later pushes store theirs once.
        do {
            let db = try SQLiteConnection(path: path, create: false)
            try db.exec("""
                BEGIN;
                DROP INDEX users_by_handle;  -- step 7
                ALTER TABLE users DROP COLUMN handle;
                DROP TRIGGER records_keep_logged_body;
                DROP TRIGGER records_keep_logged_body_on_delete;
                CREATE TABLE changes_v4(user_id INTEGER NOT NULL, seq INTEGER NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
                    op TEXT NOT NULL, updated_at TEXT NOT NULL, device_id TEXT NOT NULL, body TEXT NOT NULL CHECK(json_valid(body)),
                    PRIMARY KEY(user_id, seq)) WITHOUT ROWID;
                INSERT INTO changes_v4 SELECT c.user_id, c.seq, c.collection, c.id, c.op, c.updated_at, c.device_id,
                    coalesce(c.body, (SELECT body FROM records r WHERE r.user_id = c.user_id AND r.collection = c.collection AND r.id = c.id))
                    FROM changes c;
                DROP TABLE changes;
                ALTER TABLE changes_v4 RENAME TO changes;
                PRAGMA user_version = 4;
                COMMIT;
                """)
            #expect(try db.scalar("SELECT count(*) FROM changes WHERE body IS NULL").int == 0)
        }
        try server.start()
        defer { _ = server.stop() }
        let http2 = HTTPTestClient(baseURL: server.baseURL, token: token)
        #expect(try http2.push([Wire.change(.notes, Wire.note(n, sermonId: s, text: "v4", updatedAt: Wire.time(40)))]).statuses
                == ["applied"])
        #expect(try loggedBodies() == ["v1", "v2", "v2", nil])
        let pulled = try http2.pullAll(from: nil, limit: 2).changes.filter { $0["id"]?.stringValue == n }
        #expect(pulled.map { $0["record"]?["text"]?.stringValue } == ["v1", "v2", "v2", "v4"])
        #expect(pulled.map { $0["op"]?.stringValue } == ["upsert", "upsert", "delete", "upsert"])
    }

    @Test("step 6: the records table refuses a body that is not an object's text", arguments: ["", "[1]", "text", "\"s\""])
    func recordsRefuseANonObject(body: String) throws {
        let server = ServerProcess()
        _ = try server.addUser("alice")
        let db = try SQLiteConnection(path: server.dataDir + "/tnotes-server.sqlite", create: false)
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO records(user_id, collection, id, updated_at, device_id, seq, body) VALUES (1, 'notes', 'x', 'u', 'd', 1, ?)",
                       [.text(body)])
        }
        try db.run("INSERT INTO records(user_id, collection, id, updated_at, device_id, seq, body) VALUES (1, 'notes', 'y', 'u', 'd', 2, '{}')")
        #expect(try db.scalar("SELECT count(*) FROM records").int == 1)
    }

    /// Every record row, in key order, as text.
    static func rows(_ db: SQLiteConnection) throws -> [String] {
        try db.query("SELECT user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body FROM records ORDER BY 1, 2, 3")
            .map { $0.values.map { "\($0)" }.joined(separator: "|") }
    }
}
