import TNotesCLIRender
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
              (try? c.call(EventsSubscribe.self, .init(topics: [.syncProgress]))) != nil
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
            guard let p = LenientRecord<RPCNotification>(event).json(at: \.params),
                  LenientRecord<EventHead>(p).topic == EventTopic.syncProgress.rawValue else { continue }
            line.show(ProgressText.sync(p))
        }
    }

    func stop() {
        connection.shutdown()
        if started { pthread_join(thread, nil) }
        line.clear()
    }
}
