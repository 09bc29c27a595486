/// The topics of the daemon's event notifications (`events.subscribe`).
public enum EventTopic: String, CaseIterable, Sendable, FieldValue {
    case recordChanged = "record.changed"
    case syncState = "sync.state"
    case syncCompleted = "sync.completed"
    case syncProgress = "sync.progress"
    case conflictChanged = "conflict.changed"
    case jobChanged = "job.changed"
    case recordingState = "recording.state"
    case recordingLevel = "recording.level"
    case transcriptPartial = "transcript.partial"
    /// A sermon's audio coming down, arrived, failed, or evicted (contract §8.7).
    case audioProgress = "audio.progress"
}

/// What every event notification's params hold besides the event's own members: its topic and its number
/// (numbers are consecutive on a connection, so a gap shows a missed event).
public struct EventHead: RecordShape {
    public var topic = ""
    public var seq: Int64 = 0

    public init() {}

    public static let fields: [RecordField<EventHead>] = [
        .required("topic", .string, \.topic),
        .required("seq", .integer(min: 1, max: Int64.max), \.seq),
    ]

    /// `fields` with the head's members added.
    public static func params(topic: String, seq: Int64, _ fields: JSONObject) -> JSONObject {
        var params = fields
        params[name(\.topic)] = .string(topic)
        params[name(\.seq)] = .int(seq)
        return params
    }
}

extension LenientRecord where Record == EventHead {
    /// The event's own members: everything but the topic and the number.
    public var members: JSONObject {
        var o = object
        o[EventHead.name(\.topic)] = nil
        o[EventHead.name(\.seq)] = nil
        return o
    }
}

/// A `record.changed` event's members.
public struct RecordChangedEvent: RecordShape {
    public var collection = ""
    public var id = ""
    public var sermonId: String?
    /// `upsert` or `delete`.
    public var op = ""
    /// `local`, `remote` or `merge`.
    public var origin = ""

    public init() {}

    public static let fields: [RecordField<RecordChangedEvent>] = [
        .required("collection", .string, \.collection),
        .required("id", .uuid, \.id),
        .nullable("sermonId", .uuid, \.sermonId),
        .required("op", .string, \.op),
        .required("origin", .string, \.origin),
    ]
}

/// A JSON-RPC notification as a client receives it: `{jsonrpc, method, params}` (the daemon's events have
/// method `event` and an event's members as params).
public struct RPCNotification: RecordShape {
    public var method = ""
    public var params: JSON?

    public init() {}

    /// The method of the daemon's event notifications.
    public static let eventMethod = "event"

    public static let fields: [RecordField<RPCNotification>] = [
        .required("method", .string, \.method),
        .optional("params", .any, \.params),
    ]
}

/// A `job.changed` event: a job's state, or (with `kind` absent) only its progress while it runs.
public struct JobChangedEvent: RecordShape {
    public var id = ""
    public var state = ""
    public var kind: String?
    public var progress: Double?

    public init() {}

    public static let fields: [RecordField<JobChangedEvent>] = [
        .required("id", .uuid, \.id),
        .required("state", .string, \.state),
        .optional("kind", .string, \.kind),
        .optional("progress", .number(min: 0), \.progress),
    ]
}

/// An `audio.progress` event: a fetch of a sermon's audio under way (`fetching`, with the bytes so far), ended
/// (`done`, `failed`), or a local copy gone (`evicted`).
public struct AudioProgressEvent: RecordShape {
    public var sermonId = ""
    public var state = ""
    public var bytes: Int64 = 0
    /// The file's size, when the record gives one.
    public var total: Int64?

    public init() {}

    public static let fields: [RecordField<AudioProgressEvent>] = [
        .required("sermonId", .uuid, \.sermonId),
        .required("state", .string, \.state),
        .required("bytes", .integer(min: 0, max: Int64.max), \.bytes),
        .optional("total", .integer(min: 0, max: Int64.max), \.total),
    ]
}
