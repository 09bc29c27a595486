/// A sermon's transcript: its text and the timed segments it was made of (at most one live per sermon).
public struct Transcript: TypedRecord, Versioned {
    public static let collection = RecordCollection.transcripts

    public var id = ""
    public var sermonId = ""
    public var text = ""
    public var status = ProcessingStatus.complete
    public var segments: [Segment] = []
    public var updatedAt = ""
    public var deletedAt: String?

    public init() {}

    public static let fields: [RecordField<Transcript>] = [
        .required("id", .uuid, \.id),
        .required("sermonId", .uuid, \.sermonId),
        .required("text", .string, \.text),
        .defaulted("status", ProcessingStatus.fieldType, \.status),
        .defaulted("segments", .segments, \.segments),
        .required("updatedAt", .time, \.updatedAt),
        .nullable("deletedAt", .time, \.deletedAt),
    ]

    /// A stretch of the audio and its words (`FieldType.segments` validates them: `end` not before `start`).
    /// Times stored before the bounds may hold any number, and one that ends before it starts; renderers
    /// show them as labels, never as a range.
    public struct Segment: RecordShape {
        public var start: Double = 0
        public var end: Double = 0
        public var text = ""
        /// Absent when unknown (an explicit null is dropped by the schema).
        public var speaker: String?

        public init() {}

        public init(start: Double, end: Double, text: String, speaker: String? = nil) {
            self.start = start
            self.end = end
            self.text = text
            self.speaker = speaker
        }

        public static let fields: [RecordField<Segment>] = [
            .required("start", .number(min: 0), \.start),
            .required("end", .number(min: 0), \.end),
            .required("text", .string, \.text),
            .optional("speaker", .string, \.speaker, nullable: true),
        ]
    }
}
