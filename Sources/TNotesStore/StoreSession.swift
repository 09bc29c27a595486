import TNotesCore
import TNotesSQLite

/// What code running on the store queue may do. Local writes and records arriving by pull go through
/// the same `apply` — the one place where the merge rule decides — so a child record of an existing
/// sermon is merged on its own, exactly as a new one would be.
public final class StoreSession {
    let db: SQLiteConnection
    unowned let store: Store
    var changes: [RecordChange] = []
    /// How this session changed the outbox's queued and failed counts; the store adds it to its running
    /// totals once the session's writes have committed (and drops it if they roll back).
    var outboxDelta = OutboxCounts()
    /// The greatest record id stored in each collection as far as this session knows: loaded at its first
    /// use, raised by every insert (never lowered: a rolled-back insert leaves it high, which only means
    /// more probes). See `storedVersion`.
    private var greatestId: [RecordCollection: String] = [:]

    init(db: SQLiteConnection, store: Store) {
        self.db = db
        self.store = store
    }

    public var deviceId: String { store.deviceId }

    /// A new HLC stamp for a local write.
    public func stamp() -> String { store.tick() }

    // MARK: Records

    /// A record's sync state as reads report it. The stored `sync_state` is what the last write of the
    /// record said: `pending` for a local version, `synced` for a pulled one, `error` when the server
    /// rejected it. A push that is accepted does not write it back (rewriting every pushed record's row,
    /// body and all, for one column was 40 % of the pushing daemon's CPU: 0.9 s of SQLite and most of its
    /// WAL at 120 k records); instead a `pending` record whose outbox holds no queued entry any more reads
    /// as `synced`, which is what settling it one entry at a time would have written. (One difference: a
    /// version the server superseded reads `synced` from its settling on, not only once the winner is
    /// pulled, which the same sync does next.) The entry asked about is the record's latest, named by its row
    /// (`queued_seq`, store v9): the outbox is pushed and settled in seq order, so while an earlier entry of
    /// the record is queued its latest is too. The record's id is checked with the seq: after a restart a seq
    /// whose entry is gone may be given again, to another record.
    public static let syncStateSQL = """
        CASE WHEN records.sync_state = 'pending' AND NOT EXISTS (SELECT 1 FROM outbox
            WHERE outbox.seq = records.queued_seq AND outbox.state = 'queued' AND outbox.record_id = records.id
              AND outbox.collection = records.collection)
        THEN 'synced' ELSE records.sync_state END
        """

