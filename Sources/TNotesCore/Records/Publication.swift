/// A sermon's publication (contract §6.5; seed 004 done right). The record is the whole operation, queued
/// and sent as is: `snapshot` is a JSON object (never JSON text in a string), and an unpublish keeps
/// `publicId`, so it can run whenever it reaches the server.
public struct Publication: TypedRecord, Versioned {
    public static let collection = RecordCollection.publications

    public var id = ""
    public var sermonId = ""
    /// A readable slug, a dash and 16 hex digits (`PublicId`).
    public var publicId = ""
    public var parts: [Part] = Part.defaults
    public var published = false
    /// What the page shows (read it with `PublicationSnapshot(lenient:)`); null once unpublished. Kept as the
    /// object it is: any client can push one, and the schema asks only that it be an object.
    public var snapshot: JSONObject?
    public var publishedAt: String?
    public var updatedAt = ""
    public var deletedAt: String?
    /// What the page and the feed say of it (contract §8.5). Absent on publications made before.
    public var description: String?
    public var tags: [String]?
    /// A BCP 47 tag (`en`, `pt-BR`): the page's `lang`; absent means English.
    public var language: String?
    /// Others may copy the published parts into their own library (`sermon.fork`).
    public var canFork: Bool?

    public init() {}

    /// The language a page is in when the publication names none.
    public static let defaultLanguage = "en"

    /// A BCP 47 tag as far as a page needs it: letters, then subtags of letters and digits.
    public static func isLanguageTag(_ s: String) -> Bool {
        let subtags = s.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// At most this many tags, each at most `maxTagCharacters`; a description at most `maxDescriptionCharacters`.
    public static let maxTags = 20
    public static let maxTagCharacters = 50
    public static let maxDescriptionCharacters = 5_000

    public static let fields: [RecordField<Publication>] = [
        .required("id", .uuid, \.id),
        .required("sermonId", .uuid, \.sermonId),
        .required("publicId", .publicId, \.publicId),
        .defaulted("parts", .arrayOf(Part.fieldType), \.parts),
        .required("published", .bool, \.published),
        .nullable("snapshot", .object, \.snapshot),
        .nullable("publishedAt", .time, \.publishedAt),
        .required("updatedAt", .time, \.updatedAt),
        .nullable("deletedAt", .time, \.deletedAt),
        .optional("description", .string, \.description),
        .optional("tags", .arrayOf(.text), \.tags),
        .optional("language", .string, \.language),
        .optional("canFork", .bool, \.canFork),
    ]

    /// What may be published of a sermon. `audio`: the sermon's audio file, at `/p/{publicId}/audio` and as the
    /// feed's enclosure.
    public enum Part: String, FieldValue, CaseIterable {
        case notes, summary, transcript, audio

        /// Published when no parts are named.
        public static let defaults: [Part] = [.notes, .summary]
    }
}

/// What a publication shows, as `sermon.publish` takes it of a sermon: `{title, speaker, date, serviceType,
/// notes: [{timestamp, text}], summary: {title, text, type}|null, transcript: {text, segments}|null}` (a part
/// not published is null, notes empty). Written by a device; the server reads it leniently
/// (`LenientRecord<PublicationSnapshot>`), since any client can push any object as a snapshot.
public struct PublicationSnapshot: RecordShape {
    public var title = ""
    public var speaker: String?
    public var date: String?
    public var serviceType: String?
    public var notes: [NotePart] = []
    public var summary: SummaryPart?
    public var transcript: TranscriptPart?
    /// The sermon's audio file when the `audio` part is published (the bytes are served by the server).
    public var audio: Sermon.Audio?

    public init() {}

    public static let fields: [RecordField<PublicationSnapshot>] = [
        .required("title", .string, \.title),
        .nullable("speaker", .string, \.speaker),
        .nullable("date", .time, \.date),
        .nullable("serviceType", .string, \.serviceType),
        .required("notes", .arrayOf(.object), \.notes),
        .nullable("summary", .object, \.summary),
        .nullable("transcript", .object, \.transcript),
        .optional("audio", .audio, \.audio, nullable: true),
    ]

    /// A note as published: its time and text.
    public struct NotePart: RecordShape {
        public var timestamp: Double = 0
        public var text = ""

        public init() {}
        public init(timestamp: Double, text: String) {
            self.timestamp = timestamp
            self.text = text
        }

        public static let fields: [RecordField<NotePart>] = [
            .same(as: Note.self, \.timestamp, \.timestamp),
            .required("text", .string, \.text),
        ]
    }

    /// The summary as published. `type` is text: a snapshot shows what it was given.
    public struct SummaryPart: RecordShape {
        public var title = ""
        public var text = ""
        public var type = ""

        public init() {}
        public init(title: String, text: String, type: String) {
            self.title = title
            self.text = text
            self.type = type
        }

        public static let fields: [RecordField<SummaryPart>] = [
            .required("title", .string, \.title),
            .required("text", .string, \.text),
            .required("type", .string, \.type),
        ]
    }

    /// The transcript as published.
    public struct TranscriptPart: RecordShape {
        public var text = ""
        public var segments: [Transcript.Segment] = []

        public init() {}
        public init(text: String, segments: [Transcript.Segment]) {
            self.text = text
            self.segments = segments
        }

        public static let fields: [RecordField<TranscriptPart>] = [
            .required("text", .string, \.text),
            .required("segments", .segments, \.segments),
        ]
    }
}
