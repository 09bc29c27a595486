import Logging
import ServiceLifecycle
import Synchronization
import TNotesCore
import TNotesStore

/// Runs the processing queue (contract §6.1) as one service of the daemon: takes due jobs one at a time
/// (`workers` at once), runs them off the cooperative pool at low priority (SCHED_IDLE for a job the daemon
/// queued on its own, nice 10 for one a person asked for: `JobPriority`), commits each result together
/// with its `done`, retries failures with the sync backoff, and stops on graceful shutdown by interrupting
/// the running job (it goes back to the queue without using up an attempt).
public final class ProcessingWorker: Service, Sendable {
    private let store: Store
    private let settings: ProcessingSettings
    private let executor: JobExecutor
    private let logger: Logger
    private let publish: @Sendable (_ topic: String, _ fields: JSONObject) -> Void
    private let wakes: [WakeSignal]
    private let stopping = Atomic<Bool>(false)
    /// UPower's OnBattery (contract §8.4): automatic transcriptions wait (`power(onBattery:)`).
    private let onBattery = Atomic<Bool>(false)
    private let engineLog: EngineLog

    private struct Running {
        var contexts: [String: JobContext] = [:]
        var progress: [String: Double] = [:]
        var lastPublished: [String: Int64] = [:]
        /// The running jobs that are transcriptions nobody asked for by hand (they wait on battery).
        var automatic: Set<String> = []
    }
    private let running = Mutex(Running())

    public init(store: Store, settings: ProcessingSettings, scratchDirectory: String, audio: AudioAccess? = nil, logger: Logger,
                publish: @escaping @Sendable (_ topic: String, _ fields: JSONObject) -> Void) {
        self.store = store
        self.settings = settings
        var executor = JobExecutor(store: store, settings: settings, scratchDirectory: scratchDirectory)
        executor.audio = audio
        let engineLog = EngineLog(logger: logger)
        executor.onEngineChosen = { engineLog.note($0) }
        self.executor = executor
        self.engineLog = engineLog
        self.logger = logger
        self.publish = publish
        self.wakes = (0..<max(1, settings.workers)).map { _ in WakeSignal() }
    }

    /// Whether a transcription can fetch audio this device does not hold (audio on demand).
    public var canFetchAudio: Bool { executor.audio?.canFetch() ?? false }

    /// A job was queued: an idle loop takes it at once.
    public func jobQueued() {
        for w in wakes { w.signal() }
    }

    /// The machine runs on battery, or on mains again. On battery (unless `[processing] on_battery`), an
    /// automatic transcription waits: a running one goes back to the queue without using up an attempt, and
    /// none starts until the machine is on mains again. A job asked for by hand runs either way.
    public func power(onBattery: Bool) {
        let was = self.onBattery.exchange(onBattery, ordering: .relaxed)
        guard was != onBattery, !settings.runOnBattery else { return }
        if onBattery {
            let interrupted = running.withLock { r in r.automatic.compactMap { r.contexts[$0] } }
            logger.info("automatic transcriptions wait: on battery", metadata: ["interrupted": "\(interrupted.count)"])
            for c in interrupted { c.cancel() }
        } else {
            logger.info("automatic transcriptions resume: on mains power")
            jobQueued()
        }
    }

    /// Whether automatic transcriptions may run now.
    var automaticTranscriptionsRun: Bool { settings.runOnBattery || !onBattery.load(ordering: .relaxed) }

    /// A person asked for a job the daemon had queued on its own (`JobRecord.isHandRequested` is now true in
    /// the store): if it is running, its threads and processes move to the hand-requested priority at once.
    /// Leaving SCHED_IDLE needs CAP_SYS_NICE; without it the running attempt stays idle (logged), and a retry
    /// or a restart runs it at the new priority.
    public func promote(jobId: String) {
        guard let context = running.withLock({ r in
            r.automatic.remove(jobId)
            return r.contexts[jobId]
        }) else { return }
        if !context.raise(to: .handRequested) {
            logger.notice("a running job stays at idle priority (raising it needs CAP_SYS_NICE)", metadata: ["job": "\(jobId)"])
        }
    }

    /// The priority a job runs at: see `JobPriority`.
    public static func priority(of job: JobRecord) -> JobPriority { job.isHandRequested ? .handRequested : .idle }

    /// How far a running job is (0...1), for `jobs.list` and `tnotes jobs`.
    public func progress(of jobId: String) -> Double? { running.withLock { $0.progress[jobId] } }

    /// A job as `jobs.list` and `job.changed` show it, with the progress of a running one.
    public func view(_ job: JobRecord) -> JSON {
        guard case .object(var o) = job.json else { return job.json }
        switch job.state {
        case .running: o[field: \Job.progress] = progress(of: job.id).map { .double(($0 * 1000).rounded() / 1000) } ?? .null
        case .done: o[field: \Job.progress] = .double(1)
        default: o[field: \Job.progress] = .null
        }
        return .object(o)
    }

