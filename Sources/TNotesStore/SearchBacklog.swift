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
/// transaction that put the rows below it into FTS. A store opened after a crash finds the rows above the
/// watermark and adds them (`Store.init`). Rowids come from `allocate`, never below the watermark, so a
/// reused rowid can never hide a new row below it.
struct SearchBacklog {
    private(set) var indexedThrough: Int64
    private var nextDoc: Int64
    /// Rows added since the last flush (rows of a write that rolled back included: they only make the next
    /// flush come a little earlier).
    private(set) var added = 0

    static let stateName = "search_index"

    /// Reads the watermark. A store without one (made before the index could trail) has every row in FTS:
    /// its watermark is its highest row, written at once so that rows added later stay above it.
    static func load(_ db: SQLiteConnection) throws -> SearchBacklog {
        let highest = try db.scalar("SELECT max(doc) FROM search_docs").int ?? 0
        if let stored = try db.scalar("SELECT version FROM derived_state WHERE name = ?", [.text(stateName)]).int {
            return SearchBacklog(indexedThrough: stored, nextDoc: max(stored, highest) + 1)
        }
        try db.run("INSERT INTO derived_state(name, version) VALUES (?, ?)", [.text(stateName), .int(highest)])
        return SearchBacklog(indexedThrough: highest, nextDoc: highest + 1)
    }

    /// Whether rows may wait above the watermark.
    var hasPending: Bool { nextDoc - 1 > indexedThrough }

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
