/// One earlier version of a record, as `history.list` gives it.
public struct HistoryVersion: RecordShape {
    /// When the version was written, and by which device.
    public var updatedAt = ""
    public var deviceId = ""
    /// The version's body, any collection's.
    public var record = JSONObject()
    public var replacedAt = ""
    /// `edit`, `delete`, `remote`, `merge` or `restore`.
    public var reason = ""

    public init() {}

    public static let fields: [RecordField<HistoryVersion>] = [
        .required("updatedAt", .time, \.updatedAt),
        .required("deviceId", .string, \.deviceId),
        .required("record", .object, \.record),
        .required("replacedAt", .time, \.replacedAt),
        .required("reason", .string, \.reason),
    ]
}

/// The few fields of any collection's record that tell one version apart (`tnotes history`).
public struct RecordGist: RecordShape {
    public var title: String?
    public var text: String?
    public var deletedAt: String?
    public var updatedAt: String?

    public init() {}

    public static let fields: [RecordField<RecordGist>] = [
        .optional("title", .string, \.title),
        .optional("text", .string, \.text),
        .optional("deletedAt", .time, \.deletedAt, nullable: true),
        .optional("updatedAt", .time, \.updatedAt),
    ]
}
