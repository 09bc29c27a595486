import Dispatch
import Synchronization
import TNotesCore
import TNotesSQLite

#if canImport(Glibc)
import Glibc
#endif

/// Group commit: how writes reach the store's queue, are committed together and answered.
extension Store {
    /// Runs `body` in one transaction on the store queue: everything it writes commits together or not at all.
    ///
    /// Group commit: writes that arrive while the queue is busy are committed together, each inside its own
    /// savepoint, so one fsync covers them all; a body that throws rolls back only its own savepoint. A
    /// write is answered only after the commit that holds it (an acknowledged write is durable).
    public func write<T: Sendable>(_ body: @escaping @Sendable (StoreSession) throws -> T) async throws -> T {
        if runsInline { return try writeSync(body) }
        return try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, Error>) in
            let box = ResultBox<T>()
            let job = WriteJob(run: { session in box.value = try body(session) },
                               finish: { error in
                                   if let error { cont.resume(throwing: error) } else { cont.resume(returning: box.value!) }
                               })
            let now = DispatchTime.now().uptimeNanoseconds
            let limit = writeRunLimitNanos.load(ordering: .relaxed)
            let (schedule, firstHeld): (Bool, Bool) = pending.withLock { p in
                p.jobs.append(job)
                if p.drainScheduled { return (false, false) }
                if p.holds(now: now, limit: limit) {
                    // The first write held: a drain when its time is up, whatever the runs do meanwhile.
                    if p.heldSince != nil { return (false, false) }
                    p.heldSince = now
                    return (false, true)
                }
                p.drainScheduled = true
                return (true, false)
            }
            if firstHeld { drainHeld(in: limit) }
            // Its place on the queue is fixed: a batch's next call may start (WriteQueuedSignal).
            WriteQueuedSignal.current?.fire()
            if schedule { queue.async { self.drainWrites() } }
        }
    }

    /// How long the queue's thread looks for the next write after a commit before it lets the queue go idle.
    ///
    /// Why: a write that finds the queue idle has the event loop wake a pool thread for it (a futex wake
    /// and, on an idle CPU, an inter-processor interrupt), and the woken thread's start took ~20 µs of a
    /// single client's ~270 µs `note.add`. A client writing again right after its answer comes back within
    /// ~80 µs; while the thread looks (yielding its CPU to anything else that wants it), the write is only
    /// appended to `pending`, with no wake at all. An idle daemon pays this once per burst of writes.
    static let nextWriteWait: Duration = .microseconds(200)

    /// On the queue: commits every pending write as one group, then looks for the next one for a moment
    /// (`nextWriteWait`). While it looks, `drainScheduled` stays set, so writers only append.
    func drainWrites() {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = writeRunLimitNanos.load(ordering: .relaxed)
        let (taken, armHold): ([WriteJob]?, Bool) = pending.withLock { p in
            // A run is still queueing: its close, or the held writes' time limit, schedules the drain (see
            // `openWriteRun`). Writes queued while a drain was on its way are held from now: their limit
            // starts here (whoever holds writes arms the timer that ends the hold).
            if p.holds(now: now, limit: limit) {
                p.drainScheduled = false
                if p.heldSince != nil || p.jobs.isEmpty { return (nil, false) }
                p.heldSince = now
                return (nil, true)
            }
            p.heldSince = nil
            defer { p.jobs.removeAll(keepingCapacity: true) }
            return (p.jobs, false)
        }
        if armHold { drainHeld(in: limit) }
        guard let jobs = taken else { return }
        if !jobs.isEmpty { commitGroup(jobs) }
        // Another drain is queued behind anything else waiting on the queue (a watchdog read, a search
        // catch-up), so those never wait longer than one group.
        let clock = ContinuousClock(), deadline = clock.now + Self.nextWriteWait
        repeat {
            if pending.withLock({ !$0.jobs.isEmpty }) { return queue.async { self.drainWrites() } }
            sched_yield()
        } while clock.now < deadline
        let idle: Bool = pending.withLock { p in
            if p.jobs.isEmpty { p.drainScheduled = false }
            return !p.drainScheduled
        }
        if !idle { queue.async { self.drainWrites() } }
    }

    /// Opens a run of writes about to be queued one after another (a JSON-RPC batch's consecutive writes):
    /// until it closes, the queue starts no group, so the run commits as one group instead of its first write
    /// alone and the rest in twos and threes as they come. Why: a group rewrites every page it touches, and a
    /// batch of 500 `note.add`s spread over many sermons touches one page of `records_by_sermon` per note;
    /// measured, the bench's bulk import wrote 963 MB for 25 MB of rows in 3.3 groups a batch (747 MB in one).
    ///
    /// Bounded for every write, not per run: none is held longer than `writeRunLimit` (100 ms) after it was
    /// queued, whatever runs open and close meanwhile (a caller that never closes, or another connection's
    /// runs one after another); and a run that has queued `runCap` writes no longer holds the queue.
    public func openWriteRun() -> WriteRun {
        if runsInline { return WriteRun(store: nil) }
        pending.withLock { $0.runsOpen += 1 }
        return WriteRun(store: self)
    }

    static let runCap = 2_000

    /// How long a write may be held for a run (100 ms; tests set it).
    public func setWriteRunLimit(_ limit: Duration) {
        let (seconds, atto) = limit.components
        writeRunLimitNanos.store(seconds * 1_000_000_000 + atto / 1_000_000_000, ordering: .relaxed)
    }

    /// Ends a run (`WriteRun.close`, once): the last one to close schedules the drain of what they queued.
    func closeWriteRun() {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = writeRunLimitNanos.load(ordering: .relaxed)
        let schedule: Bool = pending.withLock { p in
            p.runsOpen -= 1
            if p.holds(now: now, limit: limit) || p.drainScheduled || p.jobs.isEmpty { return false }
            p.drainScheduled = true
            return true
        }
        if schedule { queue.async { self.drainWrites() } }
    }

    /// `drainHeld` on the queue once `nanoseconds` have passed: the timer that ends a hold.
    func drainHeld(in nanoseconds: Int64) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { self.drainHeld() }
    }

    /// On the queue, when the oldest held write's time is up: drains, unless a drain is already on its way.
    func drainHeld() {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = writeRunLimitNanos.load(ordering: .relaxed)
        let (drain, retryIn): (Bool, Int64?) = pending.withLock { p in
            if p.drainScheduled || p.jobs.isEmpty { return (false, nil) }
            // Still held (a later write's time, or a timer that fired early): look again when it is up.
            if p.holds(now: now, limit: limit), let since = p.heldSince { return (false, Int64(since &+ UInt64(limit) &- now)) }
            p.drainScheduled = true
            return (true, nil)
        }
        if let retryIn { drainHeld(in: retryIn) }
        if drain { drainWrites() }
    }

    /// On the queue: commits `jobs` as one transaction (each in its own savepoint when there are several) and
    /// answers each.
    func commitGroup(_ jobs: [WriteJob]) {
        guard let db = self.db else {
            for j in jobs { j.finish(StoreError.closed) }
            return
        }
        if jobs.count == 1 {
            // The common case needs no savepoint.
            let job = jobs[0]
            do {
                try writeNow { s in try job.run(s) }
                job.finish(nil)
            } catch {
                job.finish(error)
            }
            return
        }
        var outcomes = [(any Error)?](repeating: nil, count: jobs.count)
        var changes: [RecordChange] = []
        var delta = OutboxCounts()
        var flushedThrough: Int64?
        do {
            try db.exec("BEGIN IMMEDIATE")
            do {
                for (k, job) in jobs.enumerated() {
                    let session = StoreSession(db: db, store: self)
                    try db.exec("SAVEPOINT w")
                    do {
                        try job.run(session)
                        try db.exec("RELEASE w")
                        changes += session.changes
                        delta += session.outboxDelta
                    } catch {
                        try db.exec("ROLLBACK TO w")
                        try db.exec("RELEASE w")
                        outcomes[k] = error
                    }
                }
                flushedThrough = try flushSearchIfLarge(db)
                try db.exec("COMMIT")
            } catch {
                try? db.exec("ROLLBACK")
                throw error
            }
        } catch {
            // The group did not commit: nothing of it is stored, and every write in it fails.
            for j in jobs { j.finish(error) }
            return
        }
        counts.withLock { $0 += delta }
        searchCommitted(flushedThrough: flushedThrough)
        if !changes.isEmpty {
            for o in observers.withLock({ $0 }) { o(changes) }
        }
        for (k, j) in jobs.enumerated() { j.finish(outcomes[k]) }
    }
}

