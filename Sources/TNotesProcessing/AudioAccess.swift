import TNotesStore

/// How a transcription gets at audio this device does not hold (audio on demand, contract §8.7). The daemon
/// makes one over its sync engine; without one, only a device holding the audio transcribes.
public struct AudioAccess: Sendable {
    /// Pinned while a transcription reads the file: the audio cache leaves it alone.
    public let pins: AudioPins
    /// Whether a fetch could bring audio here now (sync is set up, and `[sync] audio` is not "never").
    public let canFetch: @Sendable () -> Bool
    /// Brings the sermon's audio here, or marks the copy already here as used. `byHand`: the transcription was
    /// asked for (it fetches on a metered connection too). Throws `PermanentJobError` when it never can.
    public let fetch: @Sendable (_ sermonId: String, _ byHand: Bool) async throws -> Void

    public init(pins: AudioPins, canFetch: @escaping @Sendable () -> Bool,
                fetch: @escaping @Sendable (_ sermonId: String, _ byHand: Bool) async throws -> Void) {
        self.pins = pins
        self.canFetch = canFetch
        self.fetch = fetch
    }
}
