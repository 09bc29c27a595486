/// A passage both sides changed (contract §6.3): the merged text keeps both versions; resolving sets the field.
/// (`RecordMerge.Conflict` is what a merge reports; this is the record made of it.)
public struct Conflict: TypedRecord, Versioned {
    public static let collection = RecordCollection.conflicts

    public var id = ""
    /// The collection of the record whose text was merged: one with text fields (`RecordMerge.textFields`).
    public var collection = RecordCollection.sermons
    public var recordId = ""
    public var sermonId = ""
    /// The text field merged (`title`, `text`).
    public var field = ""
    public var base = ""
    public var local = ""
    public var remote = ""
    public var merged = ""
    public var state = State.open
    public var createdAt = ""
    public var resolvedAt: String?
    public var updatedAt = ""
    public var deletedAt: String?

    public init() {}

    public static let fields: [RecordField<Conflict>] = [
        .required("id", .uuid, \.id),
        .required("collection", .enumeration(RecordMerge.textFields.keys.map(\.rawValue).sorted()), \.collection),
        .required("recordId", .uuid, \.recordId),
        .required("sermonId", .uuid, \.sermonId),
        .required("field", .text, \.field),
        .required("base", .string, \.base),
        .required("local", .string, \.local),
        .required("remote", .string, \.remote),
        .required("merged", .string, \.merged),
        .required("state", State.fieldType, \.state),
        .required("createdAt", .time, \.createdAt),
        .nullable("resolvedAt", .time, \.resolvedAt),
        .required("updatedAt", .time, \.updatedAt),
        .nullable("deletedAt", .time, \.deletedAt),
    ]

    public enum State: String, FieldValue, CaseIterable {
        case open, resolved
    }
}

extension RecordCollection: FieldValue {}
