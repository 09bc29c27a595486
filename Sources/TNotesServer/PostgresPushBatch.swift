import PostgresNIO
import TNotesCore

/// One push batch on PostgreSQL, worked out from its look-up: each change's verdict, and the batch's whole
/// write as one call of `tnotes_push_batch` (schema step 12): the op results, then the user's lock, the check
/// that the look-up still holds, the log rows, the records' final versions (new ones inserted, stored ones
/// updated), the user's seq and the notification.
///
/// The call takes its seqs from `user_seq` under the lock (the base plus each logged change's place), so it
/// can be made before the lock is taken: it depends only on the changes and on what the look-up found. Made
/// and run outside a transaction (`PostgresServerStorage.applyPrepared`), the lock is held for PostgreSQL's
/// own work and no round trip; run inside the push's transaction after a look-up under the lock, its check
/// has nothing to check.
final class PostgresPushBatch: Sendable {
    /// What the look-up found: which of the batch's op ids are known, and the stored version of each of its
    /// records that exists (by `BatchMergePlan.key`).
    struct Found: Sendable {
        var known = Set<String>()
        var current = [RecordKey: RecordVersion]()
        /// The user's seq in the look-up's snapshot: every record written since logs a change past it.
        var seq: Int64 = 0
    }

    let user: Int64
    let verdicts: [MergeVerdict]
    let loggedCount: Int
    /// The call: its result is the seq before the batch; it raises `staleState` when a record of the batch
    /// was logged since the look-up (nothing is kept).
    let call: PostgresQuery

    /// Both halves probe the primary key once per change (LATERAL; LIMIT 1 keeps the planner from flattening
    /// it into a join): planned from the statistics of a table that was small when last analysed,
    /// `op_id = ANY(...)` and a hash join scanned all of the user's ops and records for every batch (15-18 ms a
    /// batch at 100 k rows, growing with the log). The user's seq comes from the same snapshot.
    static func lookUp(user: Int64, changes: [Change], scope: LookUpScope = .everything) -> PostgresQuery {
        let presume = scope == .presumingNew
        var opIds = PostgresTextArray(capacity: presume ? 0 : changes.count),
            keyCollections = PostgresTextArray(capacity: changes.count), keyIds = PostgresTextArray(capacity: changes.count)
        for index in changes.indices {
            if !presume { opIds.append(changes[index].opId) }
            if !presume || changes[index].base != nil {
                keyCollections.append(changes[index].collection.rawValue)
                keyIds.append(changes[index].id)
            }
        }
        return """
            SELECT 'op', a.op_id, '', '', '' FROM unnest(\(opIds)::text[]) AS k(op)
            CROSS JOIN LATERAL (SELECT op_id FROM applied_ops WHERE user_id = \(user) AND op_id = k.op LIMIT 1) AS a
            UNION ALL
            SELECT 'record', r.collection, r.id, r.updated_at, r.device_id
            FROM (SELECT DISTINCT * FROM unnest(\(keyCollections)::text[], \(keyIds)::text[])) AS k(c, id)
            CROSS JOIN LATERAL (SELECT collection, id, updated_at, device_id FROM records
                                WHERE user_id = \(user) AND collection = k.c AND id = k.id LIMIT 1) AS r
            UNION ALL
            SELECT 'seq', seq::text, '', '', '' FROM user_seq WHERE user_id = \(user)
            """
    }

    /// What a batch's look-up reads.
    enum LookUpScope {
        /// Every op id and every record of the batch: under the user's lock, where what it finds is final.
        case everything
        /// The look-up of a batch prepared before the lock: the op ids and the records of changes made on no
        /// version (`base` nil: a new record) are presumed new, not looked up. The call writes the op results
        /// first and inserts a presumed-new record as new, so an op id the log already has, or a record that
        /// exists after all, breaks applied_ops' or records' key: nothing is kept, and the batch is decided
        /// again under the lock, everything looked up. Almost every op id is new (a device sends a change
        /// again only when it never got the answer), and a device that made a change on a stored record
        /// sends the version it was made on (a device re-sending its records after a server reset does not:
        /// where another device sent them first, its batches are decided under the lock). Over a 1× push
        /// (every record new), leaving out the op ids took PostgreSQL's CPU down by 7.5 % and the push's time
        /// by 4 %; leaving out the new records too, by a further 14 % and 4 % (three interleaved pairs each).
        case presumingNew
    }

    static func found(_ rows: PostgresRowSequence) async throws -> Found {
        var found = Found()
        for try await (kind, a, b, u, d) in rows.decode((String, String, String, String, String).self) {
            switch kind {
            case "op": found.known.insert(a)
            case "seq": found.seq = Int64(a) ?? 0
            default:
                guard let collection = RecordCollection(rawValue: a) else { continue }
                found.current[RecordKey(collection, b)] = RecordVersion(updatedAt: u, deviceId: d)
            }
        }
        return found
    }