    public func record(_ collection: RecordCollection, id: String) throws -> StoredRecord? {
        let rows = try db.query(
            "SELECT body, device_id, \(Self.syncStateSQL) FROM records WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)])
        return try rows.first.map { try decode(collection, $0) }
    }

    /// Every live record of a collection (for small collections: conflicts).
    public func live(_ collection: RecordCollection) throws -> [StoredRecord] {
        try db.query("SELECT body, device_id, \(Self.syncStateSQL) FROM records WHERE collection = ? AND deleted_at IS NULL",
                     [.text(collection.rawValue)]).map { try decode(collection, $0) }
    }

    /// Live children of a sermon in one collection (tombstones left out unless asked for).
    public func children(_ collection: RecordCollection, sermonId: String, includeDeleted: Bool = false) throws
        -> [StoredRecord]
    {
        // INDEXED BY: without statistics SQLite prefers the primary key's (collection) prefix, which scans
        // every note to find one sermon's (seen at 100 k notes); the sermon index is the selective one.
        let sql = includeDeleted
            ? "SELECT body, device_id, \(Self.syncStateSQL) FROM records INDEXED BY records_by_sermon WHERE sermon_id = ? AND collection = ?"
            : "SELECT body, device_id, \(Self.syncStateSQL) FROM records INDEXED BY records_by_sermon WHERE sermon_id = ? AND collection = ? AND deleted_at IS NULL"
        return try db.query(sql, [.text(sermonId), .text(collection.rawValue)]).map { try decode(collection, $0) }
    }

    /// The stored (canonical) body texts of a sermon's live children, unparsed, for replies that only pass
    /// them on. Notes come in note order (timestamp, createdAt, id); for transcripts and summaries only the
    /// newest version (by `(updatedAt, deviceId)`) is returned.
    public func childTexts(_ collection: RecordCollection, sermonId: String) throws -> [String] {
        let sql: String
        switch collection {
        case .notes:
            sql = """
                SELECT body FROM records INDEXED BY records_by_sermon WHERE sermon_id = ? AND collection = ? AND deleted_at IS NULL
                ORDER BY json_extract(body, '$.timestamp'), json_extract(body, '$.createdAt'), id
                """
        case .chatMessages:
            sql = """
                SELECT body FROM records INDEXED BY records_by_sermon WHERE sermon_id = ? AND collection = ? AND deleted_at IS NULL
                ORDER BY json_extract(body, '$.createdAt'), id, device_id
                """
        default:
            sql = """
                SELECT body FROM records INDEXED BY records_by_sermon WHERE sermon_id = ? AND collection = ? AND deleted_at IS NULL
                ORDER BY updated_at DESC, device_id DESC LIMIT 1
                """
        }
        return try db.query(sql, [.text(sermonId), .text(collection.rawValue)]).compactMap { $0[0].string }
    }

    /// Sermons newest first (by date, then id), a page at a time. `after` is the `next` of the previous page.
    public func sermons(includeArchived: Bool, includeDeleted: Bool, limit: Int, after: (String, String)?) throws
        -> (items: [StoredRecord], next: (String, String)?)
    {
        // INDEXED BY: the order index holds sermons only (a partial index), and without statistics SQLite
        // would rather scan the primary key's (collection) prefix and sort.
        var sql = "SELECT body, device_id, \(Self.syncStateSQL), sort_key, id FROM records INDEXED BY records_sermon_order WHERE collection = 'sermons'"
        var args: [SQLValue] = []
        if !includeDeleted { sql += " AND deleted_at IS NULL" }
        if !includeArchived { sql += " AND json_extract(body, '$.isArchived') = 0" }
        if let (key, id) = after {
            sql += " AND (sort_key < ? OR (sort_key = ? AND id < ?))"
            args += [.text(key), .text(key), .text(id)]
        }
        sql += " ORDER BY sort_key DESC, id DESC LIMIT ?"
        args.append(.int(Int64(limit + 1)))
        let rows = try db.query(sql, args)
        let items = try rows.prefix(limit).map { try decode(.sermons, $0) }
        var next: (String, String)?
        if rows.count > limit, let last = rows.prefix(limit).last, let key = last[3].string, let id = last[4].string {
            next = (key, id)
        }
        return (items, next)
    }

    public func count(_ collection: RecordCollection, live: Bool = true) throws -> Int {
        let sql = live
            ? "SELECT count(*) FROM records WHERE collection = ? AND deleted_at IS NULL"
            : "SELECT count(*) FROM records WHERE collection = ?"
        return Int(try db.scalar(sql, [.text(collection.rawValue)]).int ?? 0)
    }

    private func decode(_ collection: RecordCollection, _ row: Row) throws -> StoredRecord {
        guard let text = row[0].string, case .object(let body) = try JSON.parse(text) else {
            throw StoreError.corruptRow("\(collection.rawValue) body is not an object")
        }
        return StoredRecord(collection: collection, body: body, deviceId: row[1].string ?? "",
                            syncState: SyncState(rawValue: row[2].string ?? "") ?? .pending)
    }

    // MARK: The one merge path

    /// Makes a local change: stamps it with the HLC, merges it (it always wins: its stamp is the newest),
    /// and queues the exact Change in the outbox — all inside the caller's transaction.
    @discardableResult
    public func commitLocal(_ collection: RecordCollection, record: JSONObject, op: Change.Op,
                            reason: HistoryReason? = nil) throws -> StoredRecord {
        let normalized: JSONObject
        do { normalized = try collection.schema.normalize(.object(record)) } catch { throw StoreError.invalid(error) }
        // The bounds of values (contract §8.1): checked on what is new. The stored version is read only when a
        // bound fails, to keep a value that predates the bounds (an edit of another field still saves).
        do { try ValueBounds.check(collection, normalized) } catch {
            let previous = try self.record(collection, id: normalized.recordId)?.body
            do throws(FieldError) { try ValueBounds.check(collection, normalized, previous: previous) } catch {
                throw StoreError.invalid(error)
            }
        }
        let change = Change(opId: Identifier.make(), collection: collection, id: normalized.recordId, op: op,
                            updatedAt: normalized.updatedAt, deviceId: deviceId, record: normalized)
        do { try change.validate() } catch { throw StoreError.invalid(error) }
        _ = try apply(change, origin: .local, reason: reason)
        return StoredRecord(collection: collection, body: normalized, deviceId: deviceId, syncState: .pending)
    }

    /// Merges one version of one record by `(updatedAt, deviceId)`. Remote versions advance the clock and
    /// never enqueue anything; local versions enqueue their Change. Returns what the merge decided.
    @discardableResult
    public func apply(_ incoming: Change, origin: RecordChange.Origin, reason: HistoryReason? = nil) throws -> MergeOutcome {
        try apply(incoming, origin: origin, reason: reason, prepared: nil)
    }

    /// `apply` of a change prepared off the store queue (a pulled page's records).
    @discardableResult
    public func apply(_ prepared: PreparedChange, origin: RecordChange.Origin) throws -> MergeOutcome {
        try apply(prepared.change, origin: origin, reason: nil, prepared: prepared)
    }

    private func apply(_ incoming: Change, origin: RecordChange.Origin, reason: HistoryReason?, prepared: PreparedChange?) throws
        -> MergeOutcome
    {
        var change = incoming
        if origin == .remote { store.receive(change.updatedAt) }
        let existing = try storedVersion(change.collection, id: change.id, pulled: origin == .remote)
        let outcome = MergeRule.decide(existing: existing, incoming: change.version,
                                       appendOnly: change.collection.isAppendOnly)
        guard outcome == .applied else { return outcome }

        // A local edit carries the version it was made on, so that the server can merge it with a
        // concurrent edit of another device instead of letting one of them win (contract §6.3).
        if origin == .local, let existing, !change.collection.isAppendOnly { change.base = existing }
        if existing != nil {
            // The version being replaced goes to the history, copied inside SQLite (no body through Swift).
            let why = reason ?? (origin == .remote ? .remote : change.op == .delete ? .delete : .edit)
            try db.run("""
                INSERT INTO history(collection, id, updated_at, device_id, body, replaced_at, reason)
                SELECT collection, id, updated_at, device_id, body, ?, ? FROM records WHERE collection = ? AND id = ?
                """, [.text(Timestamp.now()), .text(why.rawValue), .text(change.collection.rawValue), .text(change.id)])
        }
        let body = prepared?.body ?? JSON.object(change.record).text
        let sermonId = prepared.map(\.sermonId) ?? change.record.sermonId
        let sortKey: SQLValue = change.collection == .sermons ? SQLValue(change.record["date"]?.stringValue) : .null
        let syncState = origin == .local ? SyncState.pending : .synced
        // A local version is queued first, so that its row names the entry (queued_seq, see `syncStateSQL`).
        var queuedSeq = SQLValue.null
        if origin == .local {
            queuedSeq = try queue(change, recordText: body)
        }
        try db.run("""
            INSERT INTO records(collection, id, sermon_id, updated_at, device_id, deleted_at, sort_key, sync_state, queued_seq, body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(collection, id) DO UPDATE SET
              sermon_id = excluded.sermon_id, updated_at = excluded.updated_at, device_id = excluded.device_id,
              deleted_at = excluded.deleted_at, sort_key = excluded.sort_key, sync_state = excluded.sync_state,
              queued_seq = excluded.queued_seq, body = excluded.body
            """,
            [.text(change.collection.rawValue), .text(change.id), SQLValue(sermonId),
             .text(change.updatedAt), .text(change.deviceId), SQLValue(prepared.map(\.deletedAt) ?? change.record.deletedAt), sortKey,
             .text(syncState.rawValue), queuedSeq, .text(body)])
        if let greatest = greatestId[change.collection], greatest.utf8.lexicographicallyPrecedes(change.id.utf8) {
            greatestId[change.collection] = change.id
        }
        // The record's search rows and scripture references, in this transaction.
        // A pulled new record under a held index (a large pull) leaves its search rows to the catch-up.
        try SearchIndex.reindex(db, collection: change.collection, record: change.record, replacing: existing != nil,
                                deferNew: origin == .remote && store.searchHeld,
                                backlog: &store.searchBacklog)
        try indexReferences(collection: change.collection, record: change.record, replacing: existing != nil,
                            found: prepared?.references)
        changes.append(RecordChange(collection: change.collection, id: change.id, sermonId: sermonId,
                                    op: change.op, origin: origin))
        return outcome
    }

    /// Puts a local change in the outbox as the exact text that will be pushed; returns its seq:
    /// `store.nextOutboxSeq`, which the store set past the table's greatest at open and moves past every seq
    /// it gives (store v9 dropped AUTOINCREMENT, whose counter row cost a page per write), so a running engine
    /// never meets a seq twice. Only this function adds to the outbox. The seq is not read back with
    /// `RETURNING`: that clause made SQLite open and close an ephemeral table for every insert, a quarter of
    /// this function's time in a bulk import (perf, 2026-11-30).
    func queue(_ change: Change, recordText: String) throws -> SQLValue {
        let seq = store.nextOutboxSeq
        try db.run("""
            INSERT INTO outbox(seq, op_id, collection, record_id, op, change, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [.int(seq), .text(change.opId), .text(change.collection.rawValue), .text(change.id),
             .text(change.op.rawValue), .text(change.json(recordText: recordText).text), .text(Timestamp.now())])
        store.nextOutboxSeq = seq + 1
        outboxDelta.queued += 1
        return .int(seq)
    }

    /// The stored version of a record, nil when there is none. Ids are made in time order (UUID v7), so a
    /// pulled page mostly brings ids past every stored one in their collection: such an id is absent
    /// without a look-up. The look-ups it saves grew faster than the store (1.6 µs each at 120 k records,
    /// 2.6 µs at 480 k: 0.2 s of a 1× pull's writer, 1.3 s at 4×). SQLite compares ids as bytes, as here.
    /// Only a pull (`pulled`) takes the shortcut: a local write is one record per transaction, where the
    /// greatest id's own look-up costs what it saves.
    func storedVersion(_ collection: RecordCollection, id: String, pulled: Bool) throws -> RecordVersion? {
        if pulled {
            let greatest: String
            if let known = greatestId[collection] {
                greatest = known
            } else {
                greatest = try db.scalar("SELECT max(id) FROM records WHERE collection = ?", [.text(collection.rawValue)]).string ?? ""
                greatestId[collection] = greatest
            }
            if greatest.utf8.lexicographicallyPrecedes(id.utf8) { return nil }
        }
        return try db.query(
            "SELECT updated_at, device_id FROM records WHERE collection = ? AND id = ?",
            [.text(collection.rawValue), .text(id)]
        ).first.map { RecordVersion(updatedAt: $0[0].string ?? "", deviceId: $0[1].string ?? "") }
    }

    // MARK: Outbox

    public func outbox(limit: Int = 1000) throws -> [OutboxEntry] {
        try db.query("""
            SELECT seq, op_id, collection, record_id, op, attempts, last_error, state, change
            FROM outbox ORDER BY seq LIMIT ?
            """, [.int(Int64(limit))]
        ).map {
            OutboxEntry(seq: $0[0].int ?? 0, opId: $0[1].string ?? "", collection: $0[2].string ?? "",
                        recordId: $0[3].string ?? "", op: $0[4].string ?? "", attempts: Int($0[5].int ?? 0),
                        lastError: $0[6].string, state: $0[7].string ?? "", change: $0[8].string ?? "")
        }
    }

    /// Counted in the database (a scan of the outbox): what `Store.outboxCounts` keeps without scanning.
    public func outboxCounts() throws -> (queued: Int, failed: Int) {
        let c = try Store.countOutbox(db)
        return (c.queued, c.failed)
    }

    // MARK: Meta

    public func meta(_ key: String) throws -> String? {
        try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(key)]).string
    }

    public func setMeta(_ key: String, _ value: String) throws {
        try db.run("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                   [.text(key), .text(value)])
    }
}

extension StoreSession {
    /// The outbox counted afresh (a check of the counts the store keeps).
    public func countOutbox() throws -> OutboxCounts { try Store.countOutbox(db) }

    /// `PRAGMA quick_check`: "ok", or the first problem found.
    public func quickCheck() throws -> String {
        try db.query("PRAGMA quick_check").first?[0].string ?? "no answer"
    }
}

extension StoreSession {
    /// Every record of every collection in (collection, id) order, a page at a time, as stored (canonical
    /// text), with the device of its version: what a backup holds.
    public func allRecords(after: (String, String)?, limit: Int) throws
        -> (items: [(collection: String, deviceId: String, body: String)], next: (String, String)?)
    {
        var sql = "SELECT collection, id, device_id, body FROM records"
        var args: [SQLValue] = []
        if let (c, id) = after {
            sql += " WHERE (collection > ? OR (collection = ? AND id > ?))"
            args += [.text(c), .text(c), .text(id)]
        }
        sql += " ORDER BY collection, id LIMIT ?"
        args.append(.int(Int64(limit + 1)))
        let rows = try db.query(sql, args)
        let items = rows.prefix(limit).map { (collection: $0[0].string ?? "", deviceId: $0[2].string ?? "", body: $0[3].string ?? "{}") }
        var next: (String, String)?
        if rows.count > limit, let last = rows.prefix(limit).last { next = (last[0].string ?? "", last[1].string ?? "") }
        return (items, next)
    }

    public func recordCount() throws -> Int { Int(try db.scalar("SELECT count(*) FROM records").int ?? 0) }
}
