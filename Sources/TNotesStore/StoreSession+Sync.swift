import TNotesCore
import TNotesSQLite

/// What the sync engine needs of the store. Each call runs inside the caller's transaction, so a push
/// result and the outbox rows it settles, or a pulled page and the cursor after it, commit together.
extension StoreSession {
    public struct QueuedChange: Sendable {
        public let seq: Int64
        public let opId: String
        public let collection: String
        public let recordId: String
        /// The exact Change text queued at write time; it is sent as it is.
        public let text: String
    }

    /// The oldest queued (not failed) outbox entries, in order.
    public func queuedChanges(limit: Int) throws -> [QueuedChange] {
        try queuedChanges(after: 0, limit: limit)  // seqs start at 1
    }

    /// The oldest queued entries after `seq` (the next batch while the one up to `seq` is still out).
    public func queuedChanges(after seq: Int64, limit: Int) throws -> [QueuedChange] {
        try db.query("""
            SELECT seq, op_id, collection, record_id, change FROM outbox WHERE state = 'queued' AND seq > ? ORDER BY seq LIMIT ?
            """, [.int(seq), .int(Int64(limit))]
        ).map { QueuedChange(seq: $0[0].int ?? 0, opId: $0[1].string ?? "", collection: $0[2].string ?? "",
                             recordId: $0[3].string ?? "", text: $0[4].string ?? "") }
    }

    public enum PushOutcome: Sendable, Equatable {
        case applied, duplicate, superseded
        case rejected(String)
        /// The server merged the change with a concurrent edit: the record as stored there, a new version.
        case merged(Change)
    }

    /// Settles one pushed outbox entry. Accepted → the entry goes, and the record becomes `synced` unless a
    /// newer local edit is still queued for it; superseded → the entry goes (the winner arrives by pull);
    /// merged → the entry goes and the merged version replaces this device's; rejected → the entry stays,
    /// marked failed with the reason, and no longer blocks the queue.
    public func settle(_ entry: QueuedChange, outcome: PushOutcome) throws {
        try settle([(entry, outcome)])
    }

    /// Settles a batch's answers in order, as settling them one at a time would. Runs of accepted or
    /// superseded entries (nearly every answer) are settled with two statements a run, not three per entry:
    /// at 120 k pushed changes the per-entry statements were a second of the push's settling.
    public func settle(_ answered: [(entry: QueuedChange, outcome: PushOutcome)]) throws {
        var run: [(entry: QueuedChange, outcome: PushOutcome)] = []
        for item in answered {
            switch item.outcome {
            case .applied, .duplicate, .superseded:
                run.append(item)
            case .merged(let stored):
                try settleAccepted(run)
                run.removeAll()
                try removeFromOutbox(item.entry)
                // The merge is newer than both sides: it replaces this device's version (kept in history), unless a
                // later local edit is already queued on top, which will itself be merged with it.
                try apply(stored, origin: .remote, reason: .merge)
            case .rejected(let reason):
                try settleAccepted(run)
                run.removeAll()
                try markFailed(item.entry, reason: reason)
            }
        }
        try settleAccepted(run)
    }

    /// The outbox entries the server refused for the account's record quota (`quota: …`, contract §8.6).
    public func quotaRejected() throws -> [Int64] {
        try db.query("SELECT seq FROM outbox WHERE state = 'failed' AND last_error LIKE 'quota:%' ORDER BY seq").compactMap { $0[0].int }
    }

    /// Puts these failed entries back in the queue (a deletion here or elsewhere may have freed room). How many went back.
    public func requeue(_ seqs: [Int64]) throws -> Int {
        guard !seqs.isEmpty else { return 0 }
        let rows = try db.query("""
            UPDATE outbox SET state = 'queued' WHERE state = 'failed' AND seq IN (SELECT value FROM json_each(?))
            RETURNING collection, record_id
            """, [.text(JSON.array(seqs.map { .int($0) }).text)])
        for row in rows {
            try db.run("UPDATE records SET sync_state = 'pending' WHERE collection = ? AND id = ?", [row[0], row[1]])
        }
        outboxDelta.queued += rows.count
        outboxDelta.failed -= rows.count
        return rows.count
    }

    /// A rejected entry stays in the outbox, failed with the reason; its record shows the error.
    private func markFailed(_ entry: QueuedChange, reason: String) throws {
        let was = try db.scalar("SELECT state FROM outbox WHERE seq = ?", [.int(entry.seq)]).string
        try db.run("UPDATE outbox SET state = 'failed', attempts = attempts + 1, last_error = ? WHERE seq = ?",
                   [.text(reason), .int(entry.seq)])
        if was == "queued" {
            outboxDelta.queued -= 1
            outboxDelta.failed += 1
        }
        try db.run("UPDATE records SET sync_state = 'error' WHERE collection = ? AND id = ?",
                   [.text(entry.collection), .text(entry.recordId)])
    }

    /// A run of applied, duplicate or superseded entries: all leave the outbox. Their records are not written:
    /// a `pending` record with no queued entry left reads as `synced` (`StoreSession.syncStateSQL`).
    private func settleAccepted(_ run: [(entry: QueuedChange, outcome: PushOutcome)]) throws {
        guard !run.isEmpty else { return }
        let seqs = JSON.array(run.map { .int($0.entry.seq) }).text
        for row in try db.query("DELETE FROM outbox WHERE seq IN (SELECT value FROM json_each(?)) RETURNING state", [.text(seqs)]) {
            if row[0].string == "failed" { outboxDelta.failed -= 1 } else { outboxDelta.queued -= 1 }
        }
    }

    /// Deletes a settled entry, keeping the outbox counts in step.
    private func removeFromOutbox(_ entry: QueuedChange) throws {
        if let state = try db.query("DELETE FROM outbox WHERE seq = ? RETURNING state", [.int(entry.seq)]).first?[0].string {
            if state == "failed" { outboxDelta.failed -= 1 } else { outboxDelta.queued -= 1 }
        }
    }

    /// Counts a failed attempt against entries that were sent but got no verdict (network error…).
    public func noteAttempt(_ entries: [QueuedChange], error: String) throws {
        for e in entries {
            try db.run("UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ?", [.text(error), .int(e.seq)])
        }
    }

    public func pullCursor() throws -> String? {
        try db.scalar("SELECT cursor FROM sync_cursor WHERE id = 1").string
    }

    public func setPullCursor(_ cursor: String) throws {
        try db.run("""
            INSERT INTO sync_cursor(id, cursor, updated_at) VALUES (1, ?, ?)
            ON CONFLICT(id) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at
            """, [.text(cursor), .text(Timestamp.now())])
    }
}
