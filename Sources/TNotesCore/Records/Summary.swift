/// A sermon's summary, written by a person or by an engine (at most one live per sermon).
public struct Summary: TypedRecord, Versioned {
    public static let collection = RecordCollection.summaries

    public var id = ""
    public var sermonId = ""
    public var title = ""
    public var text = ""
    public var type = Kind.devotional
    public var status = ProcessingStatus.complete
    /// The engine that wrote it ("builtin", "command"); `.some(nil)` (null) when a person set it (contract
    /// §6.1: an automatic summary never replaces a hand-set one); nil when absent, in a summary stored before
    /// the field existed (left absent, so that its body stays byte for byte what it was).
    public var generatedBy: String??
    public var updatedAt = ""
    public var deletedAt: String?

    public init() {}

    public static let fields: [RecordField<Summary>] = [
        .required("id", .uuid, \.id),
        .required("sermonId", .uuid, \.sermonId),
        .required("title", .string, \.title),
        .required("text", .string, \.text),
        .required("type", Kind.fieldType, \.type),
        .defaulted("status", ProcessingStatus.fieldType, \.status),
        .optional("generatedBy", .string, \.generatedBy, nullable: true),
        .required("updatedAt", .time, \.updatedAt),
        .nullable("deletedAt", .time, \.deletedAt),
    ]

    /// What kind of summary it is.
    public enum Kind: String, FieldValue, CaseIterable {
        case devotional, bullet, theological
    }
}
