import Synchronization
import TNotesCore
import TNotesRPC
import TNotesStore

/// Delivers events to the connections that subscribed to their topic. Events are numbered (`seq`) so a
/// subscriber can tell when it missed some (its buffer overflowed).
final class EventHub: Sendable {
    static let topics = Set(EventTopic.allCases.map(\.rawValue))

    private struct State {
        var connections: [Int: ConnectionContext] = [:]
        var seq: Int64 = 0
    }
    private let state = Mutex(State())
    /// Called for every event published (tnotesd's `ActivityMark`: a recording, a job or a sync that publishes
    /// keeps the daemon from counting as idle).
    private let onPublish: (@Sendable () -> Void)?

    init(onPublish: (@Sendable () -> Void)? = nil) {
        self.onPublish = onPublish
    }

    func connected(_ c: ConnectionContext) { state.withLock { $0.connections[c.id] = c } }
    func disconnected(_ c: ConnectionContext) { _ = state.withLock { $0.connections.removeValue(forKey: c.id) } }

    var lastSeq: Int64 { state.withLock { $0.seq } }

    func publish(topic: String, _ fields: JSONObject) {
        onPublish?()
        let (targets, seq): ([ConnectionContext], Int64) = state.withLock { s in
            s.seq += 1
            return (s.connections.values.filter { $0.subscribedTopics?.contains(topic) ?? false }, s.seq)
        }
        guard !targets.isEmpty else { return }
        let params = EventHead.params(topic: topic, seq: seq, fields)
        for c in targets { c.notify(method: "event", params: .object(params)) }
    }

    func recordsChanged(_ changes: [RecordChange]) {
        // A conflict made, pulled or resolved: its own topic too (contract §6.3).
        for c in changes where c.collection == .conflicts {
            publish(topic: "conflict.changed", ["id": .string(c.id), "sermonId": JSON(c.sermonId), "origin": .string(c.origin.rawValue)])
        }
        // A pulled page changes thousands of records; with nobody subscribed, only the numbering moves.
        let anyone = state.withLock { s in
            if s.connections.values.contains(where: { $0.subscribedTopics?.contains("record.changed") ?? false }) { return true }
            s.seq += Int64(changes.count)
            return false
        }
        guard anyone else { return }
        for c in changes {
            var event = RecordChangedEvent()
            event.collection = c.collection.rawValue
            event.id = c.id
            event.sermonId = c.sermonId
            event.op = c.op.rawValue
            event.origin = c.origin.rawValue
            publish(topic: EventTopic.recordChanged.rawValue, event.record)
        }
    }
}
