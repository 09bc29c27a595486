import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import TNotesCore

/// The PostgreSQL backend (postgres-nio). A push transaction begins with
/// `SELECT seq FROM user_seq WHERE user_id = $1 FOR UPDATE`: the per-user counter row stays locked until
/// commit, so one user's pushes are serialized and their sequence numbers commit in order (a concurrent
/// pull can never see N+1 before N). Different users never wait for each other.
public final class PostgresServerStorage: ServerStorage, Sendable {
    public let backendName = "postgres"
    let client: PostgresClient
    let logger: Logger
    public let changeSignals = ChangeSignals()

    public init(url: String, logger: Logger) throws {
        let config = try Self.configuration(from: url)
        self.logger = logger
        client = PostgresClient(configuration: config, backgroundLogger: logger)
    }

    /// The connection pool's run loop: whoever opens the storage runs it (`StorageLifetime`), so it stops
    /// with its owner and its end is seen.
    public var connectionService: (any Service)? { client }

    /// LISTENs for other instances' commits, so a pull waiting here wakes for a push made there.
    public var changeListener: (any Service)? {
        PostgresChangeListener(client: client, signals: changeSignals, logger: logger)
    }

    /// `postgres://user:pass@host:port/db` (also `postgresql://`).
    static func configuration(from url: String) throws -> PostgresClient.Configuration {
        var rest: Substring
        if url.hasPrefix("postgres://") { rest = url.dropFirst("postgres://".count) }
        else if url.hasPrefix("postgresql://") { rest = url.dropFirst("postgresql://".count) }
        else { throw ServerError.config("database URL must start with postgres:// (got \(url))") }
        var query = ""
        if let q = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: q)...])
            rest = rest[..<q]
        }
        var user = "postgres", password: String?
        if let at = rest.lastIndex(of: "@") {
            let cred = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = cred.firstIndex(of: ":") {
                user = percentDecode(String(cred[..<colon]))
                password = percentDecode(String(cred[cred.index(after: colon)...]))
            } else {
                user = percentDecode(String(cred))
            }
        }
        var database: String?
        if let slash = rest.firstIndex(of: "/") {
            database = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
        }
        var host = String(rest), port = 5432
        if let colon = rest.lastIndex(of: ":"), let p = Int(rest[rest.index(after: colon)...]) {
            host = String(rest[..<colon])
            port = p
        }
        if host.isEmpty { host = "127.0.0.1" }
        let tls: PostgresClient.Configuration.TLS = query.contains("sslmode=require")
            ? .require(.makeClientConfiguration()) : .disable
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                            database: database, tls: tls)
    }

    static func percentDecode(_ s: String) -> String {
        var out = [UInt8]()
        var it = Array(s.utf8)[...]
        while let c = it.popFirst() {
            if c == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                out.append(v)
                it = it.dropFirst(2)
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public func close() async {}

    public func migrate() async throws {
        try await client.withTransaction(logger: logger) { conn in
            // Two servers starting at once must not both migrate.
            try await conn.runToCompletion("SELECT pg_advisory_xact_lock(7419)", logger: logger)
            try await conn.query("CREATE TABLE IF NOT EXISTS schema_version(version INT NOT NULL)", logger: logger)
            var version = 0
            for try await v in try await conn.query("SELECT version FROM schema_version", logger: logger).decode(Int.self) {
                version = v
            }
            guard version <= ServerSchema.postgres.count else {
                throw ServerError.storage("database schema version \(version) is newer than this server supports")
            }
            for (i, sql) in ServerSchema.postgres.enumerated() where i + 1 > version {
                for statement in Self.statements(sql) {
                    try await conn.runToCompletion(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
            try await conn.query("DELETE FROM schema_version", logger: logger)
            let latest = ServerSchema.postgres.count
            try await conn.query("INSERT INTO schema_version(version) VALUES (\(latest))", logger: logger)
            let epoch = Identifier.make()
            try await conn.query("INSERT INTO server_meta(key, value) VALUES ('epoch', \(epoch)) ON CONFLICT (key) DO NOTHING",
                                 logger: logger)
        }
    }

    /// Splits a migration into statements (comment lines dropped). A ';' ends a statement except inside a
    /// `$$ … $$` body (a function's); no statement here has one inside a string.
    static func statements(_ sql: String) -> [String] {
        let lines = sql.split(separator: "\n").filter { !$0.drop(while: { $0 == " " }).hasPrefix("--") }
        let text = Array(lines.joined(separator: "\n").utf8)
        var out = [String](), start = 0, i = 0, inBody = false
        while i < text.count {
            if text[i] == UInt8(ascii: "$"), i + 1 < text.count, text[i + 1] == UInt8(ascii: "$") {
                inBody.toggle()
                i += 2
                continue
            }
            if text[i] == UInt8(ascii: ";"), !inBody {
                out.append(String(decoding: text[start..<i], as: UTF8.self))
                start = i + 1
            }
            i += 1
        }
        out.append(String(decoding: text[start...], as: UTF8.self))
        return out.filter { $0.contains(where: { !$0.isWhitespace }) }
    }

    public func epoch() async throws -> String {
        for try await v in try await client.query("SELECT value FROM server_meta WHERE key = 'epoch'", logger: logger)
            .decode(String.self)
        { return v }
        return ""
    }

    public func transaction<T: Sendable>(user: Int64, _ body: @Sendable (any ServerTransaction) async throws -> T)
        async throws -> T
    {
        let logger = self.logger
        do {
            let (result, grew) = try await withUserTransaction(user: user, logger: logger, body)
            // This instance's own pulls wake at once; the others by the NOTIFY sent in the transaction.
            if grew { changeSignals.bump(user) }
            return result
        } catch let e as PostgresTransactionError where e.closureError != nil && e.rollbackError == nil {
            // postgres-nio wraps what the body threw (e.g. an APIError 404/400 from a legacy write); the
            // transaction was rolled back cleanly, so answer with the body's own error, as SQLite does.
            throw e.closureError!
        }
    }

    private func withUserTransaction<T: Sendable>(user: Int64, logger: Logger,
                                                  _ body: @Sendable (any ServerTransaction) async throws -> T)
        async throws -> (T, Bool)
    {
        try await client.withTransaction(logger: logger) { conn in
            var seq: Int64 = 0
            for try await s in try await conn.query("SELECT seq FROM user_seq WHERE user_id = \(user) FOR UPDATE",
                                                     logger: logger).decode(Int64.self) { seq = s }
            let tx = Transaction(conn: conn, user: user, seq: seq, logger: logger)
            let result = try await body(tx)
            let final = tx.seq
            if tx.savedSeq == final { return (result, final != seq) }
            try await conn.query("UPDATE user_seq SET seq = \(final) WHERE user_id = \(user)", logger: logger)
            if final != seq {
                // Delivered to every listening instance when (and only if) this transaction commits.
                try await conn.runToCompletion("SELECT pg_notify(\(PostgresChangeListener.channel), \(String(user)))", logger: logger)
            }
            return (result, final != seq)
        }
    }

    /// Looks the batch up and plans its write before the user's lock is taken (see `PostgresPushBatch`). Nil
    /// when the look-up fails or the batch needs the one-at-a-time merge: the transaction then does it all.
    public func prepareBatch(user: Int64, changes: [Change], bodies: [String]) async -> (any Sendable)? {
        guard !changes.isEmpty,
              let rows = try? await client.query(PostgresPushBatch.lookUp(user: user, changes: changes, scope: .presumingNew), logger: logger),
              let found = try? await PostgresPushBatch.found(rows),
              let plan = BatchMergePlan(changes: changes, known: found.known, current: found.current)
        else { return nil }
        return PostgresPushBatch(user: user, changes: changes, bodies: bodies, found: found, plan: plan)
    }

    /// One statement of its own, committed as it ends: the op results, the lock, the check and the write
    /// (`tnotes_push_batch`). Nil when the look-up no longer holds or did not look far enough
    /// (`LookUpScope.presumingNew`): a record of the batch was logged since, one of its op ids is known (sent
    /// again, or the same change pushed twice at once), a record presumed new exists, or two batches holding
    /// the same op id deadlocked on it and PostgreSQL aborted this one; nothing was kept then.
    public func applyPrepared(_ prepared: any Sendable) async throws -> AppliedBatch? {
        guard let batch = prepared as? PostgresPushBatch else { return nil }
        let logger = self.logger
        let before: Int64?
        do {
            before = try await client.withConnection { conn in try await batch.run(on: conn, logger: logger) }
        } catch let e as PSQLError where e.serverInfo?[.sqlState] == "23505"
            && ["applied_ops_pkey", "records_pkey"].contains(e.serverInfo?[.constraintName])
        {
            return nil
        } catch let e as PSQLError where e.serverInfo?[.sqlState] == "40P01" {
            return nil
        }
        guard let before else { return nil }
        let after = before + Int64(batch.loggedCount)
        // This instance's own pulls wake at once; the others by the NOTIFY the call sent.
        if after != before { changeSignals.bump(batch.user) }
        return AppliedBatch(verdicts: batch.verdicts, seqBefore: before, seqAfter: after)
    }

    public func changes(user: Int64, after seq: Int64, limit: Int) async throws -> [LoggedChange] {
        // A user's seqs are gap-free (taken under the user_seq row lock, committed in order), so the next
        // `limit` changes are the range (seq, seq + limit]: bounded whatever the planner believes. Planned as
        // `seq > x ORDER BY seq LIMIT n` with statistics from when the log was small, PostgreSQL read and sorted
        // the user's whole remaining log for every page (75 ms a page at 120 k changes). Whatever the range did
        // not fill is read after it the open way, which finds only the log's end (or, were there ever a gap,
        // what lies past it).
        // `seq` comes from the client's cursor (any non-negative Int64): the range's end is clamped, as
        // `seq + limit` past Int64.max traps.
        let (end, overflow) = seq.addingReportingOverflow(Int64(limit))
        var out = try await changeRows(user: user, "seq > \(seq) AND seq <= \(overflow ? Int64.max : end)", limit: limit)
        if out.count < limit {
            out += try await changeRows(user: user, "seq > \(out.last?.seq ?? seq)", limit: limit - out.count)
        }
        return out
    }

    private func changeRows(user: Int64, _ range: String, limit: Int) async throws -> [LoggedChange] {
        var out = [LoggedChange]()
        let query = PostgresQuery(unsafeSQL: """
            SELECT c.seq, c.collection, c.id, c.op, c.updated_at, c.device_id, \(Self.loggedBody) FROM changes AS c
            WHERE c.user_id = \(user) AND \(range) ORDER BY c.seq LIMIT \(limit)
            """)
        for try await (s, c, id, op, u, d, body) in try await client.query(query, logger: logger)
            .decode((Int64, String, String, String, String, String, String?).self)
        {
            guard let b = body else { throw ServerError.storage("logged change \(s) has no body and its record moved on") }
            out.append(LoggedChange(seq: s, collection: RecordCollection(rawValue: c) ?? .sermons, id: id,
                                    op: Change.Op(rawValue: op) ?? .upsert, updatedAt: u, deviceId: d,
                                    // Stored as text by `write` (schema step 5): spliced into the page as it is.
                                    record: .raw(b)))
        }
        return out
    }

    public func lastSeq(user: Int64) async throws -> Int64 {
        for try await s in try await client.query("SELECT seq FROM user_seq WHERE user_id = \(user)", logger: logger)
            .decode(Int64.self) { return s }
        return 0
    }

    public func records(user: Int64, after: RecordKey?, limit: Int, tombstones: Bool) async throws -> [LoggedChange] {
        let c = after?.collection.rawValue ?? "", id = after?.id ?? "", logger = self.logger
        return try await client.withTransaction(logger: logger) { conn in
            // A page is the primary key's order from `after` on, so reading the key in order is always the
            // plan. With statistics from when the user had few records (a new user, a table not analyzed yet)
            // the planner instead read every record of the user and sorted them for each page: 60-70 ms a page
            // at 120 k records, against 1.5 ms for the ordered index scan (EXPLAIN ANALYZE, 2,000-row pages).
            try await conn.query("SET LOCAL enable_sort = off", logger: logger)
            var out = [LoggedChange]()
            for try await (s, c, id, deleted, u, d, body) in try await conn.query(Self.snapshotQuery(user: user, after: (c, id), limit: limit,
                                                                                                 tombstones: tombstones), logger: logger)
                .decode((Int64, String, String, Bool, String, String, String).self)
            {
                out.append(LoggedChange(seq: s, collection: RecordCollection(rawValue: c) ?? .sermons, id: id,
                                        op: deleted ? .delete : .upsert, updatedAt: u, deviceId: d, record: .raw(body)))
            }
            return out
        }
    }

    /// One snapshot page: the user's records after a key, in key order (the primary key's).
    static func snapshotQuery(user: Int64, after: (collection: String, id: String), limit: Int, tombstones: Bool) -> PostgresQuery {
        """
        SELECT seq, collection, id, deleted_at IS NOT NULL, updated_at, device_id, body FROM records
        WHERE user_id = \(user) AND (collection, id) > (\(after.collection), \(after.id))\(unescaped: tombstones ? "" : " AND deleted_at IS NULL")
        ORDER BY collection, id LIMIT \(limit)
        """
    }

    /// A logged change's body (`changes AS c`): its own, or, while it is its record's current version, the
    /// record's (schema step 8). A subquery, so each row probes an index of records whatever the statistics
    /// say: `records_by_seq` (schema step 13), whose probes in a page's seq order stay on a few leaves. NULL
    /// when the record is at another version (never that version's body).
    public static let loggedBody = """
        coalesce(c.body, (SELECT r.body FROM records AS r
                          WHERE r.user_id = c.user_id AND r.seq = c.seq AND r.collection = c.collection AND r.id = c.id))
        """

    public func publication(publicId: String) async throws -> PublishedRecord? {
        for try await (u, b, t) in try await client.query(
            "SELECT user_id, body::text, updated_at FROM records WHERE ((body::jsonb)->>'publicId') = \(publicId) AND collection = 'publications'",
            logger: logger).decode((Int64, String, String).self)
        {
            return PublishedRecord(user: u, body: try JSON.parse(b).objectValue ?? [:], updatedAt: t)
        }
        return nil
    }

    public func records(user: Int64, collection: RecordCollection) async throws -> [JSONObject] {
        var out = [JSONObject]()
        let c = collection.rawValue
        for try await b in try await client.query(
            "SELECT body::text FROM records WHERE user_id = \(user) AND collection = \(c) AND deleted_at IS NULL",
            logger: logger).decode(String.self)
        {
            out.append(try JSON.parse(b).objectValue ?? [:])
        }
        return out
    }

    public func newestUpdatedAt() async throws -> String? {
        for try await v in try await client.query("SELECT max(updated_at) FROM records", logger: logger).decode(String?.self) {
            return v
        }
        return nil
    }

    public func audio(user: Int64, sermonId: String) async throws -> AudioBlobInfo? {
        for try await (s, sha, size, u, blob) in try await client.query(
            "SELECT sermon_id, sha256, size_bytes, updated_at, blob_id FROM audio WHERE user_id = \(user) AND sermon_id = \(sermonId)",
            logger: logger).decode((String, String, Int64, String, String?).self)
        {
            return AudioBlobInfo(sermonId: s, sha256: sha, sizeBytes: size, updatedAt: u, blobId: blob)
        }
        return nil
    }

    public func audio(user: Int64) async throws -> [String: AudioBlobInfo] {
        var out = [String: AudioBlobInfo]()
        for try await (s, sha, size, u, blob) in try await client.query(
            "SELECT sermon_id, sha256, size_bytes, updated_at, blob_id FROM audio WHERE user_id = \(user)",
            logger: logger).decode((String, String, Int64, String, String?).self)
        {
            out[s] = AudioBlobInfo(sermonId: s, sha256: sha, sizeBytes: size, updatedAt: u, blobId: blob)
        }
        return out
    }

    /// Points the sermon's audio at the new blob and drops every other blob of that sermon (the one it
    /// replaces, and any left by an upload that died half-way), in one transaction.
    public func setAudio(user: Int64, _ info: AudioBlobInfo) async throws {
        try await client.withTransaction(logger: logger) { conn in
            try await conn.query("""
                INSERT INTO audio(user_id, sermon_id, sha256, size_bytes, updated_at, blob_id)
                VALUES (\(user), \(info.sermonId), \(info.sha256), \(info.sizeBytes), \(info.updatedAt), \(info.blobId))
                ON CONFLICT (user_id, sermon_id) DO UPDATE SET sha256 = excluded.sha256, size_bytes = excluded.size_bytes,
                  updated_at = excluded.updated_at, blob_id = excluded.blob_id
                """, logger: logger)
            try await conn.query("""
                DELETE FROM audio_chunks WHERE user_id = \(user) AND sermon_id = \(info.sermonId)
                  AND blob_id IS DISTINCT FROM \(info.blobId)
                """, logger: logger)
        }
    }

    /// Audio lives in the database: any instance serves any blob, with no shared disk.
    public func audioBlobs(directory: String) -> any AudioBlobStore { PostgresAudioBlobs(client: client, logger: logger) }
}
