import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// While `tnotes sync` waits, a second connection follows the daemon's `sync.progress` events on a thread
/// of its own and keeps one status line on standard error up to date (a terminal only; see ProgressLine).
final class SyncProgress: @unchecked Sendable {
    // Unchecked because: `connection` is used only by the reader thread after `start`, except for
    // `shutdown()`, which is safe from any thread (it only shuts the socket down).
    private let connection: RPCConnection
    private let line: ProgressLine
    private var thread = pthread_t()
    private var started = false

    init?(socketPath: String, enabled: Bool) {
        let line = ProgressLine(enabled: enabled)
        guard line.enabled, let c = try? RPCConnection(path: socketPath),
              (try? c.call("events.subscribe", ["topics": ["sync.progress"]])) != nil
        else { return nil }
        connection = c
        self.line = line
    }

    func start() {
        let box = Unmanaged.passRetained(self)
        started = pthread_create(&thread, nil, { raw in
            let me = Unmanaged<SyncProgress>.fromOpaque(raw!).takeRetainedValue()
            me.follow()
            return nil
        }, box.toOpaque()) == 0
        if !started { box.release() }
    }

    private func follow() {
        line.show("syncing…")
        while let event = try? connection.nextNotification() {
            guard let p = event["params"], p["topic"] == "sync.progress" else { continue }
            let pushed = p["pushed"]?.int64Value ?? 0, toPush = p["toPush"]?.int64Value ?? 0, pulled = p["pulled"]?.int64Value ?? 0
            line.show("syncing: pushed \(pushed)/\(max(toPush, pushed)), pulled \(pulled)")
        }
    }

    func stop() {
        connection.shutdown()
        if started { pthread_join(thread, nil) }
        line.clear()
    }
}
