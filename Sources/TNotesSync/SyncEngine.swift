import Logging
import Synchronization
import TNotesCore
import TNotesStore

/// The sync engine: one sync at a time (push the outbox in order, then pull every page), retried with
/// exponential backoff. Retries are driven by the backoff timer and by network events — never only by
/// the next local write — and "in flight" is never persisted, so a crash cannot wedge the queue.
public actor SyncEngine {
    public struct Settings: Sendable {
        public var serverURL: String
        public var interval: Double
        public var backoff: BackoffPolicy
        public var batchSize: Int
        /// How long after a local write the push starts (a burst of writes goes out as one sync). Short
        /// when realtime: the other devices are waiting on the server for exactly this push.
        public var localChangeDebounce: Double
        /// Keep one long-poll pull open (`[sync] realtime`, contract §6.4).
        public var realtime: Bool
        /// How long the server may hold the long poll.
        public var realtimeWaitSeconds = 25
        /// Audio transfers go on over a metered connection too (`[sync] audio_on_metered`, contract §8.4).
        public var audioOnMetered = false

        public init(serverURL: String, interval: Double, backoff: BackoffPolicy, batchSize: Int, realtime: Bool = false) {
            self.serverURL = serverURL
            self.interval = interval
            self.backoff = backoff
            self.batchSize = batchSize
            self.realtime = realtime
            self.localChangeDebounce = realtime ? 0.02 : 1.0
        }
    }

    let store: Store
    let client: SyncClient
    public nonisolated let settings: Settings
    let logger: Logger
    /// The audio transfer queue and cache (`audio.fetch`, `audio.evict`).
    public nonisolated let audio: AudioTransfers?
    let onEvent: @Sendable (String, JSONObject) -> Void

    private(set) var state: SyncState = .idle
    var attempt = 0
    var nextAttemptAt: Int64?
    var lastSuccessAt: String?
    var lastError: String?
    var triggerCounts: [SyncTrigger: Int] = [:]
    var wanted = false
    private var force = false
    /// A sync asked for by hand (`sync.now`, `sync.login`): the one kind that tries a revoked device again.
    private var byHand = false
    var networkUp = true
    private var debounceScheduled = false
    /// Bumped whenever a pending retry is superseded; a retry timer of an older generation does nothing.
    private var retryGeneration = 0
    private var waiters: [Int: CheckedContinuation<SyncReport, any Error>] = [:]
    private var nextWaiterIds: [Int] = []
    private var waiterCounter = 0
    let wake: AsyncStream<Void>.Continuation
    private let wakeStream: AsyncStream<Void>
    /// Timers to start (debounce, retry, a waiter's deadline): `run` starts each as a child task of its own
    /// task group, so no timer outlives the engine's run.
    private let timers: AsyncStream<(Timer, Double)>.Continuation
    private let timerStream: AsyncStream<(Timer, Double)>
    /// Local writes, signalled from the store's observer without a task of their own.
    private let localWrites: AsyncStream<Void>.Continuation
    private let localWriteStream: AsyncStream<Void>
    let inFlight = InFlightTasks()
    /// Wakes the realtime loop early: a network change, or a sync that moved the pull cursor.
    let realtimeKick = WakeSignal()
    /// Whether the long poll is open now (for `sync.status`).
    var realtimeConnected = false
    /// Deletions a held pull would make (state `held`), and whether `sync.confirm` lets the next pull make them.
    var heldDeletes: Int?
    var massDeleteConfirmed = false
    /// The server answered 404 to a snapshot: first syncs pull the whole log (until the daemon restarts).
    var snapshotUnsupported = false
    /// The server epoch as the store has it (read once, then kept in step with it).
    var knownEpoch: String?
    /// The desktop (contract §8.4): the connection is metered, the machine is on battery (the periodic interval
    /// doubles), the machine is about to sleep (no sync starts).
    var metered = false
    var onBattery = false
    var asleep = false
    /// A pull is held when it would tombstone more than half of the live records, and at least this many
    /// (a person deleting 2 of their 3 sermons elsewhere is not a reset server).
    static let massDeleteFloor = 10

    enum Timer: Sendable {
        case debounce
        case retry(generation: Int)
        case waiterDeadline(id: Int, seconds: Double)
    }

    public init(store: Store, client: SyncClient, settings: Settings, audio: AudioTransfers?, logger: Logger,
                onEvent: @escaping @Sendable (String, JSONObject) -> Void)
    {
        self.store = store
        self.client = client
        self.settings = settings
        self.audio = audio
        self.logger = logger
        self.onEvent = onEvent
        (wakeStream, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (timerStream, timers) = AsyncStream.makeStream(of: (Timer, Double).self)
        (localWriteStream, localWrites) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: Triggers

    /// Asks for a sync. Manual and network triggers skip a pending backoff wait (and a network event
    /// starts the backoff over); the others wait for it. Triggers during a sync coalesce into one follow-up.
    public func trigger(_ kind: SyncTrigger) {
        triggerCounts[kind, default: 0] += 1
        wanted = true
        if kind == .manual || kind == .network || kind == .realtime || kind == .resume { force = true }
        if kind == .manual { byHand = true }
        if kind == .network || kind == .resume { attempt = 0 }
        wake.yield()
    }

    /// A local write happened (callable from any thread, e.g. the store's commit observer): `run` picks it up.
    public nonisolated func noteLocalWrite() {
        localWrites.yield()
    }

    /// A local write: sync about a second later, once per burst of writes.
    public func localChange() {
        guard !debounceScheduled else { return }
        debounceScheduled = true
        timers.yield((.debounce, settings.localChangeDebounce))
    }

    private func fire(_ timer: Timer) {
        switch timer {
        case .debounce:
            debounceScheduled = false
            trigger(.localChange)
        case .retry(let generation):
            guard generation == retryGeneration else { return }
            wanted = true
            wake.yield()
        case .waiterDeadline(let id, let seconds):
            resolve([id], .failure(SyncFailure.network("the sync did not finish within \(ClockTime.wholeSeconds(seconds)) s")))
        }
    }

    /// Network state from the monitor: a usable route appeared (sync now, backoff reset) or vanished.
    public func network(usable: Bool) {
        networkUp = usable
        if usable {
            realtimeKick.signal()
            trigger(.network)
        } else if state != .syncing && state != .revoked && state != .held {
            // Revoked and held say more than "offline", and only a sync by hand or a confirm may end them.
            setState(.offline)
        }
    }

    /// `sync.now {wait: true}`: starts a sync and answers with the result of a sync that began after the call.
    public func syncAndWait(timeout: Double = 25, trigger kind: SyncTrigger = .manual) async throws -> SyncReport {
        waiterCounter += 1
        let id = waiterCounter
        return try await withCheckedThrowingContinuation { cont in
            waiters[id] = cont
            nextWaiterIds.append(id)
            trigger(kind)
            timers.yield((.waiterDeadline(id: id, seconds: timeout), timeout))
        }
    }

    private func resolve(_ ids: [Int], _ result: Result<SyncReport, any Error>) {
        for id in ids {
            if let c = waiters.removeValue(forKey: id) { c.resume(with: result) }
        }
    }

    // MARK: The loop

    /// Runs until `stop` or cancellation: startup sync, periodic timer, every trigger, and the audio
    /// transfers. Everything it starts (the periodic timer, debounce/retry/deadline timers, the sync loop,
    /// the transfer queue) is a child task of one task group: when `run` returns, none of it is left.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    let interval = await self.periodicInterval
                    try? await Task.sleep(for: .milliseconds(Self.milliseconds(interval)))
                    if Task.isCancelled { break }
                    await self.trigger(.periodic)
                }
            }
            group.addTask {
                for await _ in self.localWriteStream { await self.localChange() }
            }
            if let audio {
                group.addTask { await audio.run() }
            }
            if settings.realtime {
                group.addTask { await self.realtimeLoop() }
            }
            group.addTask {
                await self.trigger(.startup)
                for await _ in self.wakeStream {
                    if Task.isCancelled { break }
                    await self.step()
                }
            }
            // Timers start here, in the group's own body (only it may add children); `stop` ends this loop,
            // and the group's other tasks are then cancelled: a sync in flight aborts its transfer at once.
            for await (timer, delay) in timerStream {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Self.milliseconds(delay)))
                    if !Task.isCancelled { await self.fire(timer) }
                }
            }
            group.cancelAll()
        }
        resolve(Array(waiters.keys), .failure(SyncFailure.network("the daemon is stopping")))
    }

    /// Ends `run` (from any thread: the graceful-shutdown handler is synchronous).
    public nonisolated func stop() {
        realtimeKick.finish()
        timers.finish()
        wake.finish()
        localWrites.finish()
        audio?.stop()
    }

    private func step() async {
        guard wanted, !asleep else { return }
        // Revoked: only a sync asked for by hand tries again (the token file may hold a new token by then).
        if state == .revoked && !byHand { wanted = false; return }
        byHand = false
        let now = Timestamp.nowMillis()
        if !force {
            if state == .backoff, let at = nextAttemptAt, now < at { return }
            if !networkUp { return }
        }
        wanted = false
        force = false
        retryGeneration += 1
        let waiting = nextWaiterIds
        nextWaiterIds = []
        setState(.syncing)
        do {
            // The push in flight and the next pull page run as tasks of their own beside the cycle; a stop
            // cancels them with it (their transfers abort), and the cycle awaits each one it started.
            let inFlight = self.inFlight
            let report = try await withTaskCancellationHandler { try await cycle() } onCancel: { inFlight.cancelAll() }
            await HeapTrim.afterSync(changes: report.pushed + report.pulled + report.conflicts)
            attempt = 0
            nextAttemptAt = nil
            lastError = nil
            lastSuccessAt = Timestamp.now()
            if report.held > 0 {
                heldDeletes = report.held
                logger.warning("pull held: it would delete more than half of this device's records",
                               metadata: ["deletes": "\(report.held)"])
                setState(.held)
            } else {
                if heldDeletes != nil { massDeleteConfirmed = false }
                heldDeletes = nil
                setState(networkUp ? .idle : .offline)
            }
            logger.info("sync done", metadata: ["pushed": "\(report.pushed)", "pulled": "\(report.pulled)", "downloaded": "\(report.downloaded)",
                                                "conflicts": "\(report.conflicts)", "ms": "\(report.durationMs)"])
            onEvent("sync.completed", report.json.objectValue ?? [:])
            realtimeKick.signal()
            resolve(waiting, .success(report))
            audio?.kick()
        } catch SyncFailure.revoked(let detail) {
            // No retry: this token will never work again. The queue and the records stay as they are.
            attempt = 0
            nextAttemptAt = nil
            lastError = "revoked: \(detail)"
            if state != .revoked { logger.error("sync stopped: this device was revoked on the server", metadata: ["detail": "\(detail)"]) }
            setState(.revoked)
            resolve(waiting, .failure(SyncFailure.revoked(detail)))
        } catch {
            attempt += 1
            let delay = settings.backoff.delay(attempt: attempt, retryAfter: (error as? SyncFailure)?.retryAfter)
            nextAttemptAt = Timestamp.nowMillis() + Int64(Self.milliseconds(delay))
            lastError = "\(error)"
            setState(networkUp ? .backoff : .offline)
            logger.warning("sync failed; will retry", metadata: ["attempt": "\(attempt)", "in": "\(Self.milliseconds(delay)) ms",
                                                                  "error": "\(error)"])
            resolve(waiting, .failure(error))
            scheduleRetry(after: delay)
        }
        if wanted { wake.yield() }
    }

    private func scheduleRetry(after delay: Double) {
        retryGeneration += 1
        timers.yield((.retry(generation: retryGeneration), delay))
    }

    private func setState(_ s: SyncState) {
        guard s != state || s == .backoff else { return }
        state = s
        onEvent("sync.state", [
            "state": .string(s.rawValue), "attempt": .int(Int64(attempt)),
            "nextAttemptAt": nextAttemptAt.map { .string(Timestamp.format(millis: $0)) } ?? .null,
            "lastError": JSON(lastError), "heldDeletes": heldDeletes.map { .int(Int64($0)) } ?? .null,
        ])
    }

    // MARK: One sync

    /// Pull pages are larger than push batches: a page costs one request and one transaction whatever its
    /// size, and the server allows up to 5000.
    var pullPageSize: Int { min(5000, settings.batchSize * 4) }

    /// What the sync under way has moved so far, for `sync.progress` events (`tnotes sync` on a terminal).
    var progress: (pushed: Int, pulled: Int, toPush: Int) = (0, 0, 0)

    func emitProgress() {
        onEvent("sync.progress", ["pushed": .int(Int64(progress.pushed)), "pulled": .int(Int64(progress.pulled)),
                                  "toPush": .int(Int64(progress.toPush))])
    }

    func cycle() async throws -> SyncReport {
        let started = Timestamp.nowMillis()
        var report = SyncReport()
        progress = (0, 0, store.outboxCounts.queued)
        let deviceId = store.deviceId
        let batchSize = settings.batchSize

        // A device that has never pulled pulls first: it learns where the server's log stands, so that its
        // own pushes can move its cursor past their changes instead of downloading them back.
        if try await store.read({ s in try s.pullCursor() }) == nil {
            let first = try await pullAll()
            report.pulled += first.applied
            report.downloaded += first.received
            if first.held > 0 {
                report.held = first.held
                report.durationMs = Int(Timestamp.nowMillis() - started)
                return report
            }
        }

        // Changes the server refused for the account's quota are pushed again once a sync, after this sync's own
        // changes (a deletion among them frees the room they need); refused again, they stay failed until the next.
        let refusedForQuota = store.outboxCounts.failed > 0 ? try await store.read { s in try s.quotaRejected() } : []
        try await pushAll(deviceId: deviceId, batchSize: batchSize, report: &report)
        if !refusedForQuota.isEmpty, try await store.write({ s in try s.requeue(refusedForQuota) }) > 0 {
            try await pushAll(deviceId: deviceId, batchSize: batchSize, report: &report)
        }

        let pull = try await pullAll()
        report.pulled += pull.applied
        report.downloaded += pull.received
        report.held = pull.held
        report.durationMs = Int(Timestamp.nowMillis() - started)
        return report
    }

    /// `sync.confirm`: the held pull may make its deletions; a sync starts now.
    public func confirmHeld() -> Int? {
        let held = heldDeletes
        massDeleteConfirmed = true
        trigger(.manual)
        return held
    }
}

extension SyncEngine {
    /// Seconds from the config (`interval`, the backoff's `max`) or a server (Retry-After) as a timer takes
    /// them: clamped to 0 ... 10^12 (31,700 years, which is "never"). The config only bounds them from below,
    /// and `Int(seconds * 1000)` traps past Int's range (an interval of 1e300), so every timer goes through here.
    static func timerSeconds(_ seconds: Double) -> Double {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), 1e12)
    }

    /// `timerSeconds` in whole milliseconds (at most 10^15: far inside Int and Duration).
    static func milliseconds(_ seconds: Double) -> Int { Int(timerSeconds(seconds) * 1000) }
}
