import Synchronization
import TNotesCore

/// The server's own hybrid logical clock, for versions it makes itself (legacy endpoint writes). It
/// advances past every version it receives, so a legacy edit made after a device's edit wins the merge.
final class ServerClock: Sendable {
    private let clock: Mutex<HybridLogicalClock>

    init(startingAfter newest: String?) {
        var c = HybridLogicalClock()
        if let newest { c.receive(newest) }
        clock = Mutex(c)
    }

    func tick() -> String { Timestamp.format(millis: clock.withLock { $0.tick() }) }
    func receive(_ updatedAt: String) { clock.withLock { $0.receive(updatedAt) } }
}
