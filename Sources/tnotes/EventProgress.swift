import TNotesCLIRender
import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// While a command waits on a long call (`tnotes sync`, `tnotes audio fetch`), a second connection follows the
/// daemon's progress events of one topic on a thread of its own and keeps one status line on standard error up
/// to date (a terminal only; see ProgressLine).
final class EventProgress: @unchecked Sendable {
    // Unchecked because: `connection` is used only by the reader thread after `start`, except for
    // `shutdown()`, which is safe from any thread (it only shuts the socket down).
    private let connection: RPCConnection
    private let line: ProgressLine
    private let topic: EventTopic
    private let firstText: String
    /// The line for an event's params; nil: the event is not this command's.
    private let text: (JSON) -> String?
    private var thread = pthread_t()
    private var started = false

    init?(socketPath: String, enabled: Bool, topic: EventTopic, firstText: String, text: @escaping (JSON) -> String?) {
        let line = ProgressLine(enabled: enabled)
        guard line.enabled, let c = try? RPCConnection(path: socketPath),
              (try? c.call(EventsSubscribe.self, .init(topics: [topic]))) != nil
        else { return nil }
        connection = c
        self.line = line
        self.topic = topic
        self.firstText = firstText
        self.text = text
    }

    /// `tnotes sync`'s line.
    static func sync(socketPath: String, enabled: Bool) -> EventProgress? {
        EventProgress(socketPath: socketPath, enabled: enabled, topic: .syncProgress, firstText: "syncing…") { ProgressText.sync($0) }
    }

    func start() {
        let box = Unmanaged.passRetained(self)
        started = pthread_create(&thread, nil, { raw in
            let me = Unmanaged<EventProgress>.fromOpaque(raw!).takeRetainedValue()
            me.follow()
            return nil
        }, box.toOpaque()) == 0
        if !started { box.release() }
    }

    private func follow() {
        line.show(firstText)
        while let event = try? connection.nextNotification() {
            guard let p = LenientRecord<RPCNotification>(event).json(at: \.params),
                  LenientRecord<EventHead>(p).topic == topic.rawValue, let shown = text(p) else { continue }
            line.show(shown)
        }
    }

    func stop() {
        connection.shutdown()
        if started { pthread_join(thread, nil) }
        line.clear()
    }
}
