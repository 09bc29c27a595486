import Dispatch
import Logging
import Synchronization
import TNotesCore
import TNotesSQLite

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's SQLite store. Writes go through one connection confined to one serial queue (group commit,
/// see `write`); reads use a small pool of read-only connections on threads of their own (`ReaderPool`).
/// Blocking I/O (SQLite steps, fsync) never occupies a NIO event loop or Swift's cooperative threads.
///
/// Unchecked because: `db` and `clock` are touched only on `queue` (every access is inside
/// `queue.sync`/`queue.async` or `drainWrites`, which runs there); everything else is immutable or behind a
/// Mutex (`pending`, `counts`, `observers`) or is itself Sendable (`readers`).
public final class Store: @unchecked Sendable {
    public let path: String
    public let deviceId: String
    public let schemaVersion: Int
    public let migratedFrom: Int
    public let backupPath: String?
    /// Whether the open read the whole file with `PRAGMA quick_check` (see `CleanCloseStamp`).
    public let quickChecked: Bool

    /// Internal (not private) for the extensions in this module that run on it (`Store+SearchCatchUp`). One of
    /// the two ways blocking work leaves the loops (TNotesLifecycle's BlockingWork.swift says which and why).
    let queue = DispatchQueue(label: "tnotes.store")
    var db: SQLiteConnection?
    /// The read-only connections `read` uses.
    private let readers: ReaderPool
    private var clock: HybridLogicalClock
    /// The `search_docs` rows FTS has yet to hear of (see `SearchBacklog`); on `queue` only.
    var searchBacklog: SearchBacklog
    /// A catch-up of the search index is due on `queue` (see `scheduleSearchCatchUp`).
    var searchCatchUpScheduled = false
    /// A catch-up chunk's job is on `queue` (`enqueueSearchChunk`); on `queue` only.
    var searchChunkQueued = false
    /// Searches waiting for the catch-up's chain to end (`catchUpSearch`); on `queue` only.
    var searchWaiters: [CheckedContinuation<Void, any Error>] = []
    /// Rows the next catch-up chunk adds (`catchUpSearchChunkOnQueue` sizes it); on `queue` only.
    /// It starts at the least (the first chunk after a pull reads cold pages: 10,000 rows took 160 ms at 1×),
    /// and grows on a machine fast enough (a chunk under `searchChunkTarget`).
    var searchChunkRows: Int64 = Store.searchChunkFloor
    /// The seq the next outbox entry takes (see `StoreSession.queue`): set at open past the table's greatest;
    /// used on `queue` only.
    var nextOutboxSeq: Int64 = 1
    /// Whether committed search rows wait for FTS: read by searches (any thread) before they query.
    let searchBehind = Mutex(false)
    /// How many `holdSearchIndex` holds are on (see there); any thread.
    let searchHolds = Mutex(0)
    let logger: Logger
    /// Behind a lock, not on `queue`: a daemon adds its observers while it starts, and a `queue.sync` then
    /// waited for the queue's first work (the WAL's reservation, `reserveWAL`).
    let observers = Mutex<[@Sendable ([RecordChange]) -> Void]>([])
    /// Writes waiting for the queue (see `write`).
    let pending = Mutex(PendingWrites())
    /// How long a write may be held for a write run (`openWriteRun`), in nanoseconds.
    let writeRunLimitNanos = Atomic<Int64>(100_000_000)
    /// The outbox's queued and failed entries: counted once at open, then kept by every committed write
    /// (`sync.status` and `daemon.status` ask often; a count(*) is a scan of the whole outbox, which
    /// took ~100 ms per call with 2 million queued changes).
    let counts: Mutex<OutboxCounts>

    struct PendingWrites {
        var jobs: [WriteJob] = []
        var drainScheduled = false
        /// Write runs open (`openWriteRun`): while any is, the queue waits for more writes before a group.
        var runsOpen = 0
        /// When the oldest write held for a run was queued (nil: none held). No write is held longer than
        /// `writeRunLimit`, whatever runs open meanwhile.
        var heldSince: UInt64?
        /// The store is closing: nothing is held.
        var closing = false
    }