    /// `bodies[i]` is the canonical text of `changes[i].record`.
    init(user: Int64, changes: [Change], bodies: [String], found: Found, plan: BatchMergePlan) {
        precondition(bodies.count == changes.count, "one body per change")
        self.user = user
        verdicts = plan.verdicts
        loggedCount = plan.logged.count
        // Logged change k (from 1) takes seq base + k; its row says whether it is also a record's final
        // version here, new ('n') or stored ('o'): `records` then gets it, body included, and its log row no
        // body (schema step 8). One pass over the logged changes fills every column.
        var columns = BatchColumns(capacity: plan.logged.count)
        var lastOfRecord = plan.lastOfRecord.makeIterator()
        var nextLast = lastOfRecord.next()
        for (place, index) in plan.logged.enumerated() {
            var row = BatchColumns.Row.logOnly
            if place == nextLast {
                nextLast = lastOfRecord.next()
                row = found.current[BatchMergePlan.key(changes[index])] == nil ? .newRecord : .storedRecord
            }
            columns.append(changes[index], body: bodies[index], row: row)
        }
        // The stale check needs every record of the batch: the logged ones' keys the call makes from its own
        // columns; only the others (superseded, duplicate) are sent, as the call writes them.
        var otherKeys = PostgresTextArray()
        for index in plan.verdicts.indices where plan.verdicts[index].status != MergeOutcome.applied.rawValue {
            otherKeys.append(changes[index].collection.rawValue + "/" + changes[index].id)
        }
        var opIds = PostgresTextArray(capacity: plan.ops.count), opResults = PostgresTextArray(capacity: plan.ops.count)
        for (opId, result) in plan.ops {
            opIds.append(opId)
            opResults.append(result)
        }
        let channel = PostgresChangeListener.channel
        call = """
            SELECT tnotes_push_batch(\(user), \(found.seq), \(otherKeys),
              \(columns.collections), \(columns.ids), \(columns.ops), \(columns.updatedAts), \(columns.deviceIds),
              \(columns.rows), \(columns.sermonIds), \(columns.deletedAts), \(columns.bodies),
              \(opIds), \(opResults), \(channel))
            """
    }

    /// The SQLSTATE the call raises when the look-up no longer holds (schema step 12).
    static let staleState = "TNST1"

    /// Runs the call and reads its answer to the end (an error of the statement comes with it): the seq
    /// before the batch, nil when the look-up no longer holds (nothing written).
    func run(on conn: PostgresConnection, logger: Logger) async throws -> Int64? {
        var before: Int64?
        do {
            for try await s in try await conn.query(call, logger: logger).decode(Int64.self) { before = s }
        } catch let e as PSQLError where e.serverInfo?[.sqlState] == Self.staleState {
            return nil
        }
        guard let before else { throw ServerError.storage("tnotes_push_batch gave no answer") }
        return before < 0 ? nil : before
    }
}

/// A batch's logged changes as the call's parallel arrays, one element per change: each is a log row, and
/// a record's final version in the batch is also that record's row (`rows`: 'n' inserted, 'o' updated, ''
/// the log only). Its collection, id, time and device ride once for both. Sent apart for the log and the
/// records (with each record's place among the log rows, and every key again for the stale check), a batch
/// was 17 array elements a change, now 11: fewer for postgres-nio to encode and for PostgreSQL to receive.
/// NULL cannot ride in these arrays: '' stands for it (never a valid sermon id or time); the sermon id and
/// deletion are only read for a record's row.
struct BatchColumns {
    enum Row: String {
        case logOnly = "", newRecord = "n", storedRecord = "o"
    }

    var collections = PostgresTextArray(), ids = PostgresTextArray(), ops = PostgresTextArray(),
        updatedAts = PostgresTextArray(), deviceIds = PostgresTextArray(), rows = PostgresTextArray(),
        sermonIds = PostgresTextArray(), deletedAts = PostgresTextArray(), bodies = PostgresTextArray()

    init(capacity: Int) {
        for column in [\BatchColumns.collections, \.ids, \.ops, \.updatedAts, \.deviceIds, \.rows, \.sermonIds, \.deletedAts] {
            self[keyPath: column].reserve(elements: capacity, bytes: capacity * 40)
        }
    }

    mutating func append(_ change: Change, body: String, row: Row) {
        collections.append(change.collection.rawValue)
        ids.append(change.id)
        ops.append(change.op.rawValue)
        updatedAts.append(change.updatedAt)
        deviceIds.append(change.deviceId)
        rows.append(row.rawValue)
        let isRecord = row != .logOnly
        sermonIds.append(isRecord ? change.record.sermonId ?? "" : "")
        deletedAts.append(isRecord ? change.record.deletedAt ?? "" : "")
        bodies.append(body)
    }
}
