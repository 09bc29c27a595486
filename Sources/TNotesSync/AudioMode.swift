/// `[sync] audio` (contract §8.7): which sermons' audio this device downloads.
public enum AudioMode: String, Sendable, CaseIterable {
    /// Every sermon's audio, as soon as the server has it.
    case always
    /// None by itself: `audio.fetch`, or a transcription that needs it.
    case onDemand = "on-demand"
    /// None at all (this device's own recordings still go up).
    case never
}

/// How a device keeps sermon audio: the mode, and the cache's budget.
public struct AudioSettings: Sendable, Equatable {
    public var mode: AudioMode
    /// `[sync] audio_cache_bytes`: at most this much local audio that the server holds (nil: no cap). Copies
    /// not yet uploaded are never evicted, so they may keep the total above it.
    public var cacheBytes: Int64?

    public init(mode: AudioMode = .always, cacheBytes: Int64? = nil) {
        self.mode = mode
        self.cacheBytes = cacheBytes
    }
}

/// Why a fetch or an eviction of a sermon's audio did not happen.
public enum AudioCacheError: Error, CustomStringConvertible, Sendable {
    /// `[sync] audio = "never"`.
    case downloadsOff
    /// The sermon's record names no audio (or there is no such live sermon).
    case noAudio(String)
    /// The file does not fit in `audio_cache_bytes`, even with every evictable copy gone.
    case noRoom(size: Int64, room: Int64, budget: Int64)
    /// An automatic fetch on a metered connection waits (a fetch asked for by hand goes on).
    case metered
    /// The only copy: the server does not hold it yet.
    case notUploaded(String)
    /// A transcription reads it now.
    case inUse(String)
    /// This device holds other audio of the sermon that the server does not have: a fetch would replace it.
    case otherAudioNotUploaded(String)
    /// The sermon's record named other audio by the time the download ended.
    case changed(String)

    public var description: String {
        switch self {
        case .downloadsOff: return "this device never downloads audio ([sync] audio = \"never\")"
        case .noAudio(let id): return "sermon \(id) has no audio"
        case .noRoom(let size, let room, let budget):
            return "the audio (\(size) bytes) does not fit in the audio cache: \(room) of its \(budget) bytes ([sync] audio_cache_bytes) "
                + "can be freed; the rest is audio not yet uploaded or in use"
        case .metered: return "the connection is metered: automatic audio downloads wait ([sync] audio_on_metered)"
        case .notUploaded(let id): return "the audio of sermon \(id) is not on the server yet; this is its only copy"
        case .inUse(let id): return "the audio of sermon \(id) is being read (a transcription); try again when it ends"
        case .otherAudioNotUploaded(let id):
            return "this device holds other audio of sermon \(id), never uploaded, that the sermon no longer names; it is kept, "
                + "and a fetch would replace it (tnotes export --audio copies it out)"
        case .changed(let id): return "the audio of sermon \(id) changed while it was fetched; fetch it again"
        }
    }
}
