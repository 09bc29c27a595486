/// `recording.start`: records from the sound server into a new or existing sermon (a `RecordingStatus`).
public enum RecordingStart: SocketMethod {
    public static let name = "recording.start"

    public struct Params: RecordShape {
        /// An existing sermon; absent: a new one.
        public var sermonId: String?
        /// The new sermon's title.
        public var title: String?
        public var speaker: String??
        public var serviceType: String?
        /// A PulseAudio source name; absent: the default source.
        public var source: String?

        public init() {}

        public static let fields: [RecordField<Params>] = [
            .same(as: Note.self, \.sermonId, optional: \.sermonId),
            .same(as: Sermon.self, \.title, optional: \.title),
            .same(as: Sermon.self, \.speaker, optional: \.speaker),
            .same(as: Sermon.self, \.serviceType, optional: \.serviceType),
            .optional("source", .string, \.source),
        ]
    }
}

/// `recording.pause`, `recording.resume`, `recording.stop` and `recording.status` (a `RecordingStatus`).
public enum RecordingPause: SocketMethod {
    public static let name = "recording.pause"
    public typealias Params = NoParams
}

public enum RecordingResume: SocketMethod {
    public static let name = "recording.resume"
    public typealias Params = NoParams
}

public enum RecordingStop: SocketMethod {
    public static let name = "recording.stop"
    public typealias Params = NoParams
}

public enum RecordingStatusMethod: SocketMethod {
    public static let name = "recording.status"
    public typealias Params = NoParams
}

/// `audio.sources`: the sound server's capture sources (`{items: [AudioSourceView]}`).
public enum AudioSources: SocketMethod {
    public static let name = "audio.sources"
    public typealias Params = NoParams
}

/// A recording as the `recording.*` methods answer and the `recording.state` event tells it; `{state: idle}`
/// when none is running.
public struct RecordingStatus: RecordShape {
    /// `idle`, `recording`, `paused` or `stopped`.
    public var state = "idle"
    public var sermonId: String?
    /// Null: the default source.
    public var source: String??
    public var startedAt: String?
    /// Seconds of audio recorded (a pause stops it).
    public var elapsed: Double?
    /// The last fragment's level, dBFS.
    public var level: Double?
    public var bytes: Int64?
    /// Why it stopped (`requested`, `max_duration`, `min_free_bytes`, `source_lost`, `write_failed`), in a
    /// code and in words.
    public var reason: String?
    public var message: String?
    /// `recording.stop`: the sermon with its audio attached, or why it could not be.
    public var sermon: JSON?
    public var error: String?

    public init() {}

    public static let fields: [RecordField<RecordingStatus>] = [
        .required("state", .enumeration(["idle", "recording", "paused", "stopped"]), \.state),
        .optional("sermonId", .uuid, \.sermonId),
        .optional("source", .string, \.source, nullable: true),
        .optional("startedAt", .time, \.startedAt),
        .optional("elapsed", .number(min: 0), \.elapsed),
        .optional("level", .number(min: -Double.greatestFiniteMagnitude), \.level),
        .optional("bytes", .integer(min: 0, max: Int64.max), \.bytes),
        .optional("reason", .string, \.reason),
        .optional("message", .string, \.message),
        .optional("sermon", .object, \.sermon),
        .optional("error", .string, \.error),
    ]
}

/// A `recording.level` event's members: about ten a second while recording.
public struct RecordingLevel: RecordShape {
    public var sermonId = ""
    public var level: Double = 0
    public var elapsed: Double = 0

    public init() {}

    public static let fields: [RecordField<RecordingLevel>] = [
        .same(as: Note.self, \.sermonId, \.sermonId),
        .same(as: RecordingStatus.self, \.level, \.level),
        .same(as: RecordingStatus.self, \.elapsed, \.elapsed),
    ]
}

/// A `transcript.partial` event's members: the live transcript's new segments.
public struct TranscriptPartial: RecordShape {
    public var sermonId = ""
    public var segments: [Transcript.Segment] = []

    public init() {}

    public static let fields: [RecordField<TranscriptPartial>] = [
        .same(as: Transcript.self, \.sermonId, \.sermonId),
        .same(as: Transcript.self, \.segments, \.segments),
    ]
}

/// A capture source, as `audio.sources` lists it.
public struct AudioSourceView: RecordShape {
    public var name = ""
    public var description = ""
    public var isDefault = false
    /// A sink's monitor (what is played), not a microphone.
    public var isMonitor = false

    public init() {}

    public static let fields: [RecordField<AudioSourceView>] = [
        .required("name", .string, \.name),
        .required("description", .string, \.description),
        .required("isDefault", .bool, \.isDefault),
        .defaulted("isMonitor", .bool, \.isMonitor),
    ]
}

/// `{items: [AudioSourceView]}`.
public struct AudioSourceList: RecordShape {
    public var items: [AudioSourceView] = []

    public init() {}

    public static let fields: [RecordField<AudioSourceList>] = [.defaulted("items", .arrayOf(.object), \.items)]
}
