import Crypto
import Logging
import Synchronization
import SystemPackage
import TNotesCore
import TNotesLifecycle
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// The audio transfer queue, apart from record sync so a large or failing transfer never holds back
/// notes. Uploads go once their sermon is on the server; downloads resume after an interruption (Range)
/// and are verified by sha256 before they are kept. Failures retry on their own backoff. While the connection
/// is metered (contract §8.4) the queue is held: a transfer under way is cancelled and nothing starts until the
/// hold is lifted. How much audio comes down is the device's choice (contract §8.7): every sermon's
/// (`always`), only what is fetched (`on-demand`), or none (`never`), within a cache budget
/// (AudioTransfers+Cache.swift).
public actor AudioTransfers {
    let store: Store
    let client: SyncClient
    let audioDirectory: String
    let backoff: BackoffPolicy
    public nonisolated let settings: AudioSettings
    /// Copies a transcription reads: never evicted.
    let pins: AudioPins
    let logger: Logger
    /// Publishes `audio.progress` events.
    let onEvent: @Sendable (String, JSONObject) -> Void
    private var attempt = 0
    /// Sermons whose copy is being fetched or evicted now (one transfer or eviction per sermon at a time),
    /// and who waits for each.
    var busy: Set<String> = []
    var waitingForSermon: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// The start-up sweep (AudioTransfers+Sweep.swift): every fetch, eviction and pass runs after it.
    var sweep: Task<Void, Never>?
    /// When this process started (the daemon's start): files written since are not the last process's.
    let processStartMillis: Int64
    private let kicks: AsyncStream<Void>.Continuation
    private let kickStream: AsyncStream<Void>
    /// Held (metered), and the pass under way, which a hold cancels. Behind a lock, not the actor: the sync
    /// engine holds the queue while a pass is awaiting its transfer.
    let gate = Mutex(Gate())

    struct Gate {
        var held = false
        var pass: Task<Void, any Error>?
        /// Fetches under way (`fetch`), which `stop` cancels, and a metered hold too unless asked for by hand.
        var fetches: [String: (task: Task<Bool, any Error>, byHand: Bool)] = [:]
        var stopped = false
    }

    /// Thrown by a pass that finds the queue held.
    struct Held: Error {}

    public init(store: Store, client: SyncClient, audioDirectory: String, backoff: BackoffPolicy,
                settings: AudioSettings = AudioSettings(), pins: AudioPins = AudioPins(), logger: Logger,
                processStartMillis: Int64 = Timestamp.nowMillis(),
                onEvent: @escaping @Sendable (String, JSONObject) -> Void = { _, _ in }) {
        self.processStartMillis = processStartMillis
        self.store = store
        self.client = client
        self.audioDirectory = audioDirectory
        self.backoff = backoff
        self.settings = settings
        self.pins = pins
        self.logger = logger
        self.onEvent = onEvent
        (kickStream, kicks) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the queue to look for work; returns at once (callable from any thread).
    public nonisolated func kick() { kicks.yield() }

    /// Holds the queue (a metered connection) or lifts the hold; a transfer under way stops at once.
    public nonisolated func hold(metered held: Bool) {
        let (changed, pass, automatic) = gate.withLock { g -> (Bool, Task<Void, any Error>?, [Task<Bool, any Error>]) in
            defer { g.held = held }
            return (g.held != held, g.pass, g.fetches.values.filter { !$0.byHand }.map(\.task))
        }
        guard changed else { return }
        if held {
            logger.info("audio transfers wait: the connection is metered")
            pass?.cancel()
            for fetch in automatic { fetch.cancel() }
        } else {
            logger.info("audio transfers resume: the connection is no longer metered")
            kick()
        }
    }

    var isHeld: Bool { gate.withLock { $0.held } }

    /// Ends `run` once the transfer in hand (if any) has been cancelled, and every fetch under way.
    public nonisolated func stop() {
        kicks.finish()
        let fetches = gate.withLock { g in
            g.stopped = true
            return g.fetches.values.map(\.task)
        }
        for fetch in fetches { fetch.cancel() }
    }

    /// The transfer queue: runs until `stop` or cancellation (the sync engine runs it in its task group).
    /// Kicks during a pass coalesce into one more pass; a failed pass is retried after its backoff.
    /// Cancelling aborts a transfer in progress at once (libcurl's progress callback).
    public func run() async {
        await swept()
        try? await enforceBudget()
        var kicked = kickStream.makeAsyncIterator()
        var retryAt: ContinuousClock.Instant?
        while !Task.isCancelled {
            if let at = retryAt {
                // A failed pass waits out its backoff (kicks meanwhile coalesce into the next pass).
                try? await Task.sleep(until: at)
            } else {
                guard await kicked.next() != nil else { return }
            }
            if Task.isCancelled { return }
            if isHeld {
                // Kicks (the hold's lift among them) bring the queue back here.
                retryAt = nil
                continue
            }
            // The pass is a task of its own so that a hold can cancel it (its transfer aborts at once).
            let pass = Task {
                try await self.uploads()
                try await self.downloads()
                // Uploads make copies evictable; downloads and imports take room.
                try await self.enforceBudget()
            }
            let heldMeanwhile = gate.withLock { g in
                g.pass = pass
                return g.held
            }
            if heldMeanwhile { pass.cancel() }
            do {
                try await withTaskCancellationHandler { try await pass.value } onCancel: { pass.cancel() }
                gate.withLock { $0.pass = nil }
                attempt = 0
                retryAt = nil
            } catch {
                gate.withLock { $0.pass = nil }
                if Task.isCancelled { return }
                if isHeld {
                    retryAt = nil
                    continue
                }
                if case SyncFailure.revoked = error {
                    // The sync engine says so and stops; the next kick (a sync that worked) brings the queue back.
                    retryAt = nil
                    continue
                }
                attempt += 1
                let delay = SyncEngine.timerSeconds(backoff.delay(attempt: min(attempt, 64), retryAfter: (error as? SyncFailure)?.retryAfter))
                logger.warning("audio transfer failed; will retry", metadata: ["in": "\(ClockTime.wholeSeconds(delay)) s", "error": "\(error)"])
                retryAt = .now + .milliseconds(SyncEngine.milliseconds(delay))
            }
        }
    }

    func uploads() async throws {
        let pending = try await store.read { s in try s.audioToUpload() }
        for file in pending {
            guard let path = file.path, let sha = file.sha256 else { continue }
            if isHeld || Task.isCancelled { throw Held() }
            do {
                try await client.uploadAudio(sermonId: file.sermonId, path: path, sha256: sha)
            } catch SyncFailure.client(status: 413, let detail) {
                // Over the account's audio quota (or the server's size limit): this file waits for the next pass
                // (after the next sync: a deleted sermon may have freed room); the others and the downloads go on.
                logger.warning("audio upload refused: too large for the account", metadata: ["sermon": "\(file.sermonId)", "detail": "\(detail)"])
                continue
            }
            try await store.write { s in try s.markAudioUploaded(sermonId: file.sermonId, sha256: sha) }
            logger.info("audio uploaded", metadata: ["sermon": "\(file.sermonId)", "bytes": "\(file.sizeBytes ?? 0)"])
        }
    }

    /// The pass's downloads: every sermon's audio in `always` mode (none in the others), each as it fits in
    /// the cache.
    func downloads() async throws {
        guard settings.mode == .always else { return }
        let wanted = try await store.read { s in try s.audioToDownload() }
        for item in wanted {
            if isHeld || Task.isCancelled { throw Held() }
            do {
                _ = try await fetchLocked(item, byHand: false)
            } catch let e as AudioCacheError {
                // No room: the cache keeps what it has (the newest downloads come last and stay).
                logger.info("audio not downloaded", metadata: ["sermon": "\(item.sermonId)", "reason": "\(e)"])
            }
        }
    }
}
