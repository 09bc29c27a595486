import Logging
import PostgresNIO
import TNotesCore

/// A push's transaction on PostgreSQL: everything it reads and writes, under the user's `user_seq` row lock.
extension PostgresServerStorage {
    /// Unchecked because: one transaction is used by the one task running its body, one call at a time
    /// (`seq` grows only there); its connection is postgres-nio's, safe to share.
    final class Transaction: ServerTransaction, @unchecked Sendable {
        let conn: PostgresConnection
        let user: Int64
        var seq: Int64
        /// The seq already stored in `user_seq` (and notified, when it moved) by this transaction's last
        /// statement, if one did (`mergeBatch`).
        var savedSeq: Int64?
        let logger: Logger

        init(conn: PostgresConnection, user: Int64, seq: Int64, logger: Logger) {
            self.conn = conn
            self.user = user
            self.seq = seq
            self.logger = logger
        }

        func opResult(_ opId: String) async throws -> String? {
            for try await r in try await conn.query(
                "SELECT result FROM applied_ops WHERE user_id = \(user) AND op_id = \(opId)", logger: logger
            ).decode(String.self) { return r }
            return nil
        }

        func recordOp(_ opId: String, result: String) async throws {
            try await conn.query("""
                INSERT INTO applied_ops(user_id, op_id, result) VALUES (\(user), \(opId), \(result)) ON CONFLICT DO NOTHING
                """, logger: logger)
        }

        func current(_ collection: RecordCollection, id: String) async throws -> (version: RecordVersion, body: JSONObject)? {
            let c = collection.rawValue
            for try await (u, d, b) in try await conn.query(
                "SELECT updated_at, device_id, body::text FROM records WHERE user_id = \(user) AND collection = \(c) AND id = \(id)",
                logger: logger).decode((String, String, String).self)
            {
                return (RecordVersion(updatedAt: u, deviceId: d), try JSON.parse(b).objectValue ?? [:])
            }
            return nil
        }

        func publicIdOwner(_ publicId: String) async throws -> (user: Int64, recordId: String)? {
            for try await (u, id) in try await conn.query(
                "SELECT user_id, id FROM records WHERE ((body::jsonb)->>'publicId') = \(publicId) AND collection = 'publications'",
                logger: logger).decode((Int64, String).self)
            {
                return (u, id)
            }
            return nil
        }

        func children(_ collection: RecordCollection, sermonId: String) async throws
            -> [(version: RecordVersion, body: JSONObject)]
        {
            let c = collection.rawValue
            var out = [(version: RecordVersion, body: JSONObject)]()
            for try await (u, d, b) in try await conn.query("""
                SELECT updated_at, device_id, body::text FROM records
                WHERE user_id = \(user) AND sermon_id = \(sermonId) AND collection = \(c)
                """, logger: logger).decode((String, String, String).self)
            {
                out.append((RecordVersion(updatedAt: u, deviceId: d), try JSON.parse(b).objectValue ?? [:]))
            }
            return out
        }

        /// The whole batch in two statements under the user's lock: its look-up, and its write (see
        /// `PostgresPushBatch`). Decisions are made in order, as `SyncService.merge` makes them. A batch
        /// prepared before the lock was taken went through `PostgresServerStorage.applyPrepared` first; this
        /// is for one that could not (its look-up no longer held, or it was not prepared).
        func mergeBatch(_ changes: [Change], bodies: [String]) async throws -> [MergeVerdict] {
            if changes.isEmpty { return [] }
            let found = try await PostgresPushBatch.found(
                try await conn.query(PostgresPushBatch.lookUp(user: user, changes: changes), logger: logger))
            guard let plan = BatchMergePlan(changes: changes, known: found.known, current: found.current) else {
                return try await mergeEach(changes)
            }
            let batch = PostgresPushBatch(user: user, changes: changes, bodies: bodies, found: found, plan: plan)
            // Under the lock the look-up is exact, so the call's check finds nothing logged since it.
            guard let before = try await batch.run(on: conn, logger: logger), before == seq else {
                throw ServerError.storage("a push batch looked up under its user's lock was refused as stale")
            }
            seq += Int64(batch.loggedCount)
            savedSeq = seq
            return batch.verdicts
        }

        func versionBody(_ collection: RecordCollection, id: String, version: RecordVersion) async throws -> JSONObject? {
            let c = collection.rawValue, u = version.updatedAt, d = version.deviceId
            // A merge is rare: the log is searched by its user's rows (no index on every push for this).
            for try await b in try await conn.query("""
                SELECT body::text FROM merged_inputs WHERE user_id = \(user) AND collection = \(c) AND id = \(id)
                  AND updated_at = \(u) AND device_id = \(d)
                UNION ALL
                (SELECT \(unescaped: PostgresServerStorage.loggedBody) FROM changes AS c
                 WHERE c.user_id = \(user) AND c.collection = \(c) AND c.id = \(id) AND c.updated_at = \(u) AND c.device_id = \(d)
                 LIMIT 1)
                LIMIT 1
                """, logger: logger).decode(String.self)
            {
                return try JSON.parse(b).objectValue
            }
            return nil
        }

        func keepMergedInput(_ change: Change) async throws {
            let c = change.collection.rawValue, body = JSON.object(change.record).text
            try await conn.query("""
                INSERT INTO merged_inputs(user_id, collection, id, updated_at, device_id, body)
                VALUES (\(user), \(c), \(change.id), \(change.updatedAt), \(change.deviceId), \(body)::jsonb)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }

        func write(_ change: Change) async throws -> Int64 {
            seq += 1
            let s = seq
            let body = JSON.object(change.record).text
            let c = change.collection.rawValue, op = change.op.rawValue
            let sermonId = change.record.sermonId, deletedAt = change.record.deletedAt
            try await conn.query("""
                INSERT INTO records(user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body)
                VALUES (\(user), \(c), \(change.id), \(sermonId), \(change.updatedAt), \(change.deviceId), \(deletedAt), \(s), \(body))
                ON CONFLICT (user_id, collection, id) DO UPDATE SET sermon_id = excluded.sermon_id,
                  updated_at = excluded.updated_at, device_id = excluded.device_id, deleted_at = excluded.deleted_at,
                  seq = excluded.seq, body = excluded.body
                """, logger: logger)
            // No body: the record's row holds it while this is its current version (schema step 8).
            try await conn.query("""
                INSERT INTO changes(user_id, seq, collection, id, op, updated_at, device_id)
                VALUES (\(user), \(s), \(c), \(change.id), \(op), \(change.updatedAt), \(change.deviceId))
                """, logger: logger)
            return s
        }
    }
}
