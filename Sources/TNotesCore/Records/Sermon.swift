/// A sermon (contract §2): its details, the state of its processing and its audio file.
public struct Sermon: TypedRecord, Versioned {
    public static let collection = RecordCollection.sermons

    public var id = ""
    public var title = ""
    /// When it was preached: a canonical RFC 3339 time.
    public var date = ""
    public var serviceType = "Sunday Service"
    public var speaker: String?
    public var isArchived = false
    public var transcriptionStatus = ProcessingStatus.pending
    public var summaryStatus = ProcessingStatus.pending
    public var audio: Audio?
    public var createdAt = ""
    public var updatedAt = ""
    public var deletedAt: String?
    /// The published sermon this one was copied from (`sermon.fork`, contract §8.5): `{url, publicId}` (a
    /// `ForkSource`, read leniently: the schema asks only for an object). Absent on others.
    public var forkedFrom: JSONObject?

    public init() {}

    public static let fields: [RecordField<Sermon>] = [
        .required("id", .uuid, \.id),
        .required("title", .string, \.title),
        .required("date", .time, \.date),
        .defaulted("serviceType", .string, \.serviceType),
        .nullable("speaker", .string, \.speaker),
        .defaulted("isArchived", .bool, \.isArchived),
        .defaulted("transcriptionStatus", ProcessingStatus.fieldType, \.transcriptionStatus),
        .defaulted("summaryStatus", ProcessingStatus.fieldType, \.summaryStatus),
        .nullable("audio", .audio, \.audio),
        .required("createdAt", .time, \.createdAt),
        .required("updatedAt", .time, \.updatedAt),
        .nullable("deletedAt", .time, \.deletedAt),
        .optional("forkedFrom", .object, \.forkedFrom),
    ]

    /// Where a forked sermon came from: the page's address and its public id.
    public struct ForkSource: RecordShape {
        public var url = ""
        public var publicId = ""

        public init() {}
        public init(url: String, publicId: String) {
            self.url = url
            self.publicId = publicId
        }

        public static let fields: [RecordField<ForkSource>] = [
            .required("url", .string, \.url),
            .required("publicId", .string, \.publicId),
        ]
    }

    /// A sermon's audio file, as the record holds it (`FieldType.audio` validates it). The file itself moves
    /// by the audio API, by its digest.
    public struct Audio: RecordShape {
        public var fileName = ""
        public var sizeBytes: Int64 = 0
        /// 64 lowercase hex digits.
        public var sha256 = ""

        public init() {}

        public static let fields: [RecordField<Audio>] = [
            .required("fileName", .text, \.fileName),
            .required("sizeBytes", .integer(min: 0, max: Int64.max), \.sizeBytes),
            .required("sha256", .string, \.sha256),
        ]
    }
}

/// Where a sermon's transcription or summary is (`transcriptionStatus`, `summaryStatus`), and a transcript's
/// or summary's own `status`.
public enum ProcessingStatus: String, FieldValue, CaseIterable {
    case pending, processing, complete, failed
}