    /// Whether `read` and `write` run on the caller's thread (see `init`).
    let runsInline: Bool

    /// Opens (creating or migrating) the database at `path`. See `DatabaseFile.open` for the guarantees.
    ///
    /// `inline`: `read` and `write` run on the calling thread, one at a time, with no group commit and no
    /// thread hop. Only for a single-threaded driver that must not hop threads per call (the RPC fuzz
    /// target runs a million calls a minute); the daemon never sets it, since it would block its caller.
    public init(path: String, backupDirectory: String, logger: Logger, readers readerCount: Int = 4, inline: Bool = false,
                willMigrate: (_ from: Int, _ to: Int) -> Void = { _, _ in }) throws(DatabaseOpenError) {
        self.runsInline = inline
        let opened = try DatabaseFile.open(path: path, backupDirectory: backupDirectory, willMigrate: willMigrate)
        self.path = path
        self.logger = logger
        self.schemaVersion = opened.schemaVersion
        self.migratedFrom = opened.migratedFrom
        self.backupPath = opened.backupPath
        self.quickChecked = opened.quickChecked
        let db = opened.connection
        do {
            // The device id is made once and kept for the life of the database.
            let id: String
            if let existing = try db.scalar("SELECT value FROM meta WHERE key = 'deviceId'").string {
                id = existing
            } else {
                id = Identifier.make()
                try db.run("INSERT INTO meta(key, value) VALUES ('deviceId', ?)", [.text(id)])
            }
            self.deviceId = id
            // The clock resumes from the greater of its persisted value and every stored version, so that
            // it never goes backwards across restarts, even if the meta row were lost.
            let persisted = try db.scalar("SELECT value FROM meta WHERE key = 'hlc'").string.flatMap { Int64($0) } ?? 0
            // The scan of every record is skipped when the file is exactly as a clean close left it: that
            // close recorded the clock it ended with (it is at least every stored version).
            let newest: Int64
            if let stamped = opened.cleanCloseFacts?["hlc"].flatMap({ Int64($0) }) {
                newest = stamped
            } else {
                newest = try db.scalar("SELECT max(updated_at) FROM records").string.flatMap { Timestamp.parse($0) } ?? 0
            }
            self.clock = HybridLogicalClock(lastMillis: max(persisted, newest))
        } catch {
            throw .io(path: path, detail: "cannot read meta: \(error)")
        }
        do {
            // Rows left above the watermark (by a crash, or a stop after a large pull) and records left waiting
            // for their rows go into the index in a background catch-up after open (`init`'s end): the start
            // does not wait for them, and a search waits for them first.
            searchBacklog = try SearchBacklog.load(db)
        } catch {
            throw .io(path: path, detail: "cannot read the search index's state: \(error)")
        }
        if let facts = opened.cleanCloseFacts, let q = facts["queued"].flatMap({ Int($0) }), let f = facts["failed"].flatMap({ Int($0) }) {
            // As the last clean close counted them (the file has not changed since).
            counts = Mutex(OutboxCounts(queued: q, failed: f))
        } else {
            do {
                counts = Mutex(try Self.countOutbox(db))
            } catch {
                throw .io(path: path, detail: "cannot count the outbox: \(error)")
            }
        }
        do {
            // Past every entry in the outbox (see `StoreSession.queue`): its rowid's greatest, one B-tree step.
            nextOutboxSeq = (try db.scalar("SELECT max(seq) FROM outbox").int ?? 0) + 1
        } catch {
            throw .io(path: path, detail: "cannot read the outbox: \(error)")
        }
        do {
            // The scripture reference index is derived by a Swift parser; a store last written by another
            // parser version (or just migrated to v6) is refilled once, here.
            if try !ReferenceIndex.isCurrent(db) {
                let count = try db.transaction { try ReferenceIndex.rebuild(db) }
                if count > 0 { logger.info("scripture references indexed", metadata: ["records": "\(count)"]) }
            }
        } catch {
            throw .io(path: path, detail: "cannot index scripture references: \(error)")
        }
        self.db = db
        // Reads use connections of their own: WAL lets them run beside the writer and see every committed
        // write, and a read costs no trip through the write queue.
        do {
            readers = try ReaderPool(path: path, size: max(1, readerCount))
        } catch {
            throw .io(path: path, detail: "cannot open a reader connection: \(error)")
        }
        // The WAL's space is reserved as the queue's first work, after the start: writing it (5 MB and a sync)
        // at open made "start to accepting" 5-8 ms slower. On the queue nothing else writes the WAL meanwhile.
        // Inline, writes run on the caller's thread, so the reservation is made here, before any.
        if inline { reserveWAL() } else { queue.async { self.reserveWAL() } }
        if searchBacklog.isBehind {
            searchBehind.withLock { $0 = true }
            queue.async { self.scheduleSearchCatchUp(after: .milliseconds(0)) }
        }
    }

