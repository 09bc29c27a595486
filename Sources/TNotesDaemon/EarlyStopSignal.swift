import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Set by a SIGTERM/SIGINT that arrives before the service group has taken those signals over.
private let earlyStopRequested = Atomic<Bool>(false)

/// The socket accepts connections a moment before the service group installs its signal handling, and a
/// stop request in that moment (a `systemctl restart` right after start, a script that connects and then
/// stops us) would otherwise take the default action and kill the daemon uncleanly. This remembers such
/// a signal and turns it into a graceful stop as soon as the group runs.
enum EarlyStopSignal {
    /// Installs the interim handler; call before the socket is bound.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in earlyStopRequested.store(true, ordering: .relaxed) }
        signal(SIGTERM, handler)
        signal(SIGINT, handler)
    }

    /// A service that ends at once, stopping the group gracefully, if a stop came early; otherwise it
    /// waits for the group's own graceful shutdown. (Services start after the group's signal handling is
    /// in place, so no signal falls between the two.)
    struct Watcher: Service {
        func run() async throws {
            if earlyStopRequested.load(ordering: .relaxed) { return }
            try? await gracefulShutdown()
        }
    }
}
