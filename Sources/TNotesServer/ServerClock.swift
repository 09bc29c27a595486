import Synchronization
import TNotesCore

/// The server's own hybrid logical clock, for versions it makes itself (legacy endpoint writes, audio). It
/// advances past every version it receives, so a legacy edit made after a device's edit wins the merge.
///
/// It is shared by every user, so no user may drag it far ahead: a version stamped more than
/// `maxAheadMillis` past the server's wall clock is rejected at push (schemathesis-style input found this:
/// one change at 9999-12-31T23:59:59.999Z made every later legacy write of every user stamp the year
/// 10000 and fail validation, across restarts).
final class ServerClock: Sendable {
    /// How far ahead of the server's wall clock a device's clock may run: a day covers any real skew.
    static let maxAheadMillis: Int64 = 86_400_000

    private let clock: Mutex<HybridLogicalClock>

    init(startingAfter newest: String?) {
        var c = HybridLogicalClock()
        // A stored time past the bound (from before it existed) does not move the clock.
        if let newest, let millis = Timestamp.parse(newest), !Self.tooFarAhead(millis) { c.receive(millis) }
        clock = Mutex(c)
    }

    static func tooFarAhead(_ millis: Int64, now: Int64 = Timestamp.nowMillis()) -> Bool { millis > now + maxAheadMillis }

    /// Why `updatedAt` may not be accepted, or nil when it may.
    static func refusal(_ updatedAt: String) -> String? {
        guard let millis = Timestamp.parse(updatedAt), tooFarAhead(millis) else { return nil }
        return "is more than 24 hours ahead of the server's clock (\(Timestamp.now()))"
    }

    func tick() -> String { Timestamp.format(millis: clock.withLock { $0.tick() }) }
    func receive(_ updatedAt: String) {
        guard Self.refusal(updatedAt) == nil else { return }
        clock.withLock { $0.receive(updatedAt) }
    }
}
