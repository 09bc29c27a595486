import TNotesSQLite

/// Which `search_docs` rows FTS has yet to hear of: every row with `doc > indexedThrough` (the watermark,
/// kept as the `search_index` row of `derived_state`, whose `version` says how far that index is filled, and
/// moved only by `flush`). Owned by the store and touched only on its queue.
///
/// Why the index trails the rows: FTS5 writes a new segment, its structure record, its averages and a
/// docsize row for every transaction that adds to it. For a single `note.add` that was 6 of the commit's 15
/// WAL pages, and the FTS work was a quarter of the write's CPU. Small writes therefore leave their rows
/// above the watermark and a catch-up shortly after (or a search, which catches up first) adds them all
/// in one statement; a large write (a pulled page, an import batch) still adds its rows in its own
/// transaction, where one FTS segment covers thousands of rows anyway.
///
/// Crash safety: the rows themselves commit with their records, and the watermark only moves in the
/// transaction that put the rows below it into FTS. A store opened after a crash (or a stop that left rows
/// waiting) finds the rows above the watermark and adds them in a catch-up right after open. Rowids come
/// from `allocate`, never below the watermark, so a reused rowid can never hide a new row below it.
struct SearchBacklog {
    private(set) var indexedThrough: Int64
    private var nextDoc: Int64
    /// Rows added since the last flush (rows of a write that rolled back included: they only make the next
    /// flush come a little earlier).
    private(set) var added = 0
    /// Whether `search_pending` may hold records whose rows are yet to be derived (`deferRecord`). True is
    /// always safe (a write that rolled back may leave it set): it only costs a probe of the table.
    ///
    /// Why a pull's new records may wait for their rows too: writing 310 k search_docs rows for the 120 k
    /// records of a 1× pull was a third of the pulling device's CPU (4.95 → 3.3 s without them) and a quarter
    /// of the pull's time, on the one writer thread that paces it. Their keys go to `search_pending` instead;
    /// `derivePending` makes the rows from the stored records afterwards, a chunk per transaction.
    var recordsPending = false

    /// Rows one waiting record of a collection made when last derived (`derivePending`), so that a chunk derives
    /// about as many rows as it is given, whatever the records: a note makes one row, a transcript one per
    /// segment (20 in the bench's data, hundreds for an hour's sermon). With a count of records instead, the
    /// chunks sized for notes took 5,976 transcripts at once when the pull's keys reached them (275 ms), and
    /// the smallest chunk of transcripts still took 65-80 ms: a `note.add` waited for each.
    private var rowsPerRecord: [String: Double] = [:]
    /// The keys a collection's last chunk took: the next takes at most twice as many, so that a chunk of short
    /// records (a few empty transcripts) cannot make the next chunk take thousands of long ones at once.
    private var lastTake: [String: Int64] = [:]
    /// What a collection's records are taken to make before one of its chunks is measured: cautious for
    /// transcripts, whose first chunk is then small.
    private static func expectedRows(_ collection: String) -> Double {
        collection == "transcripts" ? 200 : 1
    }

    static let stateName = "search_index"

    /// Reads the watermark. A store without one (made before the index could trail) has every row in FTS:
    /// its watermark is its highest row, written at once so that rows added later stay above it.
    static func load(_ db: SQLiteConnection) throws -> SearchBacklog {
        let highest = try db.scalar("SELECT max(doc) FROM search_docs").int ?? 0
        let watermark: Int64
        if let stored = try db.scalar("SELECT version FROM derived_state WHERE name = ?", [.text(stateName)]).int {
            watermark = stored
        } else {
            watermark = highest
            try db.run("INSERT INTO derived_state(name, version) VALUES (?, ?)", [.text(stateName), .int(highest)])
        }
        var backlog = SearchBacklog(indexedThrough: watermark, nextDoc: max(watermark, highest) + 1)
        backlog.recordsPending = try db.scalar("SELECT EXISTS(SELECT 1 FROM search_pending)").int == 1
        return backlog
    }

