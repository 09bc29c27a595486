import Logging
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What keeps the process busy: work marked as it happens (`touch`: a record committed, an event published)
/// and work in flight (`begin`/`end`: a request being answered, for however long it takes). Cheap enough for
/// every request: a clock read and a few atomics, and a yield to a one-element buffer only while
/// `IdleMemoryRelease` waits for activity.
public final class ActivityMark: Sendable {
    private let generation = Atomic<UInt64>(1)
    private let lastNanos = Atomic<Int64>(ActivityMark.now())
    private let inFlight = Atomic<Int>(0)
    private let waiting = Atomic<Bool>(false)
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    public init() {
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func touch() {
        lastNanos.store(Self.now(), ordering: .relaxed)
        generation.add(1, ordering: .sequentiallyConsistent)
        if waiting.load(ordering: .sequentiallyConsistent) { wake.yield() }
    }

    public func begin() {
        inFlight.add(1, ordering: .sequentiallyConsistent)
        touch()
    }

    public func end() {
        touch()
        inFlight.subtract(1, ordering: .sequentiallyConsistent)
    }

    var current: UInt64 { generation.load(ordering: .sequentiallyConsistent) }
    var busy: Bool { inFlight.load(ordering: .sequentiallyConsistent) > 0 }

    /// How long since the last activity.
    var quietFor: Duration { .nanoseconds(Self.now() - lastNanos.load(ordering: .relaxed)) }

    /// Returns once the generation differs from `seen` (at once if it already does), or when cancelled.
    func wait(after seen: UInt64) async {
        waiting.store(true, ordering: .sequentiallyConsistent)
        defer { waiting.store(false, ordering: .sequentiallyConsistent) }
        var iterator = wakes.makeAsyncIterator()
        while current == seen, !Task.isCancelled {
            guard await iterator.next() != nil else { return }
        }
    }

    private static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }
}

/// Once the process has been quiet for `quiet` after some activity (its start-up counts as activity), gives
/// back the pages it only kept because that activity ran (`ResidentMemory.release`). Quiet: nothing marked for
/// `quiet` and nothing in flight. A process that keeps busy never releases; one that idles after each burst
/// releases once per burst.
///
/// Why a quiet period, not a timer: a release costs the next burst some minor page faults (measured: the first
/// request after a release took 1-2 ms more); releasing only after `quiet` without activity keeps that off
/// requests that come in a run, such as a client's loop or a sync's batches.
public struct IdleMemoryRelease: Service {
    public static let defaultQuiet: Duration = .seconds(5)

    let activity: ActivityMark
    let quiet: Duration
    let logger: Logger

    public init(activity: ActivityMark, quiet: Duration = Self.defaultQuiet, logger: Logger) {
        self.activity = activity
        self.quiet = quiet
        self.logger = logger
    }

    public func run() async throws {
        let (activity, quiet, logger) = (self.activity, self.quiet, self.logger)
        // Cancelled at a graceful shutdown: the wait for quiet and the wait for activity end at once.
        do {
            try await cancelWhenGracefulShutdown {
                var released: UInt64 = 0
                while !Task.isCancelled {
                    let seen = activity.current
                    if seen == released {
                        await activity.wait(after: seen)
                        continue
                    }
                    let quietFor = activity.quietFor
                    if activity.busy || quietFor < quiet {
                        // Until `quiet` after the last activity (a request in flight: look again after `quiet`).
                        try await Task.sleep(for: activity.busy ? quiet : quiet - quietFor)
                        continue
                    }
                    // (The blocking pool refuses only once the process is ending.)
                    if let release = try? await BlockingWork.run({ ResidentMemory.release() }) {
                        logger.debug("released idle memory", metadata: [
                            "residentKiB": "\(release.residentBeforeKiB) -> \(release.residentAfterKiB)", "segments": "\(release.segments)",
                        ])
                    }
                    released = seen
                }
            }
        } catch is CancellationError {
            return
        }
    }
}
