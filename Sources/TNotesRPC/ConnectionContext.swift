import Synchronization
import TNotesCore

/// What a handler knows of the connection that called it, and how it sends that connection
/// notifications (events). Events go through a bounded buffer: a subscriber that stops reading loses
/// the oldest events (they are numbered, so it can tell) and never holds anyone else back.
public final class ConnectionContext: Sendable {
    public let id: Int
    public let peerUID: UInt32
    public let peerPID: Int32
    private let continuation: AsyncStream<JSON>.Continuation
    public let events: AsyncStream<JSON>
    private let topics = Mutex<Set<String>?>(nil)

    public init(id: Int, peerUID: UInt32, peerPID: Int32, eventBuffer: Int = 1024) {
        self.id = id
        self.peerUID = peerUID
        self.peerPID = peerPID
        (events, continuation) = AsyncStream.makeStream(of: JSON.self, bufferingPolicy: .bufferingNewest(eventBuffer))
    }

    /// Topics this connection subscribed to (nil: not subscribed).
    public var subscribedTopics: Set<String>? { topics.withLock { $0 } }

    public func subscribe(_ newTopics: Set<String>) {
        topics.withLock { $0 = ($0 ?? []).union(newTopics) }
    }

    /// Queues a notification `{"jsonrpc":"2.0","method":method,"params":params}`.
    public func notify(method: String, params: JSON) {
        continuation.yield(["jsonrpc": "2.0", "method": .string(method), "params": params])
    }

    public func finish() { continuation.finish() }
}
