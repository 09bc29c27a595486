/// The schema, as one ordered list of steps. Step N takes a database from `user_version` N-1 to N.
/// Steps are only ever appended: a released step never changes, so every old database upgrades the same way.
public struct Migration: Sendable {
    public let version: Int
    public let summary: String
    public let sql: String
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
    ]

    public static var latestVersion: Int { all.last!.version }
}
