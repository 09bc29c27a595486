/// The version of a record: ordered by `(updatedAt, deviceId)`. The greater version wins everywhere
/// (daemon and server); a tombstone is a version like any other.
public struct RecordVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let updatedAt: String
    public let deviceId: String

    public init(updatedAt: String, deviceId: String) {
        self.updatedAt = updatedAt
        self.deviceId = deviceId
    }

    public static func < (a: RecordVersion, b: RecordVersion) -> Bool {
        // Canonical times have a fixed width, so string order is time order.
        (a.updatedAt, a.deviceId) < (b.updatedAt, b.deviceId)
    }

    public var description: String { "\(updatedAt)@\(deviceId)" }
}

public enum MergeOutcome: String, Sendable {
    /// The incoming version replaced (or created) the record.
    case applied
    /// The same version was already there.
    case duplicate
    /// The stored version is greater; the incoming one loses.
    case superseded
}

public enum MergeRule {
    /// Decides what happens when `incoming` meets `existing` (nil when the record is absent).
    /// Append-only collections never change a record that exists.
    public static func decide(existing: RecordVersion?, incoming: RecordVersion, appendOnly: Bool) -> MergeOutcome {
        guard let existing else { return .applied }
        if appendOnly { return .duplicate }
        if incoming == existing { return .duplicate }
        return incoming > existing ? .applied : .superseded
    }
}
