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

        func current(_ collection: RecordCollection, id: String) async throws -> (version: RecordVersion, body: [String: JSON])? {
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
            -> [(version: RecordVersion, body: [String: JSON])]
        {
            let c = collection.rawValue
            var out = [(version: RecordVersion, body: [String: JSON])]()
            for try await (u, d, b) in try await conn.query("""
                SELECT updated_at, device_id, body::text FROM records
                WHERE user_id = \(user) AND sermon_id = \(sermonId) AND collection = \(c)
                """, logger: logger).decode((String, String, String).self)
            {
                out.append((RecordVersion(updatedAt: u, deviceId: d), try JSON.parse(b).objectValue ?? [:]))
            }
            return out
        }

        /// The whole batch in five or six statements: which op ids are known, the stored versions of the
        /// batch's records, then the log rows, the records' final versions (new ones inserted, stored ones
        /// updated) and the op results, each as one `unnest` statement. Decisions are made here in order, as `SyncService.merge` makes them.
        func mergeBatch(_ changes: [Change], bodies: [String]) async throws -> [MergeVerdict] {
            if changes.isEmpty { return [] }
            // Both lookups probe the primary key once per change (LATERAL; LIMIT 1 keeps the planner from
            // flattening it into a join): planned from the statistics of a table that was small when last
            // analysed, `op_id = ANY(...)` and a hash join scanned all of the user's ops and records for every
            // batch (15-18 ms a batch at 100 k rows, growing with the log).
            var known = Set<String>()
            for try await op in try await conn.query("""
                SELECT a.op_id FROM unnest(\(changes.map(\.opId))::text[]) AS k(op)
                CROSS JOIN LATERAL (SELECT op_id FROM applied_ops WHERE user_id = \(user) AND op_id = k.op LIMIT 1) AS a
                """, logger: logger).decode(String.self) { known.insert(op) }
            let keyCollections = changes.map(\.collection.rawValue), keyIds = changes.map(\.id)
            var current = [String: RecordVersion]()
            for try await (c, id, u, d) in try await conn.query("""
                SELECT r.collection, r.id, r.updated_at, r.device_id
                FROM (SELECT DISTINCT * FROM unnest(\(keyCollections)::text[], \(keyIds)::text[])) AS k(c, id)
                CROSS JOIN LATERAL (SELECT collection, id, updated_at, device_id FROM records
                                    WHERE user_id = \(user) AND collection = k.c AND id = k.id LIMIT 1) AS r
                """, logger: logger).decode((String, String, String, String).self)
            {
                current[c + "/" + id] = RecordVersion(updatedAt: u, deviceId: d)
            }
            guard let plan = BatchMergePlan(changes: changes, bodies: bodies, known: known, current: current) else {
                return try await mergeEach(changes)
            }
            let logged = plan.logged.map { entry -> (seq: Int64, change: Change, body: String) in
                seq += 1
                return (seq, entry.change, entry.body)
            }
            if !logged.isEmpty {
                let seqs = logged.map(\.seq), cols = logged.map { $0.change.collection.rawValue }, ids = logged.map { $0.change.id }
                let ops = logged.map { $0.change.op.rawValue }, ups = logged.map { $0.change.updatedAt }
                let devs = logged.map { $0.change.deviceId }
                // A record's last version here is its current one: the record's row holds that body (schema
                // step 8). An earlier one in the batch keeps its own ('' rides for NULL, as below).
                let lastIndices = Set(plan.lastOfRecord)
                let bodies = logged.indices.map { lastIndices.contains($0) ? "" : logged[$0].body }
                try await conn.query("""
                    INSERT INTO changes(user_id, seq, collection, id, op, updated_at, device_id, body)
                    SELECT \(user), s, c, i, o, u, d, NULLIF(b, '')
                    FROM unnest(\(seqs)::int8[], \(cols)::text[], \(ids)::text[], \(ops)::text[], \(ups)::text[], \(devs)::text[],
                                \(bodies)::text[]) AS t(s, c, i, o, u, d, b)
                    """, logger: logger)
                // One row per record (its last version in this batch). The lookup above ran under the user's
                // lock, so it says exactly which exist: new records are plain inserts and the others plain
                // updates. `INSERT … ON CONFLICT` would insert speculatively (a conflict probe, a token and a
                // confirmation WAL record per row) for rows that cannot conflict.
                let last = plan.lastOfRecord.map { logged[$0] }
                let (fresh, stored) = (last.filter { current[BatchMergePlan.key($0.change)] == nil },
                                       last.filter { current[BatchMergePlan.key($0.change)] != nil })
                for (rows, isNew) in [(fresh, true), (stored, false)] where !rows.isEmpty {
                    let rSeqs = rows.map(\.seq), rCols = rows.map { $0.change.collection.rawValue }, rIds = rows.map { $0.change.id }
                    // NULL cannot ride in these arrays: '' stands for it (never a valid sermon id or time).
                    let rSermons = rows.map { $0.change.record.sermonId ?? "" }, rDeleted = rows.map { $0.change.record.deletedAt ?? "" }
                    let rUps = rows.map { $0.change.updatedAt }, rDevs = rows.map { $0.change.deviceId }, rBodies = rows.map(\.body)
                    if isNew {
                        try await conn.query("""
                            INSERT INTO records(user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body)
                            SELECT \(user), c, i, NULLIF(sid, ''), u, d, NULLIF(del, ''), s, b
                            FROM unnest(\(rCols)::text[], \(rIds)::text[], \(rSermons)::text[], \(rUps)::text[], \(rDevs)::text[],
                                        \(rDeleted)::text[], \(rSeqs)::int8[], \(rBodies)::text[]) AS t(c, i, sid, u, d, del, s, b)
                            """, logger: logger)
                    } else {
                        try await conn.query("""
                            UPDATE records AS r SET sermon_id = NULLIF(t.sid, ''), updated_at = t.u, device_id = t.d,
                              deleted_at = NULLIF(t.del, ''), seq = t.s, body = t.b
                            FROM unnest(\(rCols)::text[], \(rIds)::text[], \(rSermons)::text[], \(rUps)::text[], \(rDevs)::text[],
                                        \(rDeleted)::text[], \(rSeqs)::int8[], \(rBodies)::text[]) AS t(c, i, sid, u, d, del, s, b)
                            WHERE r.user_id = \(user) AND r.collection = t.c AND r.id = t.i
                            """, logger: logger)
                    }
                }
            }
            if !plan.ops.isEmpty {
                // New op ids only (the plan left out every known one, and each once), under the user's lock.
                let opIds = plan.ops.map(\.opId), opResults = plan.ops.map(\.result)
                try await conn.query("""
                    INSERT INTO applied_ops(user_id, op_id, result)
                    SELECT \(user), o, r FROM unnest(\(opIds)::text[], \(opResults)::text[]) AS t(o, r)
                    """, logger: logger)
            }
            return plan.verdicts
        }

        func versionBody(_ collection: RecordCollection, id: String, version: RecordVersion) async throws -> [String: JSON]? {
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
