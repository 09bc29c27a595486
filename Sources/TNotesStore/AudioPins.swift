import Synchronization

/// Sermons whose local audio something reads now (a transcription): the audio cache never evicts them.
/// Shared by the processing worker, which pins, and the sync engine's transfers, which evict; a lock, not an
/// actor, so that a pin is in place before the pinning code's next await.
public final class AudioPins: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    public init() {}

    public func pin(_ sermonId: String) {
        counts.withLock { $0[sermonId, default: 0] += 1 }
    }

    public func unpin(_ sermonId: String) {
        counts.withLock { c in
            guard let n = c[sermonId] else { return }
            c[sermonId] = n > 1 ? n - 1 : nil
        }
    }

    public func isPinned(_ sermonId: String) -> Bool {
        counts.withLock { $0[sermonId] != nil }
    }
}
