import TNotesCore
import TNotesLifecycle
import TNotesSQLite

#if canImport(Glibc)
import Glibc
#endif

/// The embedded backend: one SQLite file (WAL, synchronous=FULL: an acknowledged push survives power
/// loss). One connection, used by one task at a time under an async lock, so a user's sequence numbers
/// are assigned and committed strictly in order. All of it runs on a thread of its own (`sqliteThread`):
/// a SQLite step or a commit's fsync never blocks an event loop or the cooperative pool.
///
/// Unchecked because: `db` is only used inside `mutex.withLock` (one task at a time), and every such
/// section runs on `sqliteThread`; `reader` likewise under `readerMutex` on `readerThread`; `path` is immutable.
public final class SQLiteServerStorage: ServerStorage, @unchecked Sendable {
    public let backendName = "sqlite"
    let path: String
    let db: SQLiteConnection
    let mutex = AsyncMutex()
    let sqliteThread = ThreadPoolExecutor(threads: 1)
    /// A second, read-only connection for the lookups every request makes (its token's user, the epoch),
    /// with a thread and a lock of its own: they never queue behind a push's transaction. With two pushes
    /// of one device out at once, the first one's answer waited for its epoch behind the second one's
    /// whole transaction. WAL lets it read beside the writer and see every commit (a revoke by the
    /// `tnotes-server user` command included).
    let reader: SQLiteConnection
    let readerMutex = AsyncMutex()
    let readerThread = ThreadPoolExecutor(threads: 1)
    public let changeSignals = ChangeSignals()

