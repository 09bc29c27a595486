import Dispatch
import Logging
import Synchronization
import TNotesSQLite

/// When the search rows that wait above the watermark (`SearchBacklog`) go into FTS: in a large write's own
/// transaction, in a catch-up shortly after small writes, at once before a search, one chunk at close and
/// the rest in a catch-up after the next open. A pull of many pages holds the catch-up (`holdSearchIndex`)
/// and the index fills in chunks after its last page.
extension Store {
    /// A write that added at least this many search rows puts them into FTS in its own transaction: one
    /// segment for thousands of rows costs little more than the rows themselves (an import batch). Smaller
    /// writes leave theirs to the catch-up.
    static let inlineSearchFlushRows = 1000
    /// How long small writes' rows may wait for FTS when nothing searches (a search catches up at once).
    static let searchCatchUpDelay: DispatchTimeInterval = .milliseconds(200)
    /// Rows a background catch-up adds per transaction: a write that arrives meanwhile waits for one chunk
    /// (~0.15 s), not for the whole backlog of a large pull.
    public static let searchCatchUpChunk: Int64 = 50_000
    /// Waiting records (`search_pending`) a background catch-up derives rows for per transaction (a record
    /// makes 2.6 rows on average at the bench's mix, most of a chunk).
    public static let searchCatchUpChunkRecords: Int64 = 20_000
    /// How long one chunk's transaction should take: a write that arrives meanwhile waits for it (issue #57:
    /// a `note.add` p99 under 100 ms while the index catches up). The chunk's size follows the last chunk's
    /// time, between `searchCatchUpChunk` rows (a fast machine) and a twentieth of it; a fixed 50,000 rows took
    /// 0.15 s in a fast phase and twice that in a slow one.
    static let searchChunkTarget: Duration = .milliseconds(40)
    static let searchChunkFloor: Int64 = searchCatchUpChunk / 20

    /// Both bounds of the next chunk, as `catchUpSearchOnQueue` takes them (on `queue`).
    var searchCatchUpChunkLimit: (rows: Int64, records: Int64) {
        (searchChunkRows, max(1, searchChunkRows * Self.searchCatchUpChunkRecords / Self.searchCatchUpChunk))
    }

    /// On `queue`: one chunk of the catch-up, sized by the last one's time. Returns whether rows still wait.
    func catchUpSearchChunkOnQueue() throws -> Bool {
        guard db != nil else { throw StoreError.closed }
        let limit = searchCatchUpChunkLimit
        let clock = ContinuousClock()
        let started = clock.now
        try catchUpSearchOnQueue(limit: limit)
        // The chunk's job pays for the checkpoint its frames make due, not the next small write.
        db?.checkpointIfPastSmallCommits()
        let took = clock.now - started
        logger.debug("search index chunk", metadata: ["rows": "\(limit.rows)", "records": "\(limit.records)", "took": "\(took)"])
        // Only a full chunk says how long one takes (the last one of a backlog is smaller).
        if searchBacklog.isBehind, took > .zero {
            let scaled = Double(limit.rows) * (Self.searchChunkTarget / took)
            searchChunkRows = min(Self.searchCatchUpChunk, max(Self.searchChunkFloor, Int64(scaled.isFinite ? min(scaled, 1e12) : 1e12)))
        }
        return searchBacklog.isBehind
    }

    /// Holds the search index's catch-up until `release` is called: meanwhile no write adds its rows to FTS,
    /// however many, and no background catch-up runs; a search still catches up first, so it misses nothing.
    ///
    /// Why a pull holds it: FTS was a third of a pulled page's transaction (1× sync: 0.97 of the writer's
    /// 3.2 SQL seconds for 310 k rows in 60 pages), on the one writer thread that paces the pull. Held, the
    /// pull's records land first, readable and durable, and the index fills in chunks after the last page.
    public func holdSearchIndex() -> SearchIndexHold {
        searchHolds.withLock { $0 += 1 }
        return SearchIndexHold(store: self)
    }

    /// One hold (`holdSearchIndex`); released once, explicitly or when it goes away.
    public final class SearchIndexHold: Sendable {
        private let store: Store
        private let released = Mutex(false)

        init(store: Store) { self.store = store }