    /// On `queue` (or before it runs anything): zeros past the WAL's end, a quarter more than a small commits'
    /// checkpoint's worth (see `WALReserve`). Only speed depends on it: a store whose WAL cannot be reserved
    /// (a full disk) works, and says so.
    func reserveWAL() {
        guard let db else { return }
        do {
            _ = try db.scalar("SELECT count(*) FROM sqlite_schema")  // opens (creates) the WAL file
            let pageSize = Int(try db.scalar("PRAGMA page_size").int ?? 4096)
            try WALReserve.extend(walPath: path + "-wal",
                                  to: WALReserve.bytes(frames: DatabaseFile.walCheckpointPages * 5 / 4, pageSize: pageSize))
        } catch {
            logger.warning("WAL space not reserved; writes will be slower", metadata: ["error": "\(error)"])
        }
    }

    static func countOutbox(_ db: SQLiteConnection) throws -> OutboxCounts {
        var c = OutboxCounts()
        for r in try db.query("SELECT state, count(*) FROM outbox GROUP BY state") {
            if r[0].string == "failed" { c.failed = Int(r[1].int ?? 0) } else { c.queued += Int(r[1].int ?? 0) }
        }
        return c
    }

    /// Queued and failed outbox entries as of the last commit.
    public var outboxCounts: OutboxCounts { counts.withLock { $0 } }