extension Store.PendingWrites {
    /// Whether an open run keeps the queue from starting a group (see `openWriteRun`): not while closing, not
    /// past `runCap` writes, and not once the oldest held write has waited `limit` nanoseconds.
    func holds(now: UInt64, limit: Int64) -> Bool {
        guard runsOpen > 0, !closing, jobs.count < Store.runCap else { return false }
        guard let heldSince else { return true }
        return now < heldSince &+ UInt64(max(limit, 0))
    }
}

/// A run of writes (`Store.openWriteRun`); closing it twice, or after the queue closed it, is harmless.
public final class WriteRun: Sendable {
    private let store: Store?
    private let open = Mutex(true)

    init(store: Store?) {
        self.store = store
    }

    public func close() {
        guard open.withLock({ o in defer { o = false }; return o }) else { return }
        store?.closeWriteRun()
    }

    deinit { close() }
}

/// One queued write: `run` executes the body on the store queue (inside the group's transaction),
/// `finish` answers the caller once the group has committed (nil) or failed.
/// Unchecked because: its closures are created by `write` and called only on the store queue, once each.
final class WriteJob: @unchecked Sendable {
    let run: (StoreSession) throws -> Void
    let finish: ((any Error)?) -> Void

    init(run: @escaping (StoreSession) throws -> Void, finish: @escaping ((any Error)?) -> Void) {
        self.run = run
        self.finish = finish
    }
}

/// Where a write's result waits between its body and its commit (touched only on the store queue).
/// Unchecked because: written by the job's body and read by its `finish`, both on the store queue, in that order.
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
