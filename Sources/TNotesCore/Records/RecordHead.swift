/// The members every synced collection's record has (a chat message has no `updatedAt` or `deletedAt`: it is
/// never changed), for code that works on any collection's record as JSON: merging, history, views.
public struct RecordHead: RecordShape {
    public var id = ""
    public var sermonId: String?
    public var createdAt: String?
    public var updatedAt = ""
    /// Null while the record lives; absent only in a chat message.
    public var deletedAt: String??
    /// A chat message's device (the others' come with their change).
    public var deviceId: String?

    public init() {}

    public static let fields: [RecordField<RecordHead>] = [
        .same(as: Note.self, \.id, \.id),
        .same(as: Note.self, \.sermonId, optional: \.sermonId),
        .same(as: Note.self, \.createdAt, optional: \.createdAt),
        .same(as: Note.self, \.updatedAt, \.updatedAt),
        .same(as: Note.self, \.deletedAt, optional: \.deletedAt),
        .same(as: ChatMessage.self, \.deviceId, optional: \.deviceId),
    ]
}
