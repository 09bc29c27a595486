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
            let schedule: Bool = pending.withLock { p in
                p.jobs.append(job)
                if p.drainScheduled { return false }
                p.drainScheduled = true
                return true
            }
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
        let jobs: [WriteJob] = pending.withLock { p in
            defer { p.jobs.removeAll(keepingCapacity: true) }
            return p.jobs
        }
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