    public func run() async throws {
        // Which engine a transcription would use, said once at start (and again if it changes: EngineLog).
        engineLog.note(EngineChoice.choose(settings))
        let requeued = try await store.write { s in try s.requeueInterruptedJobs() }
        if requeued > 0 { logger.info("jobs resumed after an unclean stop", metadata: ["jobs": "\(requeued)"]) }
        try await prune()
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for wake in wakes { group.addTask { await self.loop(wake: wake) } }
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    private func stop() {
        stopping.store(true, ordering: .relaxed)
        for w in wakes { w.finish() }
        for c in running.withLock({ Array($0.contexts.values) }) { c.cancel() }
    }

    private func prune() async throws {
        let cutoff = Timestamp.format(millis: Timestamp.nowMillis() - Int64(settings.keepFinishedDays) * 86_400_000)
        let pruned = try await store.write { s in try s.pruneJobs(before: cutoff) }
        if pruned > 0 { logger.info("finished jobs pruned", metadata: ["jobs": "\(pruned)"]) }
    }

    private func loop(wake: WakeSignal) async {
        var lastPrune = Timestamp.nowMillis()
        while !stopping.load(ordering: .relaxed) && !Task.isCancelled {
            do {
                if let job = try await claim() {
                    await runJob(job)
                    continue
                }
                if Timestamp.nowMillis() - lastPrune > 3_600_000 {
                    try await prune()
                    lastPrune = Timestamp.nowMillis()
                }
                let automatic = automaticTranscriptionsRun
                let due = try await store.read { s in try s.nextJobDue(automaticTranscriptions: automatic) }
                // In Double: a stored not_before may be any Int64, and the Int64 difference could overflow.
                let wait = due.map { max(0.01, (Double($0) - Double(Timestamp.nowMillis())) / 1000) } ?? 3600
                if !(await wake.wait(seconds: min(wait, 3600))) { break }
            } catch {
                // The store failing is the daemon's problem, reported by its other services; pause and go on.
                logger.error("processing queue error", metadata: ["error": "\(error)"])
                if !(await wake.wait(seconds: 5)) { break }
            }
        }
    }

    /// Takes the next due job; its sermon's status becomes `processing` in the same transaction.
    private func claim() async throws -> JobRecord? {
        let automatic = automaticTranscriptionsRun
        let job: JobRecord? = try await store.write { s in
            guard let job = try s.claimNextJob(nowMillis: Timestamp.nowMillis(), automaticTranscriptions: automatic) else { return nil }
            if let key = Self.statusKey(job.kind), try s.record(.sermons, id: job.sermonId).map({ !$0.isDeleted }) ?? false {
                try s.setProcessingStatus(sermonId: job.sermonId, key: key, status: "processing")
            }
            return job
        }
        if let job { changed(job) }
        return job
    }

    public static func statusKey(_ kind: JobRecord.Kind) -> String? {
        switch kind {
        case .transcribe: return "transcriptionStatus"
        case .summarize: return "summaryStatus"
        case .chat: return nil
        }
    }

    private func runJob(_ job: JobRecord) async {
        let id = job.id
        let context = JobContext(priority: Self.priority(of: job)) { [weak self] fraction in self?.reportProgress(id, fraction) }
        let isAutomatic = job.kind == .transcribe && !job.isHandRequested
        running.withLock { r in
            r.contexts[id] = context
            if isAutomatic { r.automatic.insert(id) }
        }
        defer { running.withLock { r in r.contexts[id] = nil; r.progress[id] = nil; r.lastPublished[id] = nil; r.automatic.remove(id) } }
        // Stopping, or the machine went on battery since the claim.
        if stopping.load(ordering: .relaxed) || (isAutomatic && !automaticTranscriptionsRun) { context.cancel() }
        let started = ContinuousClock.now
        logger.info("job started", metadata: ["job": "\(id)", "kind": "\(job.kind.rawValue)", "sermon": "\(job.sermonId)",
                                              "attempt": "\(job.attempts)", "priority": "\(context.priority.rawValue)"])
        do {
            // The work races the context's cancellation, so a stop also ends an engine that never looks at
            // the context (a command: cancelling its task runs swift-subprocess's teardown).
            let executor = self.executor
            let commit = try await withThrowingTaskGroup(of: (@Sendable (StoreSession) throws -> Void).self) { group in
                group.addTask { try await executor.execute(job, context: context) }
                group.addTask {
                    await context.cancellation()
                    throw JobInterrupted()
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
            if context.isCancelled { throw JobInterrupted() }
            let done: JobRecord? = try await store.write { s in
                try commit(s)
                try s.settleJob(id: id, state: .done, error: nil)
                return try s.job(id: id)
            }
            logger.info("job done", metadata: ["job": "\(id)", "kind": "\(job.kind.rawValue)",
                                               "seconds": "\(Self.seconds(ContinuousClock.now - started))"])
            if let done { changed(done) }
            // A finished transcript may have queued a summary.
            jobQueued()
        } catch {
            await settleFailure(job, error: error, interrupted: context.isCancelled || error is JobInterrupted)
        }
    }

    private func settleFailure(_ job: JobRecord, error: any Error, interrupted: Bool) async {
        let reason = "\(error)"
        // Retrying cannot help a missing program or model, unreadable audio or a gone sermon: fail at once
        // (`jobs.retry` runs it again once the cause is fixed).
        let permanent = error is PermanentJobError || error is StoreError || error is AudioInputError
        let deferred = error is JobDeferred
        let final = permanent || (job.attempts >= settings.maxAttempts && !deferred)
        let retryAt = Timestamp.nowMillis() + Self.retryDelayMillis(settings.backoff, attempt: job.attempts)
        let key = Self.statusKey(job.kind)
        let settled: JobRecord? = try? await store.write { s in
            let sermonLive = try s.record(.sermons, id: job.sermonId).map { !$0.isDeleted } ?? false
            if interrupted {
                try s.settleJob(id: job.id, state: .queued, error: job.lastError, refundAttempt: true)
                if let key, sermonLive { try s.setProcessingStatus(sermonId: job.sermonId, key: key, status: "pending") }
            } else if final {
                try s.settleJob(id: job.id, state: .failed, error: reason)
                if let key, sermonLive { try s.setProcessingStatus(sermonId: job.sermonId, key: key, status: "failed") }
            } else {
                try s.settleJob(id: job.id, state: .queued, error: reason, notBefore: retryAt, refundAttempt: deferred)
                if let key, sermonLive { try s.setProcessingStatus(sermonId: job.sermonId, key: key, status: "pending") }
            }
            return try s.job(id: job.id)
        }
        if interrupted {
            logger.info("job interrupted; it goes back to the queue", metadata: ["job": "\(job.id)"])
        } else {
            logger.warning(final ? "job failed" : "job failed; will retry", metadata: [
                "job": "\(job.id)", "kind": "\(job.kind.rawValue)", "attempt": "\(job.attempts)", "error": "\(reason)",
            ])
        }
        if let settled { changed(settled) }
    }

    private func reportProgress(_ id: String, _ fraction: Double) {
        let now = Timestamp.nowMillis()
        let publishNow = running.withLock { r -> Bool in
            r.progress[id] = fraction
            // job.changed for progress at most once a second per job.
            if now - (r.lastPublished[id] ?? 0) < 1000 { return false }
            r.lastPublished[id] = now
            return true
        }
        if publishNow {
            publish("job.changed", ["id": .string(id), "state": "running", "progress": .double((fraction * 1000).rounded() / 1000)])
        }
    }

    private func changed(_ job: JobRecord) {
        guard case .object(var fields) = view(job) else { return }
        fields.removeValue(forKey: "params")
        publish("job.changed", fields)
    }

    /// The backoff before retry `attempt`, in milliseconds. Total: the attempt count is a stored value (any
    /// Int64 in a row written by hand; `attempt - 1` in the policy would overflow at Int.min), and the delay
    /// comes from configured seconds, which may be as large as 1e300 (`Int64(delay * 1000)` would trap). Capped
    /// at a day, far past any configured backoff's sense.
    static func retryDelayMillis(_ backoff: BackoffPolicy, attempt: Int) -> Int64 {
        let delay = backoff.delay(attempt: min(max(attempt, 1), 64))
        return Int64(ClockTime.wholeSeconds(min(delay, 86_400) * 1000))
    }

    static func seconds(_ d: Duration) -> String {
        let (s, atto) = d.components
        return String(Double(s) + Double(atto) / 1e18)
    }
}

/// Logs the transcription engine once, and again only when it changes (a recognizer installed or removed while
/// the daemon runs).
final class EngineLog: Sendable {
    private let logger: Logger
    private let last = Mutex<EngineChoice?>(nil)

    init(logger: Logger) { self.logger = logger }

    func note(_ choice: EngineChoice) {
        guard last.withLock({ previous in
            defer { previous = choice }
            return previous != choice
        }) else { return }
        var metadata: Logger.Metadata = ["engine": "\(choice.engine)", "model": "\(choice.model)"]
        if let reason = choice.fallbackReason { metadata["why"] = "\(reason)" }
        logger.info("transcription engine", metadata: metadata)
    }
}
