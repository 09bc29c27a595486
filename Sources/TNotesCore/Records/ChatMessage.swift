/// A question about a sermon or the assistant's answer. Append-only: inserted when absent, never changed.
public struct ChatMessage: TypedRecord {
    public static let collection = RecordCollection.chatMessages

    public var id = ""
    public var sermonId = ""
    public var role = Role.user
    public var content = ""
    public var createdAt = ""
    /// The device that wrote it: part of the order every device lists chat in.
    public var deviceId = ""

    public init() {}

    public static let fields: [RecordField<ChatMessage>] = [
        .required("id", .uuid, \.id),
        .required("sermonId", .uuid, \.sermonId),
        .required("role", Role.fieldType, \.role),
        .required("content", .string, \.content),
        .required("createdAt", .time, \.createdAt),
        .required("deviceId", .text, \.deviceId),
    ]

    public enum Role: String, FieldValue, CaseIterable {
        case user, assistant
    }
}
