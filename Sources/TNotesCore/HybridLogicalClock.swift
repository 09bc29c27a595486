/// A hybrid logical clock folded into millisecond timestamps.
///
/// Each local write gets `max(wall clock, last + 1 ms)`, and every version received from elsewhere
/// pushes `last` forward. So a device's stamps never go backwards (even when its wall clock does), and
/// an edit made after seeing another device's edit is stamped later than that edit, whatever the local
/// wall clock says. The logical counter is the millisecond itself, which keeps `updatedAt` a plain
/// RFC 3339 time on the wire.
public struct HybridLogicalClock: Sendable, Equatable {
    public private(set) var lastMillis: Int64

    public init(lastMillis: Int64 = 0) { self.lastMillis = lastMillis }

    /// Stamps a local event.
    public mutating func tick(wallMillis: Int64 = Timestamp.nowMillis()) -> Int64 {
        lastMillis = max(wallMillis, lastMillis + 1)
        return lastMillis
    }

    /// Takes note of a timestamp seen on a remote version.
    public mutating func receive(_ remoteMillis: Int64) {
        if remoteMillis > lastMillis { lastMillis = remoteMillis }
    }

    public mutating func receive(_ remote: String) {
        if let ms = Timestamp.parse(remote) { receive(ms) }
    }
}
