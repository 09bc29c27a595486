import TNotesCore
import TNotesSQLite

/// A push batch merged in one SQLite transaction: first as though its new records and op ids were new (the
/// common case, no look-up for them), then, where that breaks a key, with everything looked up.
extension SQLiteServerStorage.Transaction {
    func mergeBatch(_ changes: [Change], bodies: [String]) async throws -> [MergeVerdict] {
        if changes.isEmpty { return [] }
        if let verdicts = try mergePresumingNew(changes, bodies: bodies) { return verdicts }
        // Two lookups for the whole batch, each list bound as one JSON array, instead of two per change.
        var known = Set<String>()
        for row in try db.query(Self.knownOps, [.int(user), .text(JSON.array(changes.map { .string($0.opId) }).text)]) {
            if let op = row[0].string { known.insert(op) }
        }
        let current = try storedVersions(of: changes.indices, in: changes)
        guard let plan = BatchMergePlan(changes: changes, known: known, current: current) else {
            return try await mergeEach(changes)
        }
        for index in plan.logged { _ = try writeRow(changes[index], body: bodies[index]) }
        for (opId, result) in plan.ops { try insertOp(opId, result: result) }
        return plan.verdicts
    }

    /// The batch merged as PostgreSQL merges one prepared before its lock (`PostgresPushBatch.LookUpScope`):
    /// its op ids, and the records of its changes made on no version (`base` nil: new records), are presumed
    /// new and not looked up; the op results and each such record's first row are inserted as new, so one
    /// that exists after all breaks its table's key. Then nothing of it stays (a savepoint) and the caller
    /// merges the batch with everything looked up. Nil then, or when the batch needs the one-at-a-time
    /// merge.
    private func mergePresumingNew(_ changes: [Change], bodies: [String]) throws -> [MergeVerdict]? {
        let current = try storedVersions(of: changes.indices.filter { changes[$0].base != nil }, in: changes)
        guard let plan = BatchMergePlan(changes: changes, known: [], current: current) else { return nil }
        let seqBefore = seq
        try db.exec("SAVEPOINT presumed")
        do {
            var written = Set<RecordKey>()
            for index in plan.logged {
                let key = BatchMergePlan.key(changes[index])
                let presumedNew = current[key] == nil && written.insert(key).inserted
                _ = try writeRow(changes[index], body: bodies[index], asNew: presumedNew)
            }
            for (opId, result) in plan.ops {
                try db.run("INSERT INTO applied_ops(user_id, op_id, result) VALUES (?, ?, ?)", [.int(user), .text(opId), .text(result)])
            }
            try db.exec("RELEASE presumed")
            return plan.verdicts
        } catch let e as SQLiteError where e.isConstraint {
            try db.exec("ROLLBACK TO presumed")
            try db.exec("RELEASE presumed")
            seq = seqBefore
            return nil
        }
    }

    /// The stored version of each record the changes at `indices` name, in one query (the keys bound as one
    /// JSON array). A record that is not stored is absent.
    private func storedVersions(of indices: some Collection<Int>, in changes: [Change]) throws -> [RecordKey: RecordVersion] {
        var current = [RecordKey: RecordVersion]()
        if indices.isEmpty { return current }
        let keys = JSON.array(indices.map { .array([.string(changes[$0].collection.rawValue), .string(changes[$0].id)]) }).text
        for row in try db.query(Self.storedVersions, [.text(keys), .int(user)]) {
            guard let collection = RecordCollection(rawValue: row[0].string ?? "") else { continue }
            current[RecordKey(collection, row[1].string ?? "")] = RecordVersion(updatedAt: row[2].string ?? "", deviceId: row[3].string ?? "")
        }
        return current
    }

    static let insertRecord = """
        INSERT INTO records(user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let upsertRecord = insertRecord + """

        ON CONFLICT(user_id, collection, id) DO UPDATE SET sermon_id = excluded.sermon_id,
          updated_at = excluded.updated_at, device_id = excluded.device_id, deleted_at = excluded.deleted_at,
          seq = excluded.seq, body = excluded.body
        """

    static let knownOps = "SELECT op_id FROM applied_ops WHERE user_id = ? AND op_id IN (SELECT value FROM json_each(?))"
    // CROSS JOIN fixes the order (the list outside, a key lookup per item): without statistics SQLite
    // chose to scan the user's records by records_by_sermon and probe the list.
    static let storedVersions = """
        SELECT r.collection, r.id, r.updated_at, r.device_id
        FROM json_each(?) AS k
        CROSS JOIN records AS r ON r.user_id = ? AND r.collection = json_extract(k.value, '$[0]') AND r.id = json_extract(k.value, '$[1]')
        """
}
