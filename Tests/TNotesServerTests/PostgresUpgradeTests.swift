import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// PostgreSQL schema steps 5 and 6 turned the change log's and the records' bodies from jsonb into the
/// server's canonical text. A database at step 4, holding rows as jsonb, upgrades in place and pulls the
/// same records after.
@Suite("tnotes-server: PostgreSQL upgrade keeps the change log")
struct PostgresUpgradeTests {
    @Test("a step-4 database (bodies as jsonb) upgrades; every logged change pulls the same, old rows and new")
    func jsonbLogUpgrades() throws {
        let pg = try PostgresServer.shared.get()
        let url = try pg.makeDatabase()
        let server = ServerProcess(database: url)
        let token = try server.addUser("alice")
        try server.start()
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        let s1 = Wire.id()
        let records: [(RecordCollection, JSONObject)] = [
            (.sermons, Wire.sermon(s1, title: "Psalm 23 — \"The Lord is my shepherd\"\nline two")),
            (.notes, Wire.note(Wire.id(), sermonId: s1, text: "Römer 8,28 ✝", timestamp: 120.5)),
            (.transcripts, Wire.transcript(Wire.id(), sermonId: s1)),
        ]
        #expect(try http.push(records.map { Wire.change($0.0, $0.1, deviceId: "devA") }).statuses == ["applied", "applied", "applied"])
        let before = try http.pullAll(from: nil, limit: 100).changes
        _ = server.stop()

        // Back to step 4 as a server of that version left it: no batch function (steps 10 to 12), a body in every
        // logged row (step 8 keeps the current version's in the record only), the log's and the records'
        // bodies jsonb (step 5 made the log's text, step 6 the records').
        _ = try pg.sql(url, """
            ALTER TABLE records ALTER COLUMN collection TYPE text COLLATE "default", ALTER COLUMN id TYPE text COLLATE "default",
                ALTER COLUMN sermon_id TYPE text COLLATE "default"
            """)
        _ = try pg.sql(url, "ALTER TABLE applied_ops ALTER COLUMN op_id TYPE text COLLATE \"default\"")
        _ = try pg.sql(url, "DROP TRIGGER records_keep_logged_body ON records")
        _ = try pg.sql(url, "DROP FUNCTION records_keep_logged_body()")
        _ = try pg.sql(url, "ALTER TABLE users DROP COLUMN handle")  // step 14 (its index goes with it)
        _ = try pg.sql(url, "DROP INDEX records_by_seq")  // step 13
        _ = try pg.sql(url, "DROP FUNCTION tnotes_push_batch")  // step 12
        _ = try pg.sql(url, "DROP FUNCTION tnotes_apply_batch")  // step 11 (step 10 makes the one it replaces)
        _ = try pg.sql(url, """
            UPDATE changes AS c SET body = r.body FROM records AS r
            WHERE c.body IS NULL AND r.user_id = c.user_id AND r.collection = c.collection AND r.id = c.id AND r.seq = c.seq
            """)
        _ = try pg.sql(url, "ALTER TABLE changes ALTER COLUMN body SET NOT NULL")
        _ = try pg.sql(url, "ALTER TABLE changes ALTER COLUMN body TYPE jsonb USING body::jsonb")
        _ = try pg.sql(url, "DROP INDEX records_by_public_id")
        _ = try pg.sql(url, "ALTER TABLE records ALTER COLUMN body TYPE jsonb USING body::jsonb")
        _ = try pg.sql(url, "CREATE UNIQUE INDEX records_by_public_id ON records((body->>'publicId')) WHERE collection = 'publications'")
        _ = try pg.sql(url, "UPDATE schema_version SET version = 4")
        #expect(try pg.sql(url, "SELECT data_type FROM information_schema.columns WHERE table_name = 'changes' AND column_name = 'body'") == "jsonb")

        try server.start()
        defer { _ = server.stop() }
        let http2 = HTTPTestClient(baseURL: server.baseURL, token: token)  // a new port
        #expect(try pg.sql(url, "SELECT data_type FROM information_schema.columns WHERE table_name = 'changes' AND column_name = 'body'") == "text")
        #expect(try pg.sql(url, "SELECT data_type FROM information_schema.columns WHERE table_name = 'records' AND column_name = 'body'") == "text")
        #expect(try pg.sql(url, "SELECT version FROM schema_version") == "15")
        // Step 11's call stays beside step 12's, for an instance of the previous build during a rolling upgrade.
        #expect(try pg.sql(url, "SELECT count(*) FROM pg_proc WHERE proname IN ('tnotes_apply_batch', 'tnotes_push_batch')") == "2")
        #expect(try pg.sql(url, "SELECT collation_name FROM information_schema.columns WHERE table_name = 'records' AND column_name = 'id'") == "C")
        #expect(try pg.sql(url, "SELECT count(*) FROM changes WHERE body IS NULL") == "0", "rows logged before keep their bodies")
        // A change logged after the upgrade, as canonical text.
        let later = Wire.change(.notes, Wire.note(Wire.id(), sermonId: s1, text: "after the upgrade", timestamp: 3), deviceId: "devB")
        #expect(try http2.push([later]).statuses == ["applied"])
        let after = try http2.pullAll(from: nil, limit: 100).changes
        #expect(after.count == before.count + 1)
        for (old, new) in zip(before, after) {
            #expect(new["seq"] == old["seq"] && new["id"] == old["id"])
            #expect(Wire.canonical(new["record"] ?? .null) == Wire.canonical(old["record"] ?? .null), "\(new.text)")
        }
        for (collection, record) in records {
            let got = after.first { $0["id"] == record["id"] }
            #expect(got?["collection"]?.stringValue == collection.rawValue)
            #expect(Wire.canonical(got?["record"] ?? .null) == Wire.canonical(.object(record)))
        }
        #expect(after.last?["record"]?["text"] == "after the upgrade")
        #expect(try pg.sql(url, "SELECT count(*) FROM changes WHERE body IS NULL") == "1", "the new one's body is its record's")
    }
}
