import TNotesSQLite

/// The schema, as one ordered list of steps. Step N takes a database from `user_version` N-1 to N.
/// Steps are only ever appended: a released step never changes, so every old database upgrades the same way.
public struct Migration: Sendable {
    public let version: Int
    public let summary: String
    public let sql: String
    /// Work SQL alone cannot do (an edit of a table's stored definition), run after `sql` in its transaction.
    public let edit: SchemaEdit?

    init(version: Int, summary: String, sql: String, edit: SchemaEdit? = nil) {
        self.version = version
        self.summary = summary
        self.sql = sql
        self.edit = edit
    }
}

public enum Migrations {
    public static let all: [Migration] = [
        Migration(version: 1, summary: "records, outbox, pull cursor, meta", sql: """
            CREATE TABLE meta(
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) WITHOUT ROWID;

            -- Every synced record of every collection, as its canonical JSON body (the same text the
            -- outbox queues and the wire carries). Transcript segments live inside the body as a real
            -- JSON array; the CHECK refuses a body that is not a JSON object.
            CREATE TABLE records(
                collection TEXT NOT NULL,
                id TEXT NOT NULL,
                sermon_id TEXT,
                updated_at TEXT NOT NULL,
                device_id TEXT NOT NULL,
                deleted_at TEXT,
                sort_key TEXT,
                sync_state TEXT NOT NULL DEFAULT 'pending' CHECK(sync_state IN ('pending','synced','error')),
                body TEXT NOT NULL CHECK(json_valid(body) AND json_type(body) = 'object'),
                PRIMARY KEY(collection, id)
            ) WITHOUT ROWID;
            CREATE INDEX records_by_sermon ON records(sermon_id, collection);
            CREATE INDEX records_sermon_order ON records(collection, sort_key DESC, id DESC);

            -- The durable sync queue: each row holds the exact Change body that will be pushed.
            CREATE TABLE outbox(
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                op_id TEXT NOT NULL UNIQUE,
                collection TEXT NOT NULL,
                record_id TEXT NOT NULL,
                op TEXT NOT NULL CHECK(op IN ('upsert','delete')),
                change TEXT NOT NULL CHECK(json_valid(change)),
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                state TEXT NOT NULL DEFAULT 'queued' CHECK(state IN ('queued','failed')),
                created_at TEXT NOT NULL
            );

            CREATE TABLE sync_cursor(
                id INTEGER PRIMARY KEY CHECK(id = 1),
                cursor TEXT NOT NULL,
                updated_at TEXT NOT NULL
            );
            """),
        Migration(version: 2, summary: "local audio files, outbox state index", sql: """
            -- What this device holds of each sermon's audio; not synced (the sermon's audio metadata is).
            CREATE TABLE audio_files(
                sermon_id TEXT PRIMARY KEY,
                path TEXT,
                sha256 TEXT,
                size_bytes INTEGER,
                local_available INTEGER NOT NULL DEFAULT 0,
                uploaded INTEGER NOT NULL DEFAULT 0,
                updated_at TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX outbox_by_state ON outbox(state, seq);
            """),
        Migration(version: 3, summary: "outbox entries by record", sql: """
            -- Settling a pushed entry asks whether its record still has queued entries; without this
            -- index that question scanned the whole outbox, which made a large push quadratic.
            CREATE INDEX outbox_by_record ON outbox(collection, record_id, state);
            """),
        Migration(version: 4, summary: "history of replaced versions", sql: """
            -- Every version this device held, kept when another replaced it (a local edit, a delete, a
            -- remote version, a server merge, a restore): one insert beside the write that replaces it.
            -- Kept at least [history] keep_days; never synced.
            CREATE TABLE history(
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                collection TEXT NOT NULL,
                id TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                device_id TEXT NOT NULL,
                body TEXT NOT NULL,
                replaced_at TEXT NOT NULL,
                reason TEXT NOT NULL CHECK(reason IN ('edit','remote','merge','restore','delete'))
            );
            CREATE INDEX history_by_record ON history(collection, id, seq);
            CREATE INDEX history_by_age ON history(replaced_at);
            """),
        Migration(version: 5, summary: "processing jobs", sql: """
            -- The local work queue (contract §6.1): transcriptions, summaries and assistant answers this
            -- device does. Separate from the outbox and never synced (the records a job writes are). A job's
            -- result and its `done` commit in one transaction, so a crash either loses the whole attempt
            -- (the job runs again) or none of it: a job is never lost and never done twice.
            CREATE TABLE jobs(
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL CHECK(kind IN ('transcribe','summarize','chat')),
                sermon_id TEXT NOT NULL,
                params TEXT NOT NULL DEFAULT '{}' CHECK(json_valid(params) AND json_type(params) = 'object'),
                state TEXT NOT NULL DEFAULT 'queued' CHECK(state IN ('queued','running','done','failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                -- Unix milliseconds before which a queued job waits (its retry backoff).
                not_before INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX jobs_runnable ON jobs(state, not_before, created_at);
            CREATE INDEX jobs_by_sermon ON jobs(sermon_id, kind, state);
            """),
        Migration(version: 6, summary: "full-text search and scripture references", sql: """
            -- Full-text search (contract §6.2). search_docs holds one row per searchable piece: a sermon's title
            -- and speaker, a note, a transcript segment (with its start, so a hit can seek into the audio), a
            -- summary. Triggers on records keep it in step inside the very transaction that writes a record,
            -- local edit or pulled change alike; a tombstone leaves no row. search_index is FTS5 over it
            -- (external content: the text is stored once, in search_docs), with Porter stemming, so "forgive"
            -- finds "forgiveness".
            CREATE TABLE search_docs(
                doc INTEGER PRIMARY KEY,
                collection TEXT NOT NULL,
                record_id TEXT NOT NULL,
                sermon_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                start REAL,
                body TEXT NOT NULL
            );
            CREATE INDEX search_docs_by_record ON search_docs(collection, record_id);
            CREATE VIRTUAL TABLE search_index USING fts5(body, content='search_docs', content_rowid='doc',
                tokenize='porter unicode61 remove_diacritics 2');
            CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
                INSERT INTO search_index(rowid, body) VALUES (new.doc, new.body);
            END;
            CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
                INSERT INTO search_index(search_index, rowid, body) VALUES ('delete', old.doc, old.body);
            END;
            CREATE VIEW search_source(collection, record_id, sermon_id, kind, start, body) AS
                SELECT collection, id, id, 'sermon', NULL,
                       json_extract(body, '$.title') || ' ' || coalesce(json_extract(body, '$.speaker'), '')
                  FROM records WHERE collection = 'sermons' AND deleted_at IS NULL
                UNION ALL
                SELECT collection, id, sermon_id, 'note', json_extract(body, '$.timestamp'), json_extract(body, '$.text')
                  FROM records WHERE collection = 'notes' AND deleted_at IS NULL
                UNION ALL
                SELECT r.collection, r.id, r.sermon_id, 'transcript', json_extract(seg.value, '$.start'), json_extract(seg.value, '$.text')
                  FROM records AS r, json_each(r.body, '$.segments') AS seg
                 WHERE r.collection = 'transcripts' AND r.deleted_at IS NULL
                UNION ALL
                SELECT collection, id, sermon_id, 'transcript', NULL, json_extract(body, '$.text')
                  FROM records WHERE collection = 'transcripts' AND deleted_at IS NULL AND json_array_length(body, '$.segments') = 0
                UNION ALL
                SELECT collection, id, sermon_id, 'summary', NULL, json_extract(body, '$.title') || char(10) || json_extract(body, '$.text')
                  FROM records WHERE collection = 'summaries' AND deleted_at IS NULL;
            CREATE TRIGGER records_search_ai AFTER INSERT ON records
            WHEN new.collection IN ('sermons', 'notes', 'transcripts', 'summaries') BEGIN
                INSERT INTO search_docs(collection, record_id, sermon_id, kind, start, body)
                SELECT collection, record_id, sermon_id, kind, start, body FROM search_source
                 WHERE collection = new.collection AND record_id = new.id;
            END;
            CREATE TRIGGER records_search_au AFTER UPDATE ON records
            WHEN new.collection IN ('sermons', 'notes', 'transcripts', 'summaries') BEGIN
                DELETE FROM search_docs WHERE collection = old.collection AND record_id = old.id;
                INSERT INTO search_docs(collection, record_id, sermon_id, kind, start, body)
                SELECT collection, record_id, sermon_id, kind, start, body FROM search_source
                 WHERE collection = new.collection AND record_id = new.id;
            END;
            INSERT INTO search_docs(collection, record_id, sermon_id, kind, start, body)
            SELECT collection, record_id, sermon_id, kind, start, body FROM search_source;

            -- Scripture references found in notes, transcript segments, summaries and titles, written by the
            -- store as it writes the record (the parser is Swift: TNotesScripture). derived_state names the
            -- parser version that filled it; a store opened by another parser version refills it.
            CREATE TABLE scripture_refs(
                collection TEXT NOT NULL,
                record_id TEXT NOT NULL,
                sermon_id TEXT NOT NULL,
                ordinal INTEGER NOT NULL,
                book TEXT NOT NULL,
                chapter INTEGER NOT NULL,
                verse_start INTEGER,
                verse_end INTEGER,
                start REAL,
                PRIMARY KEY(collection, record_id, ordinal)
            ) WITHOUT ROWID;
            CREATE INDEX scripture_refs_by_passage ON scripture_refs(book, chapter);
            CREATE INDEX scripture_refs_by_sermon ON scripture_refs(sermon_id);
            CREATE TABLE derived_state(
                name TEXT PRIMARY KEY,
                version INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        Migration(version: 7, summary: "the search index written beside each record, not by triggers", sql: """
            -- v6's triggers made every record write a statement with a savepoint, and FTS5 writes its pending
            -- terms to disk at every savepoint: one tiny index segment per record (7 s of a 120 k-record pull
            -- went to the index alone), and an update of sync_state alone re-indexed the record. The store now
            -- writes search_docs beside the record and adds the new rows to FTS once per write (SearchIndex).
            -- The rows already indexed stay as they are; search_source stays as the definition of them.
            DROP TRIGGER records_search_ai;
            DROP TRIGGER records_search_au;
            DROP TRIGGER search_docs_ai;
            DROP TRIGGER search_docs_ad;

            -- Fewer B-trees written per note: the sermon order index held every record (a note's sort_key is
            -- NULL) though only sermons are listed by it; the outbox is read in seq order (its rowid), and failed
            -- entries are few, so the (state, seq) index only cost a page per write.
            DROP INDEX records_sermon_order;
            CREATE INDEX records_sermon_order ON records(sort_key DESC, id DESC) WHERE collection = 'sermons';
            DROP INDEX outbox_by_state;
            """),
        Migration(version: 8, summary: "search rows of a large pull's new records derived after it", sql: """
            -- Records a pull (holding the search index, Store.holdSearchIndex) stored without their search_docs
            -- rows: a catch-up after the pull derives them from the records, as search_source does, and removes
            -- the keys. Written in the record's own transaction, so a crash leaves no record unaccounted for.
            CREATE TABLE search_pending(
                collection TEXT NOT NULL,
                record_id TEXT NOT NULL,
                PRIMARY KEY(collection, record_id)
            ) WITHOUT ROWID;
            """),
        Migration(version: 9, summary: "three B-trees fewer per local write", sql: """
            -- A durable write's cost grows with the pages its commit writes to the WAL (each ~13 µs on the
            -- measured disk: 117 µs for one page, 216 µs for eight), and a note.add wrote eight. Three go here:
            --
            -- 1. outbox_by_record answered one question: does a pending record still have a queued entry? The
            --    record now names its latest entry (queued_seq, in the row the write writes anyway), and the
            --    question is a look-up of that seq. Entries are pushed and settled in seq order, so the latest
            --    entry gone means every earlier one is too.
            -- 2. op_id's UNIQUE index: op ids are fresh UUIDs made at the write, and nothing looks one up here
            --    (the server is where an op id must be unique, and is checked).
            -- 3. AUTOINCREMENT's counter row (sqlite_sequence). The store gives each entry a seq past both the
            --    greatest in the table and every seq it gave since it opened (StoreSession.queue), so a running
            --    daemon never gives one twice. A seq may come again after a restart, once its entry is gone:
            --    nothing outlives a run holding one but queued_seq, which is only read with its record's id.
            -- The outbox is rebuilt with its seqs for 2 and 3.
            ALTER TABLE records ADD COLUMN queued_seq INTEGER;
            UPDATE records SET queued_seq = (
                SELECT max(seq) FROM outbox INDEXED BY outbox_by_record
                 WHERE outbox.collection = records.collection AND outbox.record_id = records.id AND outbox.state = 'queued')
             WHERE sync_state = 'pending';
            DROP INDEX outbox_by_record;

            CREATE TABLE outbox_v9(
                seq INTEGER PRIMARY KEY,
                op_id TEXT NOT NULL,
                collection TEXT NOT NULL,
                record_id TEXT NOT NULL,
                op TEXT NOT NULL CHECK(op IN ('upsert','delete')),
                change TEXT NOT NULL CHECK(json_valid(change)),
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                state TEXT NOT NULL DEFAULT 'queued' CHECK(state IN ('queued','failed')),
                created_at TEXT NOT NULL
            );
            INSERT INTO outbox_v9(seq, op_id, collection, record_id, op, change, attempts, last_error, state, created_at)
                SELECT seq, op_id, collection, record_id, op, change, attempts, last_error, state, created_at FROM outbox ORDER BY seq;
            DROP TABLE outbox;
            ALTER TABLE outbox_v9 RENAME TO outbox;
            """),
        Migration(version: 10, summary: "records in a rowid table: its key in an index of its own", sql: """
            -- records was a WITHOUT ROWID table, and such a table's interior pages hold whole rows: with rows of
            -- 300 B to 1.8 KB its fan-out was ~8, so 10.6 % of its pages were interior ones (1,630 at 120 k
            -- records; ~26 k, 107 MB, at 1.9 M), and a look-up read seven levels at 1.9 M records. Past the
            -- 32 MiB page cache each miss is a read system call, and a pull looks every record up. As a rowid
            -- table (rows appended in insertion order) with its (collection, id) key in an index of ~60-byte
            -- cells, the interior pages are 73 at 120 k records, a transcript stays in its leaf instead of
            -- spilling to an overflow page, and the table with its key takes 22 % fewer pages. Measured: a pull
            -- 52.5-55.7 k -> 63.5-65.5 k changes/s at 1x, 45.1 k -> 51.0 k at 16x. A local write costs what it
            -- did (3.9 pages a note against 3.8: the key index's insert costs what the table's rebalancing did).
            -- SQLite's way to change a table's definition: a new table, the rows copied, the old one dropped,
            -- the new one renamed, and its indexes and the view that reads it made again.
            DROP VIEW search_source;
            CREATE TABLE records_v10(
                collection TEXT NOT NULL,
                id TEXT NOT NULL,
                sermon_id TEXT,
                updated_at TEXT NOT NULL,
                device_id TEXT NOT NULL,
                deleted_at TEXT,
                sort_key TEXT,
                sync_state TEXT NOT NULL DEFAULT 'pending' CHECK(sync_state IN ('pending','synced','error')),
                body TEXT NOT NULL CHECK(json_valid(body) AND json_type(body) = 'object'),
                queued_seq INTEGER,
                PRIMARY KEY(collection, id)
            );
            INSERT INTO records_v10(collection, id, sermon_id, updated_at, device_id, deleted_at, sort_key, sync_state, body, queued_seq)
                SELECT collection, id, sermon_id, updated_at, device_id, deleted_at, sort_key, sync_state, body, queued_seq
                  FROM records ORDER BY collection, id;
            DROP TABLE records;
            ALTER TABLE records_v10 RENAME TO records;
            CREATE INDEX records_by_sermon ON records(sermon_id, collection);
            CREATE INDEX records_sermon_order ON records(sort_key DESC, id DESC) WHERE collection = 'sermons';
            -- Search and the scripture look-ups join each hit to its sermon, to leave out a deleted sermon's. In
            -- the rowid table that join is two look-ups (the key, then the row for deleted_at) on sermon rows
            -- spread among the notes (search words p99 0.53-0.60 -> 0.61-0.62 ms). This index holds just the
            -- live sermons, with every column the join reads: one look-up in ~130 pages at 10 k sermons. A
            -- note's write does not touch it.
            CREATE INDEX records_live_sermons ON records(id, collection, deleted_at) WHERE collection = 'sermons' AND deleted_at IS NULL;
            CREATE VIEW search_source(collection, record_id, sermon_id, kind, start, body) AS
                SELECT collection, id, id, 'sermon', NULL,
                       json_extract(body, '$.title') || ' ' || coalesce(json_extract(body, '$.speaker'), '')
                  FROM records WHERE collection = 'sermons' AND deleted_at IS NULL
                UNION ALL
                SELECT collection, id, sermon_id, 'note', json_extract(body, '$.timestamp'), json_extract(body, '$.text')
                  FROM records WHERE collection = 'notes' AND deleted_at IS NULL
                UNION ALL
                SELECT r.collection, r.id, r.sermon_id, 'transcript', json_extract(seg.value, '$.start'), json_extract(seg.value, '$.text')
                  FROM records AS r, json_each(r.body, '$.segments') AS seg
                 WHERE r.collection = 'transcripts' AND r.deleted_at IS NULL
                UNION ALL
                SELECT collection, id, sermon_id, 'transcript', NULL, json_extract(body, '$.text')
                  FROM records WHERE collection = 'transcripts' AND deleted_at IS NULL AND json_array_length(body, '$.segments') = 0
                UNION ALL
                SELECT collection, id, sermon_id, 'summary', NULL, json_extract(body, '$.title') || char(10) || json_extract(body, '$.text')
                  FROM records WHERE collection = 'summaries' AND deleted_at IS NULL;
            """),
        Migration(version: 11, summary: "cheaper CHECKs on the tables every write fills", sql: "", edit: { db in
            // Two kinds of CHECK cost more than the rest of a record's insert. `x IN ('a','b','c')`: with three
            // or more values SQLite builds the list as an ephemeral B-tree on every execution of the statement,
            // ~5 us a row; the same test as `x = 'a' OR ...` costs nothing measurable. And a body or queued
            // change was parsed whole (json_valid, and json_type for a body) on every insert: every body and
            // change the store writes is text its own encoder made, or text the parser read and found canonical
            // (`PreparedChange`), so JSON by construction; its first character still shows it is an object.
            // Measured on the 120 k records of a 1x pull, inserted as the store inserts them: 2.4 s with the
            // old CHECKs, 1.4 s with these (1.4 s with none); a 1x pull's writer, its critical path, went
            // 4.3-4.7 s -> 3.6-3.9 s (three pairs). Each edit is in place (`editTableDefinition`): no row copied.
            try db.editTableDefinition("records", replacing: "CHECK(json_valid(body) AND json_type(body) = 'object')",
                                       with: "CHECK(substr(body, 1, 1) = '{')")
            try db.editTableDefinition("records", replacing: "CHECK(sync_state IN ('pending','synced','error'))",
                                       with: "CHECK(sync_state = 'pending' OR sync_state = 'synced' OR sync_state = 'error')")
            try db.editTableDefinition("outbox", replacing: "CHECK(json_valid(change))", with: "CHECK(substr(change, 1, 1) = '{')")
            try db.editTableDefinition("history", replacing: "CHECK(reason IN ('edit','remote','merge','restore','delete'))",
                                       with: "CHECK(reason = 'edit' OR reason = 'remote' OR reason = 'merge' OR reason = 'restore' OR reason = 'delete')")
            // Jobs are written rarely (a few per sermon); their sets are ORs too, so that no IN list is left.
            try db.editTableDefinition("jobs", replacing: "CHECK(kind IN ('transcribe','summarize','chat'))",
                                       with: "CHECK(kind = 'transcribe' OR kind = 'summarize' OR kind = 'chat')")
            try db.editTableDefinition("jobs", replacing: "CHECK(state IN ('queued','running','done','failed'))",
                                       with: "CHECK(state = 'queued' OR state = 'running' OR state = 'done' OR state = 'failed')")
        }),
        Migration(version: 12, summary: "the engine and model of a job's last attempt (jobs.get)", sql: """
            ALTER TABLE jobs ADD COLUMN engine TEXT;
            ALTER TABLE jobs ADD COLUMN model TEXT;
            """),
        // Audio on demand (contract §8.7): a local copy's last use orders the cache's evictions (least recently
        // used first). `updated_at` cannot serve: every write of the row (an upload's flag too) stamps it.
        Migration(version: 13, summary: "the last use of a local audio copy (the audio cache's order)", sql: """
            ALTER TABLE audio_files ADD COLUMN last_used_at TEXT;
            """),
    ]

    public static var latestVersion: Int { all.last!.version }
}