    /// The waiting keys one `derivePending` takes, of one collection (bound as `?c`) and at most `?n` of them:
    /// the same statement picks the keys to derive and the keys to remove, so the two always agree.
    private static func pendingChunk(limit n: Int, collection c: Int) -> String {
        "SELECT collection, record_id FROM search_pending WHERE collection = ?\(c) ORDER BY record_id LIMIT ?\(n)"
    }

    /// A new record whose rows wait to be derived (inside the record's transaction).
    mutating func deferRecord(_ db: SQLiteConnection, collection: String, id: String) throws {
        try db.run("INSERT OR IGNORE INTO search_pending(collection, record_id) VALUES (?, ?)", [.text(collection), .text(id)])
        recordsPending = true
    }

    /// A record being written again gets its rows now: its key, if it waited, goes.
    func undefer(_ db: SQLiteConnection, collection: String, id: String) throws {
        guard recordsPending else { return }
        try db.run("DELETE FROM search_pending WHERE collection = ? AND record_id = ?", [.text(collection), .text(id)])
    }

    /// Derives about `rows` rows (at least one record's) from waiting records of one collection, as stored,
    /// under the rowids `allocate` would give (`nextDoc` on), and removes their keys, inside the caller's
    /// transaction. The SQL is `search_source`'s, one branch per kind, driven by the waiting keys (a probe per
    /// key, not a scan of the view); a test holds the rows equal to the view and to what
    /// `SearchIndex.documents` writes. Returns whether keys are left, and the rows made.
    mutating func derivePending(_ db: SQLiteConnection, rows: Int64) throws -> (keysLeft: Bool, made: Int) {
        guard recordsPending else { return (false, 0) }
        guard let collection = try db.scalar("SELECT collection FROM search_pending ORDER BY collection, record_id LIMIT 1").string else {
            return (false, 0)
        }
        let perRecord = rowsPerRecord[collection] ?? Self.expectedRows(collection)
        let wanted = (Double(max(1, rows)) / perRecord).rounded(.down)
        var take = Int64(min(max(1, wanted), 1e9))
        if let last = lastTake[collection] { take = min(take, 2 * last) }
        lastTake[collection] = take
        // The rows take the rowids from `nextDoc` on, as `allocate` would give them, by leaving them to SQLite:
        // a row inserted without one gets the table's largest rowid plus one. So the largest must be
        // `nextDoc - 1` first; when it is lower (the top rows were deleted, or a write that took rowids rolled
        // back), a placeholder row holds that rowid for the insert and goes after it, in this transaction
        // (no trigger: FTS never hears of it). Numbering the rows in the statement instead
        // (`row_number() OVER ()`) made SQLite collect all of them before the first insert: a quarter of this
        // statement's time, 3.6 s against 2.6 s for the 310 k rows of a 1× pull's 120 k records (measured on a
        // copy of the pulled store, in the product's chunks).
        let top = try db.scalar("SELECT max(doc) FROM search_docs").int ?? 0
        nextDoc = max(nextDoc, top + 1)  // already so (`load`, `allocate`); kept so that no rowid could repeat
        let base = nextDoc - 1
        let placeholder = top < base
        if placeholder {
            try db.run("""
                INSERT INTO search_docs(doc, collection, record_id, sermon_id, kind, start, body)
                VALUES (?, '', '', '', '', NULL, '')
                """, [.int(base)])
        }
        try db.run("""
            WITH chunk AS MATERIALIZED (\(Self.pendingChunk(limit: 1, collection: 2))),
            rows(collection, record_id, sermon_id, kind, start, body) AS (
                SELECT r.collection, r.id, r.id, 'sermon', NULL,
                       json_extract(r.body, '$.title') || ' ' || coalesce(json_extract(r.body, '$.speaker'), '')
                  FROM chunk AS p CROSS JOIN records AS r ON r.collection = p.collection AND r.id = p.record_id
                 WHERE p.collection = 'sermons' AND r.deleted_at IS NULL
                UNION ALL
                SELECT r.collection, r.id, coalesce(r.sermon_id, ''), 'note', json_extract(r.body, '$.timestamp'),
                       json_extract(r.body, '$.text')
                  FROM chunk AS p CROSS JOIN records AS r ON r.collection = p.collection AND r.id = p.record_id
                 WHERE p.collection = 'notes' AND r.deleted_at IS NULL
                UNION ALL
                SELECT r.collection, r.id, coalesce(r.sermon_id, ''), 'transcript', json_extract(seg.value, '$.start'),
                       json_extract(seg.value, '$.text')
                  FROM chunk AS p CROSS JOIN records AS r ON r.collection = p.collection AND r.id = p.record_id,
                       json_each(r.body, '$.segments') AS seg
                 WHERE p.collection = 'transcripts' AND r.deleted_at IS NULL
                UNION ALL
                SELECT r.collection, r.id, coalesce(r.sermon_id, ''), 'transcript', NULL, json_extract(r.body, '$.text')
                  FROM chunk AS p CROSS JOIN records AS r ON r.collection = p.collection AND r.id = p.record_id
                 WHERE p.collection = 'transcripts' AND r.deleted_at IS NULL AND json_array_length(r.body, '$.segments') = 0
                UNION ALL
                SELECT r.collection, r.id, coalesce(r.sermon_id, ''), 'summary', NULL,
                       json_extract(r.body, '$.title') || char(10) || json_extract(r.body, '$.text')
                  FROM chunk AS p CROSS JOIN records AS r ON r.collection = p.collection AND r.id = p.record_id
                 WHERE p.collection = 'summaries' AND r.deleted_at IS NULL)
            INSERT INTO search_docs(doc, collection, record_id, sermon_id, kind, start, body)
            SELECT NULL, collection, record_id, sermon_id, kind, start, body
              FROM rows WHERE typeof(body) = 'text'
            """, [.int(take), .text(collection)])
        let made = db.changes
        if placeholder { try db.run("DELETE FROM search_docs WHERE doc = ?", [.int(base)]) }
        nextDoc += Int64(made)
        added += made
        try db.run("DELETE FROM search_pending WHERE (collection, record_id) IN (\(Self.pendingChunk(limit: 1, collection: 2)))",
                   [.int(take), .text(collection)])
        // A record costs at least its probe, whatever it made (a deleted one makes none).
        let taken = db.changes
        if taken > 0 { rowsPerRecord[collection] = max(1, Double(made) / Double(taken)) }
        // `recordsPending` stays set until the caller's transaction has committed (`derived`).
        return (try db.scalar("SELECT EXISTS(SELECT 1 FROM search_pending)").int == 1, made)
    }

