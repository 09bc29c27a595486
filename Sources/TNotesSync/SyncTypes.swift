import TNotesCore

// The values the sync engine reports and is driven by: what started a sync, what one did, where the engine stands.

public enum SyncTrigger: String, Sendable, CaseIterable {
    case startup, periodic, localChange, network, manual, realtime
    /// The machine woke up (logind's PrepareForSleep(false), contract §8.4).
    case resume
}

public struct SyncReport: Sendable, Equatable {
    public var pushed = 0
    public var pulled = 0
    /// Changes the pulls received, applied or not (a version already held, this device's own change
    /// pulled back): `pulled` is the part that changed something.
    public var downloaded = 0
    public var conflicts = 0
    public var rejected = 0
    public var durationMs = 0
    /// Deletions a held pull did not make (0: nothing held).
    public var held = 0

    public var json: JSON {
        ["pushed": .int(Int64(pushed)), "pulled": .int(Int64(pulled)), "downloaded": .int(Int64(downloaded)),
         "conflicts": .int(Int64(conflicts)),
         "rejected": .int(Int64(rejected)), "durationMs": .int(Int64(durationMs)), "held": .int(Int64(held))]
    }
}

public enum SyncState: String, Sendable {
    /// `held`: a pull would have deleted more than half of this device's live records; nothing more is
    /// pulled until `sync.confirm` (contract §6.3). `revoked`: the server revoked this device's token; nothing
    /// is retried until it is paired again (`sync.login`) or a sync is asked for by hand (contract §8.6).
    case idle, syncing, backoff, offline, held, revoked
}