    /// Called after each committed write with what it changed (on the store queue; keep it quick).
    public func addObserver(_ observer: @escaping @Sendable ([RecordChange]) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Runs `body` as one read transaction (a consistent snapshot of everything committed) on a reader
    /// connection, on a thread of the reader pool. The body must only read; the connection is read-only.
    public func read<T: Sendable>(_ body: @escaping @Sendable (StoreSession) throws -> T) async throws -> T {
        if runsInline { return try readSync(body) }
        return try await readers.read { conn in try body(StoreSession(db: conn, store: self)) }
    }

    /// A read that goes through the write queue: proves the queue is alive (the systemd watchdog).
    public func readOnQueue<T: Sendable>(_ body: @escaping @Sendable (StoreSession) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, Error>) in
            queue.async {
                guard let db = self.db else { return cont.resume(throwing: StoreError.closed) }
                let session = StoreSession(db: db, store: self)
                cont.resume(with: Result { try body(session) })
            }
        }
    }

    /// Why the clock is not written with every write: each commit would dirty the meta page for it (one WAL
    /// page of a note.add's few). Every stamp the clock hands out that matters is stored with its record, so
    /// an open after a crash finds the clock's last value as the newest stored version (`init` scans for
    /// it); a clean close writes it here and in its stamp.
    private func persistClock(_ db: SQLiteConnection) throws {
        try db.run("INSERT INTO meta(key, value) VALUES ('hlc', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                   [.text(String(clock.lastMillis))])
    }

    /// The synchronous form of `write`, for tools and tests that are not async.
    public func writeSync<T>(_ body: (StoreSession) throws -> T) throws -> T {
        try queue.sync { try writeNow(body) }
    }

    public func readSync<T>(_ body: (StoreSession) throws -> T) throws -> T {
        try queue.sync {
            guard let db = self.db else { throw StoreError.closed }
            return try body(StoreSession(db: db, store: self))
        }
    }

    func writeNow<T>(_ body: (StoreSession) throws -> T) throws -> T {
        guard let db = self.db else { throw StoreError.closed }
        let session = StoreSession(db: db, store: self)
        var flushedThrough: Int64?
        let result: T = try db.transaction {
            let r = try body(session)
            flushedThrough = try flushSearchIfLarge(db)
            return r
        }
        counts.withLock { $0 += session.outboxDelta }
        searchCommitted(flushedThrough: flushedThrough)
        if !session.changes.isEmpty {
            for o in observers.withLock({ $0 }) { o(session.changes) }
        }
        return result
    }

    // Called from StoreSession on the queue.
    func tick() -> String { Timestamp.format(millis: clock.tick()) }
    func receive(_ updatedAt: String) { clock.receive(updatedAt) }

    /// Checkpoints the WAL and closes the connection; later calls fail with `StoreError.closed`.
    public func close() {
        readers.close()
        // Writes a run still holds commit before the close, as any queued write does.
        let release: Bool = pending.withLock { p in
            p.closing = true
            if p.drainScheduled || p.jobs.isEmpty { return false }
            p.drainScheduled = true
            return true
        }
        if release { queue.async { self.drainWrites() } }
        let (clean, hlc): (Bool, Int64) = queue.sync {
            guard let db else { return (false, 0) }
            // Up to one chunk of what waits for FTS goes in now, and the clock is kept. No more: after a large
            // pull the rest could outlast the service manager's stop timeout (30 s); the next open catches up
            // in the background, and a search waits for it.
            do { try catchUpSearchOnQueue(rows: Self.searchCatchUpChunk, derive: false) } catch {
                logger.warning("search index catch-up at close failed", metadata: ["error": "\(error)"])
            }
            try? db.transaction { try persistClock(db) }
            // (busy, log frames, checkpointed frames): busy = 0 means every frame is in the file now.
            let row = try? db.query("PRAGMA wal_checkpoint(TRUNCATE)").first
            self.db = nil
            return (row?[0].int == 0, clock.lastMillis)
        }
        // The connection is closed by now (the queue held the last reference); stamp the file as clean.
        if clean {
            let c = counts.withLock { $0 }
            CleanCloseStamp.write(dbPath: path, facts: ["queued": String(c.queued), "failed": String(c.failed), "hlc": String(hlc)])
        }
    }
}

public enum StoreError: Error, CustomStringConvertible, Equatable {
    case closed
    case notFound(collection: String, id: String)
    case gone(collection: String, id: String)
    case invalid(FieldError)
    case corruptRow(String)

    public var description: String {
        switch self {
        case .closed: return "the store is closed"
        case .notFound(let c, let id): return "no \(c) record with id \(id)"
        case .gone(let c, let id): return "\(c) record \(id) is deleted"
        case .invalid(let e): return "\(e.field): \(e.reason)"
        case .corruptRow(let s): return "corrupt row: \(s)"
        }
    }
}

/// Queued and failed outbox entries (or a change to them).
public struct OutboxCounts: Sendable, Equatable {
    public var queued = 0
    public var failed = 0

    public init(queued: Int = 0, failed: Int = 0) {
        self.queued = queued
        self.failed = failed
    }

    static func += (a: inout OutboxCounts, b: OutboxCounts) {
        a.queued += b.queued
        a.failed += b.failed
    }
}
