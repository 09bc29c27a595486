import Logging
import ServiceLifecycle
import Synchronization
import TNotesSync

/// Where the daemon's sync engine lives. It is there from the start when `sync.server_url` is set, and
/// arrives later when a local-only daemon is paired (`sync.login`): every part that uses the engine asks
/// the slot at the time of use instead of holding one captured at start.
/// A Mutex, not an actor: the store's commit observer reads it synchronously on every commit.
final class SyncSlot: Sendable {
    private let current: Mutex<SyncEngine?>
    private let installed: AsyncStream<SyncEngine>.Continuation
    let arrivals: AsyncStream<SyncEngine>
    /// `sync.token_file` as it is now: the config's, or the one `sync.login` wrote (read on every attempt).
    private let token: Mutex<String?>

    init(_ engine: SyncEngine? = nil, tokenFile: String? = nil) {
        current = Mutex(engine)
        token = Mutex(tokenFile)
        (arrivals, installed) = AsyncStream.makeStream(of: SyncEngine.self, bufferingPolicy: .bufferingNewest(1))
        if let engine { installed.yield(engine) }
    }

    var engine: SyncEngine? { current.withLock { $0 } }
    var tokenFile: String? {
        get { token.withLock { $0 } }
        set { token.withLock { $0 = newValue } }
    }
    /// The sync server's base URL, while there is an engine.
    var serverURL: String? { engine?.settings.serverURL }

    /// Sets the engine once; false (nothing changed) when there already is one.
    func install(_ engine: SyncEngine) -> Bool {
        let fresh = current.withLock { slot -> Bool in
            guard slot == nil else { return false }
            slot = engine
            return true
        }
        if fresh { installed.yield(engine) }
        return fresh
    }
}

/// Runs the sync engine (and the network monitor that wakes it) once there is one: at once when sync is
/// configured, or from the moment `sync.login` pairs a local-only daemon. A graceful stop ends it either way.
struct SyncEngineService: Service {
    let slot: SyncSlot
    let logger: Logger

    func run() async throws {
        var arrivals = slot.arrivals.cancelOnGracefulShutdown().makeAsyncIterator()
        guard let engine = await arrivals.next() else { return }
        let logger = self.logger
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                await withGracefulShutdownHandler {
                    await engine.run()
                } onGracefulShutdown: {
                    engine.stop()
                }
            }
            group.addTask {
                try await NetworkMonitor(logger: logger) { usable in await engine.network(usable: usable) }.run()
            }
        }
    }
}
