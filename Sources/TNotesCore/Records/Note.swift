/// A listener's note on a sermon, at a place in its audio.
public struct Note: TypedRecord, Versioned {
    public static let collection = RecordCollection.notes

    public var id = ""
    public var sermonId = ""
    public var text = ""
    /// Seconds into the sermon's audio. Written within `ValueBounds` ([0, 604800]); one stored before the
    /// bounds may hold any finite number ≥ 0, so it is shown through `ClockTime`, which is total.
    public var timestamp: Double = 0
    public var createdAt = ""
    public var updatedAt = ""
    public var deletedAt: String?

    public init() {}

    public static let fields: [RecordField<Note>] = [
        .required("id", .uuid, \.id),
        .required("sermonId", .uuid, \.sermonId),
        .required("text", .string, \.text),
        .required("timestamp", .number(min: 0), \.timestamp),
        .required("createdAt", .time, \.createdAt),
        .required("updatedAt", .time, \.updatedAt),
        .nullable("deletedAt", .time, \.deletedAt),
    ]
}