    /// After the transaction that ran `derivePending` committed.
    mutating func derived(keysLeft: Bool) {
        recordsPending = keysLeft
    }

    /// Whether rows may wait above the watermark.
    var hasPending: Bool { nextDoc - 1 > indexedThrough }

    /// Whether anything waits: rows for FTS, or records for their rows.
    var isBehind: Bool { hasPending || recordsPending }

    func isPending(_ doc: Int64) -> Bool { doc > indexedThrough }

    /// The rowid for a new `search_docs` row.
    mutating func allocate() -> Int64 {
        defer { nextDoc += 1; added += 1 }
        return nextDoc
    }

    /// Adds every row above the watermark (or the oldest `limit` rowids of them) to FTS in one statement and
    /// moves the watermark past them, inside the caller's transaction. Returns the new watermark, for
    /// `flushed` once that transaction has committed.
    func flush(_ db: SQLiteConnection, limit: Int64? = nil) throws -> Int64? {
        guard hasPending else { return nil }
        let through = limit.map { min(nextDoc - 1, indexedThrough + max(1, $0)) } ?? nextDoc - 1
        try db.run("INSERT INTO search_index(rowid, body) SELECT doc, body FROM search_docs WHERE doc > ? AND doc <= ? ORDER BY doc",
                   [.int(indexedThrough), .int(through)])
        try db.run("UPDATE derived_state SET version = ? WHERE name = ?", [.int(through), .text(Self.stateName)])
        return through
    }

    /// After the transaction that ran `flush` committed.
    mutating func flushed(through: Int64) {
        indexedThrough = through
        added = 0
    }
}