    /// `mutex.withLock(body)` on the SQLite thread.
    func locked<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await sqliteThread.run { try await mutex.withLock(body) }
    }

    /// `readerMutex.withLock(body)` on the reader's thread.
    func reading<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await readerThread.run { try await readerMutex.withLock(body) }
    }

    public init(path: String) throws {
        self.path = path
        db = try SQLiteConnection(path: path, create: true)
        // A 32 MiB page cache (SQLite's default is 2 MiB). It was 128 MiB while keys were random UUIDs that
        // a push looked up all over the file; with time-ordered ids (v7) a push and a pull touch the right
        // edges of the indexes, and a larger cache only cost the writer fresh heap pages to fault in (12 % of
        // its samples were clear_page in a 1× push). Interleaved A/B, 6 pairs: full sync median 5.1 -> 5.0 s.
        // secure_delete=FAST, as the daemon's store (`DatabaseFile`): Debian's SQLite writes every freed page as
        // zeros, and a record's update frees its old body's overflow pages.
        try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-32768; PRAGMA wal_autocheckpoint=10000; PRAGMA secure_delete=FAST;")
        reader = try SQLiteConnection(path: path, create: false, readOnly: true)
    }

    public func migrate() async throws {
        try await locked {
            let version = Int(try db.scalar("PRAGMA user_version").int ?? 0)
            guard version <= ServerSchema.sqlite.count else {
                throw ServerError.storage("database schema version \(version) is newer than this server supports")
            }
            for (i, step) in ServerSchema.sqlite.enumerated() where i + 1 > version {
                try db.transaction {
                    try db.exec(step.sql)
                    try step.edit?(db)
                    try db.exec("PRAGMA user_version = \(i + 1)")
                }
            }
            if try db.scalar("SELECT value FROM server_meta WHERE key = 'epoch'").string == nil {
                try db.run("INSERT INTO server_meta(key, value) VALUES ('epoch', ?)", [.text(Identifier.make())])
            }
        }
    }

    public func epoch() async throws -> String {
        try await reading { try reader.scalar("SELECT value FROM server_meta WHERE key = 'epoch'").string ?? "" }
    }

    public func close() async {
        _ = try? await locked { try? db.exec("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    public func transaction<T: Sendable>(user: Int64, _ body: @Sendable (any ServerTransaction) async throws -> T)
        async throws -> T
    {
        let (result, grew) = try await locked {
            try db.exec("BEGIN IMMEDIATE")
            do {
                let before = try db.scalar("SELECT seq FROM user_seq WHERE user_id = ?", [.int(user)]).int ?? 0
                let tx = Transaction(db: db, user: user, seq: before)
                let result = try await body(tx)
                try db.run("UPDATE user_seq SET seq = ? WHERE user_id = ?", [.int(tx.seq), .int(user)])
                try db.exec("COMMIT")
                return (result, tx.seq != before)
            } catch {
                try? db.exec("ROLLBACK")
                throw error
            }
        }
        // After the commit: a woken pull reads what was just committed.
        if grew { changeSignals.bump(user) }
        return result
    }

    final class Transaction: ServerTransaction, @unchecked Sendable {
        let db: SQLiteConnection
        let user: Int64
        var seq: Int64

        init(db: SQLiteConnection, user: Int64, seq: Int64) {
            self.db = db
            self.user = user
            self.seq = seq
        }

        func opResult(_ opId: String) async throws -> String? {
            try db.scalar("SELECT result FROM applied_ops WHERE user_id = ? AND op_id = ?", [.int(user), .text(opId)]).string
        }

        func recordOp(_ opId: String, result: String) async throws {
            try insertOp(opId, result: result)
        }

        func insertOp(_ opId: String, result: String) throws {
            try db.run("INSERT OR IGNORE INTO applied_ops(user_id, op_id, result) VALUES (?, ?, ?)",
                       [.int(user), .text(opId), .text(result)])
        }

        func current(_ collection: RecordCollection, id: String) async throws -> (version: RecordVersion, body: JSONObject)? {
            try db.query("SELECT updated_at, device_id, body FROM records WHERE user_id = ? AND collection = ? AND id = ?",
                         [.int(user), .text(collection.rawValue), .text(id)]).first.map(Self.decode)
        }

        func children(_ collection: RecordCollection, sermonId: String) async throws
            -> [(version: RecordVersion, body: JSONObject)]
        {
            // INDEXED BY: the primary key's (user, collection) prefix would scan all of the user's notes.
            try db.query("SELECT updated_at, device_id, body FROM records INDEXED BY records_by_sermon WHERE user_id = ? AND sermon_id = ? AND collection = ?",
                         [.int(user), .text(sermonId), .text(collection.rawValue)]).map(Self.decode)
        }

        static func decode(_ row: Row) throws -> (version: RecordVersion, body: JSONObject) {
            let body = try JSON.parse(row[2].string ?? "{}").objectValue ?? [:]
            return (RecordVersion(updatedAt: row[0].string ?? "", deviceId: row[1].string ?? ""), body)
        }

        func versionBody(_ collection: RecordCollection, id: String, version: RecordVersion) async throws -> JSONObject? {
            let args: [SQLValue] = [.int(user), .text(collection.rawValue), .text(id), .text(version.updatedAt), .text(version.deviceId)]
            // A merge is rare: the log is searched by its user's rows (no index on every push for this).
            let text = try db.scalar("""
                SELECT body FROM merged_inputs WHERE user_id = ? AND collection = ? AND id = ? AND updated_at = ? AND device_id = ?
                """, args).string ?? db.scalar("""
                SELECT \(SQLiteServerStorage.loggedBody) FROM changes AS c
                WHERE c.user_id = ? AND c.collection = ? AND c.id = ? AND c.updated_at = ? AND c.device_id = ? LIMIT 1
                """, args).string
            return try text.flatMap { try JSON.parse($0).objectValue }
        }

        func publicIdOwner(_ publicId: String) async throws -> (user: Int64, recordId: String)? {
            try db.query("""
                SELECT user_id, id FROM records INDEXED BY records_by_public_id
                WHERE json_extract(body, '$.publicId') = ? AND collection = 'publications'
                """, [.text(publicId)]).first.map { (user: $0[0].int ?? 0, recordId: $0[1].string ?? "") }
        }

        func keepMergedInput(_ change: Change) async throws {
            try db.run("""
                INSERT OR IGNORE INTO merged_inputs(user_id, collection, id, updated_at, device_id, body) VALUES (?, ?, ?, ?, ?, ?)
                """, [.int(user), .text(change.collection.rawValue), .text(change.id), .text(change.updatedAt),
                       .text(change.deviceId), .text(JSON.object(change.record).text)])
        }

        func write(_ change: Change) async throws -> Int64 {
            try writeRow(change, body: JSON.object(change.record).text)
        }

        /// The record's row and its log entry, `body` being the canonical text of `change.record`. `asNew`: the
        /// record is inserted as a new one, and one that exists breaks the key instead of being updated.
        /// Internal, not private: the batch merge (`SQLiteServerStorage+BatchMerge.swift`) writes its rows through it.
        func writeRow(_ change: Change, body: String, asNew: Bool = false) throws -> Int64 {
            seq += 1
            try db.run(asNew ? Self.insertRecord : Self.upsertRecord,
                [.int(user), .text(change.collection.rawValue), .text(change.id), SQLValue(change.record.sermonId),
                 .text(change.updatedAt), .text(change.deviceId), SQLValue(change.record.deletedAt), .int(seq), .text(body)])
            // No body: the record's row holds it while this is its current version (schema step 5).
            try db.run("""
                INSERT INTO changes(user_id, seq, collection, id, op, updated_at, device_id) VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [.int(user), .int(seq), .text(change.collection.rawValue), .text(change.id), .text(change.op.rawValue),
                 .text(change.updatedAt), .text(change.deviceId)])
            return seq
        }
    }

    public func changes(user: Int64, after seq: Int64, limit: Int) async throws -> [LoggedChange] {
        try await locked {
            try db.query("""
                SELECT c.seq, c.collection, c.id, c.op, c.updated_at, c.device_id, \(Self.loggedBody) FROM changes AS c
                WHERE c.user_id = ? AND c.seq > ? ORDER BY c.seq LIMIT ?
                """, [.int(user), .int(seq), .int(Int64(limit))]
            ).map { row in
                guard let body = row[6].string else {
                    throw ServerError.storage("logged change \(row[0].int ?? 0) has no body and its record moved on")
                }
                return LoggedChange(seq: row[0].int ?? 0, collection: RecordCollection(rawValue: row[1].string ?? "") ?? .sermons,
                                    id: row[2].string ?? "", op: Change.Op(rawValue: row[3].string ?? "") ?? .upsert,
                                    updatedAt: row[4].string ?? "", deviceId: row[5].string ?? "",
                                    // Stored as canonical text by `write`: spliced into the reply as it is.
                                    record: .raw(body))
            }
        }
    }

    public func lastSeq(user: Int64) async throws -> Int64 {
        try await locked { try db.scalar("SELECT seq FROM user_seq WHERE user_id = ?", [.int(user)]).int ?? 0 }
    }

    public func records(user: Int64, after: RecordKey?, limit: Int, tombstones: Bool) async throws -> [LoggedChange] {
        try await locked {
            // The range and the order both come from `records_by_key` (user, collection, id).
            try db.query("""
                SELECT seq, collection, id, deleted_at IS NOT NULL, updated_at, device_id, body FROM records
                WHERE user_id = ? AND (collection, id) > (?, ?)\(tombstones ? "" : " AND deleted_at IS NULL")
                ORDER BY collection, id LIMIT ?
                """, [.int(user), .text(after?.collection.rawValue ?? ""), .text(after?.id ?? ""), .int(Int64(limit))]
            ).map { row in
                LoggedChange(seq: row[0].int ?? 0, collection: RecordCollection(rawValue: row[1].string ?? "") ?? .sermons,
                             id: row[2].string ?? "", op: row[3].int == 1 ? .delete : .upsert,
                             updatedAt: row[4].string ?? "", deviceId: row[5].string ?? "",
                             record: .raw(row[6].string ?? "{}"))
            }
        }
    }

    /// A logged change's body (`changes AS c`): its own, or, while it is its record's current version, the
    /// record's (schema step 5). The record must still be at that seq, or the body is NULL (never another
    /// version's).
    static let loggedBody = """
        coalesce(c.body, (SELECT r.body FROM records AS r
                          WHERE r.user_id = c.user_id AND r.collection = c.collection AND r.id = c.id AND r.seq = c.seq))
        """

    public func records(user: Int64, collection: RecordCollection) async throws -> [JSONObject] {
        try await locked {
            try db.query("SELECT body FROM records WHERE user_id = ? AND collection = ? AND deleted_at IS NULL",
                         [.int(user), .text(collection.rawValue)]).map { try JSON.parse($0[0].string ?? "{}").objectValue ?? [:] }
        }
    }

    public func newestUpdatedAt() async throws -> String? {
        try await locked { try db.scalar("SELECT max(updated_at) FROM records").string }
    }

    public func publication(publicId: String) async throws -> PublishedRecord? {
        try await locked {
            try db.query("""
                SELECT user_id, body, updated_at FROM records INDEXED BY records_by_public_id
                WHERE json_extract(body, '$.publicId') = ? AND collection = 'publications'
                """, [.text(publicId)]).first.map {
                PublishedRecord(user: $0[0].int ?? 0, body: try JSON.parse($0[1].string ?? "{}").objectValue ?? [:],
                                updatedAt: $0[2].string ?? "")
            }
        }
    }

    public func audio(user: Int64, sermonId: String) async throws -> AudioBlobInfo? {
        try await locked {
            try db.query("SELECT sermon_id, sha256, size_bytes, updated_at FROM audio WHERE user_id = ? AND sermon_id = ?",
                         [.int(user), .text(sermonId)]).first.map {
                AudioBlobInfo(sermonId: $0[0].string ?? "", sha256: $0[1].string ?? "", sizeBytes: $0[2].int ?? 0,
                              updatedAt: $0[3].string ?? "")
            }
        }
    }

    public func audio(user: Int64) async throws -> [String: AudioBlobInfo] {
        try await reading {
            var out = [String: AudioBlobInfo]()
            for row in try reader.query("SELECT sermon_id, sha256, size_bytes, updated_at FROM audio WHERE user_id = ?", [.int(user)]) {
                let info = AudioBlobInfo(sermonId: row[0].string ?? "", sha256: row[1].string ?? "", sizeBytes: row[2].int ?? 0,
                                         updatedAt: row[3].string ?? "")
                out[info.sermonId] = info
            }
            return out
        }
    }

    public func setAudio(user: Int64, _ info: AudioBlobInfo) async throws {
        try await locked {
            try db.run("""
                INSERT INTO audio(user_id, sermon_id, sha256, size_bytes, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(user_id, sermon_id) DO UPDATE SET sha256 = excluded.sha256, size_bytes = excluded.size_bytes,
                  updated_at = excluded.updated_at
                """, [.int(user), .text(info.sermonId), .text(info.sha256), .int(info.sizeBytes), .text(info.updatedAt)])
        }
    }
}

public enum ServerError: Error, CustomStringConvertible {
    case storage(String)
    case conflict(String)
    case config(String)

    public var description: String {
        switch self {
        case .storage(let s), .conflict(let s), .config(let s): return s
        }
    }
}
