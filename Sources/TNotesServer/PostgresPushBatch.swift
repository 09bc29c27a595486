import PostgresNIO
import TNotesCore

/// One push batch on PostgreSQL, worked out from its look-up: each change's verdict, and the batch's whole
/// write as one statement (see `BatchWrite`): the log rows, the records' final versions (new ones
/// inserted, stored ones updated), the op results, the user's seq and the notification.
///
/// The write takes its seqs from `user_seq` as it runs (the base plus each logged change's place), so it can
/// be made before the user's lock is taken: it depends only on the changes and on what the look-up found.
/// A transaction that finds the same again under the lock runs it as it is.
final class PostgresPushBatch: Sendable {
    /// What the look-up found: which of the batch's op ids are known, and the stored version of each of its
    /// records that exists (by `BatchMergePlan.key`).
    struct Found: Sendable, Equatable {
        var known = Set<String>()
        var current = [String: RecordVersion]()
    }

    let user: Int64
    let opIds: [String]
    let found: Found
    let verdicts: [MergeVerdict]
    let loggedCount: Int
    let write: PostgresQuery

    /// Both halves probe the primary key once per change (LATERAL; LIMIT 1 keeps the planner from flattening
    /// it into a join): planned from the statistics of a table that was small when last analysed,
    /// `op_id = ANY(...)` and a hash join scanned all of the user's ops and records for every batch (15-18 ms a
    /// batch at 100 k rows, growing with the log).
    static func lookUp(user: Int64, changes: [Change]) -> PostgresQuery {
        let keyCollections = changes.map(\.collection.rawValue), keyIds = changes.map(\.id)
        return """
            SELECT 'op', a.op_id, '', '', '' FROM unnest(\(changes.map(\.opId))::text[]) AS k(op)
            CROSS JOIN LATERAL (SELECT op_id FROM applied_ops WHERE user_id = \(user) AND op_id = k.op LIMIT 1) AS a
            UNION ALL
            SELECT 'record', r.collection, r.id, r.updated_at, r.device_id
            FROM (SELECT DISTINCT * FROM unnest(\(keyCollections)::text[], \(keyIds)::text[])) AS k(c, id)
            CROSS JOIN LATERAL (SELECT collection, id, updated_at, device_id FROM records
                                WHERE user_id = \(user) AND collection = k.c AND id = k.id LIMIT 1) AS r
            """
    }

    static func found(_ rows: PostgresRowSequence) async throws -> Found {
        var found = Found()
        for try await (kind, a, b, u, d) in rows.decode((String, String, String, String, String).self) {
            if kind == "op" { found.known.insert(a) } else { found.current[a + "/" + b] = RecordVersion(updatedAt: u, deviceId: d) }
        }
        return found
    }

    init(user: Int64, changes: [Change], found: Found, plan: BatchMergePlan) {
        self.user = user
        self.opIds = changes.map(\.opId)
        self.found = found
        verdicts = plan.verdicts
        loggedCount = plan.logged.count
        var write = BatchWrite(user: user)
        let logged = plan.logged
        if !logged.isEmpty {
            // Logged change k (from 1) takes seq base + k, the base being the user's seq as the statement
            // runs: under the lock, the transaction's own.
            // A record's last version here is its current one: the record's row holds that body (schema step
            // 8). An earlier one in the batch keeps its own ('' rides for NULL, as below).
            let lastIndices = Set(plan.lastOfRecord)
            write.add("""
                INSERT INTO changes(user_id, seq, collection, id, op, updated_at, device_id, body)
                SELECT $1, b.seq + t.n, c, i, o, u, d, NULLIF(body, '')
                FROM (SELECT seq FROM user_seq WHERE user_id = $1) AS b,
                     unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS t(c, i, o, u, d, body, n)
                """, logged.map { $0.change.collection.rawValue }, logged.map { $0.change.id },
                logged.map { $0.change.op.rawValue }, logged.map { $0.change.updatedAt }, logged.map { $0.change.deviceId },
                logged.indices.map { lastIndices.contains($0) ? "" : logged[$0].body })
            // One row per record (its last version in this batch). The look-up ran under the user's lock (or
            // found under it what it found here), so it says exactly which exist: new records are plain
            // inserts and the others plain updates. `INSERT … ON CONFLICT` would insert speculatively (a
            // conflict probe, a token and a confirmation WAL record per row) for rows that cannot conflict.
            let (fresh, stored) = (plan.lastOfRecord.filter { found.current[BatchMergePlan.key(logged[$0].change)] == nil },
                                   plan.lastOfRecord.filter { found.current[BatchMergePlan.key(logged[$0].change)] != nil })
            for (rows, isNew) in [(fresh, true), (stored, false)] where !rows.isEmpty {
                // NULL cannot ride in these arrays: '' stands for it (never a valid sermon id or time).
                let sql = isNew ? """
                    INSERT INTO records(user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body)
                    SELECT $1, c, i, NULLIF(sid, ''), u, d, NULLIF(del, ''), b.seq + k, body
                    FROM (SELECT seq FROM user_seq WHERE user_id = $1) AS b,
                         unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int8[], ?::text[])
                           AS t(c, i, sid, u, d, del, k, body)
                    """ : """
                    UPDATE records AS r SET sermon_id = NULLIF(t.sid, ''), updated_at = t.u, device_id = t.d,
                      deleted_at = NULLIF(t.del, ''), seq = b.seq + t.k, body = t.body
                    FROM (SELECT seq FROM user_seq WHERE user_id = $1) AS b,
                         unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int8[], ?::text[])
                           AS t(c, i, sid, u, d, del, k, body)
                    WHERE r.user_id = $1 AND r.collection = t.c AND r.id = t.i
                    """
                write.add(sql, rows.map { logged[$0].change.collection.rawValue }, rows.map { logged[$0].change.id },
                          rows.map { logged[$0].change.record.sermonId ?? "" }, rows.map { logged[$0].change.updatedAt },
                          rows.map { logged[$0].change.deviceId }, rows.map { logged[$0].change.record.deletedAt ?? "" },
                          rows.map { Int64($0 + 1) }, rows.map { logged[$0].body })
            }
            write.add("UPDATE user_seq SET seq = seq + ?::int8 WHERE user_id = $1", Int64(logged.count))
        }
        if !plan.ops.isEmpty {
            // New op ids only (the plan left out every known one, and each once).
            write.add("""
                INSERT INTO applied_ops(user_id, op_id, result) SELECT $1, o, r FROM unnest(?::text[], ?::text[]) AS t(o, r)
                """, plan.ops.map(\.opId), plan.ops.map(\.result))
        }
        self.write = write.query(notify: logged.isEmpty ? nil : PostgresChangeListener.channel)
    }

    /// Whether this was made for these changes of this user and the look-up under the lock found the same.
    func matches(_ changes: [Change], found: Found, user: Int64) -> Bool {
        user == self.user && found == self.found && changes.count == opIds.count
            && zip(changes, opIds).allSatisfy { $0.opId == $1 }
    }
}
