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
    /// The most rows a catch-up chunk derives and adds to FTS per transaction: a write that arrives meanwhile
    /// waits for one chunk, not for the whole backlog of a large pull.
    public static let searchCatchUpChunk: Int64 = 50_000
    /// How long one chunk's transaction should take: a write that arrives meanwhile waits for it (issue #57:
    /// a `note.add` p99 under 100 ms while the index catches up). The chunk's size follows the last chunk's
    /// time, between `searchCatchUpChunk` rows (a fast machine) and a twentieth of it; a fixed 50,000 rows took
    /// 0.15 s in a fast phase and twice that in a slow one.
    ///
    /// 30 ms, not the 40 ms that first seemed enough: a chunk's time varies by half either way from the last
    /// one's (the pages it reads, FTS5's merges), and the chunks at 40 ms reached 76 ms.
    static let searchChunkTarget: Duration = .milliseconds(30)
    static let searchChunkFloor: Int64 = searchCatchUpChunk / 20
    /// A chunk grows to at most twice the last one: the first chunks after a pull read pages no cache holds yet
    /// and take longer per row than the later ones, and one fast chunk is no proof of the next.
    static let searchChunkGrowth = 2.0

    /// On `queue`: one chunk of the catch-up, sized by the last one's time. Returns whether rows still wait.
    func catchUpSearchChunkOnQueue() throws -> Bool {
        guard db != nil else { throw StoreError.closed }
        let rows = searchChunkRows
        let clock = ContinuousClock()
        let started = clock.now
        let done = try catchUpSearchOnQueue(rows: rows, derive: true)
        // The chunk's job pays for the checkpoint its frames make due, not the next small write.
        db?.checkpointIfPastSmallCommits(afterLargeCommit: true)
        let took = clock.now - started
        logger.debug("search index chunk", metadata: ["rows": "\(rows)", "done": "\(done)", "took": "\(took)"])
        // The next chunk follows the rate of this one, by the rows it did: a chunk that ran out of a
        // collection's records did fewer than it was given, and its short time says nothing of a full one.
        if searchBacklog.isBehind, took > .zero {
            let scaled = Double(max(1, min(done, rows))) * min(Self.searchChunkGrowth, Self.searchChunkTarget / took)
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

    /// On `queue`: a background catch-up after `delay` (`enqueueSearchChunk`).
    func scheduleSearchCatchUp(after delay: DispatchTimeInterval) {
        guard searchBacklog.isBehind, !searchCatchUpScheduled else { return }
        searchCatchUpScheduled = true
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            self.searchCatchUpScheduled = false
            self.enqueueSearchChunk()
        }
    }

    /// On `queue`: queues the catch-up's next chunk, a job of its own, and the chunk the next when rows still
    /// wait, until nothing does; writes queued meanwhile run between the chunks. Searches that wait
    /// (`catchUpSearch`) are resumed when the chain ends.
    ///
    /// One chain at a time, for the background catch-up and every waiting search alike. A search used to run
    /// chunks of its own beside the background's, and a write then waited for two chunks, not one (1× bench:
    /// 18 note.adds in the first search's 1.95 s, p99 341 ms).
    func enqueueSearchChunk(continuing: Bool = false) {
        guard !searchChunkQueued else { return }
        guard searchBacklog.isBehind else { return resumeSearchWaiters(.success(())) }
        // A hold (a pull) stops the background catch-up, not a search's.
        guard !searchHeld || !searchWaiters.isEmpty else { return }
        // A new chain starts at the least: its first chunks read pages no cache holds (after a pull, 10,000
        // rows took 160 ms, the same later 50 ms), whatever the last chain grew to.
        if !continuing { searchChunkRows = Self.searchChunkFloor }
        searchChunkQueued = true
        queue.async { [weak self] in
            guard let self else { return }
            self.searchChunkQueued = false
            do {
                if try self.catchUpSearchChunkOnQueue() {
                    self.enqueueSearchChunk(continuing: true)
                } else {
                    self.resumeSearchWaiters(.success(()))
                }
            } catch {
                // The rows are safe in search_docs; the next write or search tries again.
                self.logger.warning("search index catch-up failed", metadata: ["error": "\(error)"])
                self.resumeSearchWaiters(.failure(error))
            }
        }
    }

    private func resumeSearchWaiters(_ result: Result<Void, any Error>) {
        let waiters = searchWaiters
        searchWaiters.removeAll()
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// On `queue`, in a transaction of its own: about `rows` rows derived for waiting records (if `derive`),
    /// then up to `rows` committed rows into FTS. Returns the larger of the two counts (the chunk's work).
    @discardableResult
    func catchUpSearchOnQueue(rows: Int64, derive: Bool) throws -> Int64 {
        guard let db, searchBacklog.isBehind else { return 0 }
        var keysLeft = searchBacklog.recordsPending
        var made = 0
        let before = searchBacklog.indexedThrough
        let through = try db.transaction { () throws -> Int64? in
            if searchBacklog.recordsPending, derive {
                (keysLeft, made) = try searchBacklog.derivePending(db, rows: rows)
            }
            return try searchBacklog.flush(db, limit: rows)
        }
        searchBacklog.derived(keysLeft: keysLeft)
        if let through { searchBacklog.flushed(through: through) }
        searchBehind.withLock { $0 = searchBacklog.isBehind }
        return max(Int64(made), (through ?? before) - before)
    }

    /// Brings FTS up to every committed write (a search calls this first, so it finds what was just
    /// written). Costs nothing when nothing waits.
    ///
    /// The search joins the catch-up's one chain of chunks (`enqueueSearchChunk`): writes queued meanwhile
    /// commit between the chunks, so a first search after a large pull no longer holds every write for the
    /// whole backlog (22 s at 16×).
    public func catchUpSearch() async throws {
        guard searchBehind.withLock({ $0 }) else { return }
        if runsInline { return try catchUpSearchSync() }
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Void, any Error>) in
            queue.async {
                guard self.db != nil else { return cont.resume(throwing: StoreError.closed) }
                guard self.searchBacklog.isBehind else { return cont.resume() }
                self.searchWaiters.append(cont)
                self.enqueueSearchChunk()
            }
        }
    }

    /// Checkpoints the WAL if large commits left it long (`CheckpointPolicy` leaves their checkpoint until the
    /// WAL reaches `anyCommitsAt`). A pull calls this after its last page, so that its checkpoint is the
    /// pull's own work and not the first search-index chunk's after it, which a `note.add` then waited for
    /// (1×: the first chunk took 124 ms, the next of the same size 14 ms).
    public func checkpointAfterLargeWrites() async {
        if runsInline { return queue.sync { db?.checkpointIfPastSmallCommits(afterLargeCommit: false) } }
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            queue.async {
                self.db?.checkpointIfPastSmallCommits(afterLargeCommit: false)
                cont.resume()
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
