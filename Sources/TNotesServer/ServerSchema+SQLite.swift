import TNotesCore
import TNotesSQLite

/// The SQLite backend's schema steps, in order (see `ServerSchema`).
extension ServerSchema {
    /// One step: its SQL, and work the SQL cannot do (`edit`), run after it in the step's transaction. A
    /// string literal is a step of SQL alone, so the list below reads as the SQL it runs.
    struct SQLiteStep: Sendable, ExpressibleByStringLiteral {
        let sql: String
        let edit: SchemaEdit?

        init(sql: String, edit: SchemaEdit? = nil) {
            self.sql = sql
            self.edit = edit
        }

        init(stringLiteral sql: String) {
            self.init(sql: sql)
        }
    }

    static let sqlite: [SQLiteStep] = [
        """
        CREATE TABLE server_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE users(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
        CREATE TABLE user_seq(user_id INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
        CREATE TABLE records(
            user_id INTEGER NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            sermon_id TEXT,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            deleted_at TEXT,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL CHECK(json_valid(body)),
            PRIMARY KEY(user_id, collection, id)
        ) WITHOUT ROWID;
        CREATE INDEX records_by_sermon ON records(user_id, sermon_id, collection);
        CREATE TABLE changes(
            user_id INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            op TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            body TEXT NOT NULL CHECK(json_valid(body)),
            PRIMARY KEY(user_id, seq)
        ) WITHOUT ROWID;
        CREATE TABLE applied_ops(
            user_id INTEGER NOT NULL,
            op_id TEXT NOT NULL,
            result TEXT NOT NULL,
            PRIMARY KEY(user_id, op_id)
        ) WITHOUT ROWID;
        CREATE TABLE audio(
            user_id INTEGER NOT NULL,
            sermon_id TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            size_bytes INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY(user_id, sermon_id)
        ) WITHOUT ROWID;
        """,
        // 2: the pushed versions a three-way merge replaced (contract §6.3): an edit made on one finds it as its base.
        """
        CREATE TABLE merged_inputs(
            user_id INTEGER NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            body TEXT NOT NULL CHECK(json_valid(body)),
            PRIMARY KEY(user_id, collection, id, updated_at, device_id)
        ) WITHOUT ROWID;
        """,
        // 3: public pages (contract §6.5) are read by their public id, which belongs to one publication of
        // one user: the index finds it and refuses a second owner.
        """
        CREATE UNIQUE INDEX records_by_public_id ON records(json_extract(body, '$.publicId')) WHERE collection = 'publications';
        """,
        // 4: records in a rowid table. In the WITHOUT ROWID table clustered on (user, collection, id) a row
        // lives in an index B-tree, whose cells hold at most about 1,000 bytes on a 4 KiB page: a transcript's
        // body always spilled to overflow pages and the others packed a few to a page. A rowid table holds
        // up to 4 KiB in a cell and appends; the key becomes a unique index of small entries. Measured with a
        // pulled 120 k-record set in commits of 2,000 (the records and their indexes alone): 1.5 s clustered,
        // 1.1 s as a rowid table. Same columns, constraints and indexes. (The device's store keeps its
        // clustered table: its pull did not move measurably, and search's join to the sermon, one lookup
        // there, would become two.)
        """
        CREATE TABLE records_v4(
            user_id INTEGER NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            sermon_id TEXT,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            deleted_at TEXT,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL CHECK(json_valid(body))
        );
        INSERT INTO records_v4(user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body)
            SELECT user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body FROM records ORDER BY seq;
        DROP TABLE records;
        ALTER TABLE records_v4 RENAME TO records;
        CREATE UNIQUE INDEX records_by_key ON records(user_id, collection, id);
        CREATE INDEX records_by_sermon ON records(user_id, sermon_id, collection);
        CREATE UNIQUE INDEX records_by_public_id ON records(json_extract(body, '$.publicId')) WHERE collection = 'publications';
        """,
        // 5: a body is stored once. A change logged as its record's current version keeps no body of its
        // own (NULL): the record's row has it, and a pull reads it from there. When the record moves on (an
        // update of its row, or its removal) the trigger first copies the old body into that change's row,
        // so every logged version stays readable. A push wrote each body twice, into the records and into
        // the log, and checked it as JSON twice: in the 1× full sync the log's insert took 0.45 s of the
        // writer's time and half of the bytes each commit wrote. The log takes bodies only from `records`,
        // which checks them. Rows logged before this step keep theirs.
        """
        CREATE TABLE changes_v5(
            user_id INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            op TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            body TEXT,
            PRIMARY KEY(user_id, seq)
        ) WITHOUT ROWID;
        INSERT INTO changes_v5(user_id, seq, collection, id, op, updated_at, device_id, body)
            SELECT user_id, seq, collection, id, op, updated_at, device_id, body FROM changes;
        DROP TABLE changes;
        ALTER TABLE changes_v5 RENAME TO changes;
        CREATE TRIGGER records_keep_logged_body BEFORE UPDATE ON records BEGIN
            UPDATE changes SET body = old.body WHERE user_id = old.user_id AND seq = old.seq AND body IS NULL;
        END;
        CREATE TRIGGER records_keep_logged_body_on_delete BEFORE DELETE ON records BEGIN
            UPDATE changes SET body = old.body WHERE user_id = old.user_id AND seq = old.seq AND body IS NULL;
        END;
        """,
        // 6: a record's body checked for its shape, not parsed. The CHECK parsed every pushed body whole
        // (json_valid), on the push's single writer thread: 3-9 % of a 1x push. Every body the server stores is
        // text its own encoder made, or the text of a change's record that its parser read and found canonical
        // (`JSON.parseChanges`): JSON by construction. The first character still shows that it is an object.
        // In place (`editTableDefinition`): no row is copied.
        SQLiteStep(sql: "", edit: { db in
            try db.editTableDefinition("records", replacing: "CHECK(json_valid(body))", with: "CHECK(substr(body, 1, 1) = '{')")
        }),
        // 7: a user's public handle (contract §8.5: /u/{handle}), unique on the server; NULL until chosen.
        """
        ALTER TABLE users ADD COLUMN handle TEXT;
        CREATE UNIQUE INDEX users_by_handle ON users(handle);
        """,
        // 8: devices (contract §8.6). A token belongs to one device; a user's pairing codes wait in the database
        // (the `tnotes-server user` command that makes one is another process than the server that redeems it).
        // A revoked device keeps its hash, so its token is told "revoked" rather than "unknown". Each user's live
        // token becomes a device named "legacy". IF NOT EXISTS / OR IGNORE: the upgrade tests roll `user_version`
        // back and run the later steps again over tables that are already there.
        // No index for live-record counts (a quota's usage): it would cost every push to keep it, and the count
        // runs only for users that have a quota, over their own range of records_by_key.
        SQLiteStep(sql: """
            CREATE TABLE IF NOT EXISTS devices(
                id TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL,
                name TEXT NOT NULL,
                token_hash TEXT NOT NULL UNIQUE,
                created_at TEXT NOT NULL,
                last_seen_at TEXT,
                revoked_at TEXT
            );
            CREATE INDEX IF NOT EXISTS devices_by_user ON devices(user_id);
            CREATE TABLE IF NOT EXISTS pairing_codes(
                code_hash TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            );
            CREATE TABLE IF NOT EXISTS quotas(user_id INTEGER PRIMARY KEY, records INTEGER, audio_bytes INTEGER);
            """, edit: { db in
                let live = try db.query("SELECT id, token_hash, created_at FROM users WHERE revoked_at IS NULL AND instr(token_hash, ':') = 0")
                for row in live {
                    try db.run("INSERT OR IGNORE INTO devices(id, user_id, name, token_hash, created_at) VALUES (?, ?, 'legacy', ?, ?)",
                               [.text(Identifier.make()), row[0], row[1], row[2]])
                }
            }),
    ]
}