        public func release() {
            let first = released.withLock { (done: inout Bool) -> Bool in
                defer { done = true }
                return !done
            }
            guard first else { return }
            let now = store.searchHolds.withLock { $0 -= 1; return $0 }
            guard now == 0 else { return }
            let store = self.store
            store.queue.async { store.scheduleSearchCatchUp(after: .milliseconds(0)) }
        }

        deinit { release() }
    }

    var searchHeld: Bool { searchHolds.withLock { $0 > 0 } }

    func flushSearchIfLarge(_ db: SQLiteConnection) throws -> Int64? {
        guard searchBacklog.added >= Self.inlineSearchFlushRows, !searchHeld else { return nil }
        return try searchBacklog.flush(db)
    }

    /// After a commit (on `queue`): the watermark moves if that transaction flushed, and a catch-up is
    /// scheduled if rows still wait (unless held: the hold's release schedules it).
    func searchCommitted(flushedThrough: Int64?) {
        if let through = flushedThrough { searchBacklog.flushed(through: through) }
        let behind = searchBacklog.isBehind
        searchBehind.withLock { $0 = behind }
        guard behind, !searchHeld else { return }
        scheduleSearchCatchUp(after: Self.searchCatchUpDelay)
    }

    /// On `queue`: a background catch-up of one chunk after `delay`, then the next chunk at once, until
    /// nothing waits; writes queued meanwhile run between the chunks.
    func scheduleSearchCatchUp(after delay: DispatchTimeInterval) {
        guard searchBacklog.isBehind, !searchCatchUpScheduled else { return }
        searchCatchUpScheduled = true
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            self.searchCatchUpScheduled = false
            guard !self.searchHeld else { return }
            do {
                _ = try self.catchUpSearchChunkOnQueue()
                self.scheduleSearchCatchUp(after: .milliseconds(0))
            } catch {
                // The rows are safe in search_docs; the next write or search tries again.
                self.logger.warning("search index catch-up failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// On `queue`, in a transaction of its own: rows derived for up to `limit.records` waiting records (none
    /// when 0), then up to `limit.rows` committed rows into FTS.
    func catchUpSearchOnQueue(limit: (rows: Int64, records: Int64)) throws {
        guard let db, searchBacklog.isBehind else { return }
        var keysLeft = searchBacklog.recordsPending
        let through = try db.transaction { () throws -> Int64? in
            if searchBacklog.recordsPending, limit.records != 0 {
                keysLeft = try searchBacklog.derivePending(db, limit: limit.records)
            }
            return try searchBacklog.flush(db, limit: limit.rows)
        }
        searchBacklog.derived(keysLeft: keysLeft)
        if let through { searchBacklog.flushed(through: through) }
        searchBehind.withLock { $0 = searchBacklog.isBehind }
    }

    /// Brings FTS up to every committed write (a search calls this first, so it finds what was just
    /// written). Costs nothing when nothing waits.
    ///
    /// Each chunk is a job of its own on the queue: writes queued meanwhile commit between the chunks, so a
    /// first search after a large pull no longer holds every write for the whole backlog (22 s at 16×).
    public func catchUpSearch() async throws {
        guard searchBehind.withLock({ $0 }) else { return }
        if runsInline { return try catchUpSearchSync() }
        var behind = true
        while behind {
            behind = try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Bool, Error>) in
                queue.async { cont.resume(with: Result { try self.catchUpSearchChunkOnQueue() }) }
            }
        }
    }

    /// The synchronous form of `catchUpSearch`, for tools and tests that are not async.
    public func catchUpSearchSync() throws {
        try queue.sync { try catchUpSearchWhollyOnQueue() }
    }

    /// On `queue`: the whole backlog, in the background catch-up's chunks, a transaction each.
    ///
    /// Why chunks and not one transaction: with no limit, `derivePending` materializes every waiting record's
    /// key (a temp table, in memory by `temp_store=MEMORY`) and its `DELETE … IN` another copy of them. After
    /// a 16× pull that is 1.76 M keys, and a first search left the pulling daemon at ~200 MiB of RSS against
    /// ~100 MiB at 1×. A chunk's keys are 20,000.
    func catchUpSearchWhollyOnQueue() throws {
        while db != nil, searchBacklog.isBehind { _ = try catchUpSearchChunkOnQueue() }
    }

    /// Whether committed search rows still wait for FTS (tests, `daemon.status`).
    public var searchIndexBehind: Bool { searchBehind.withLock { $0 } }
}
