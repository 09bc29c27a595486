/// A hit of `search.query` or `search.byReference`.
public struct SearchItem: RecordShape {
    public var sermonId = ""
    /// `sermon`, `note`, `transcript`, `summary`, `chat` (and `title` for a reference).
    public var kind = ""
    public var recordId: String?
    /// `search.query`: the matching text with `**match**` markers.
    public var snippet: String?
    /// `search.byReference`: the reference as the text wrote it.
    public var display: String?
    /// Seconds into the audio: a transcript segment's start…
    public var start: Double?
    /// …or a note's place (the note's own field, under its own name).
    public var timestamp: Double?
    public var rank: Double?
    /// `search.byReference`: the reference as a `ScriptureCitation`.
    public var ref: JSON?

    public init() {}

    /// Where in the audio the hit is, whichever of the two it has.
    public var at: Double? { start ?? timestamp }

    /// Sets where in the audio the hit is, under the name its kind's record gives it (a note's `timestamp`,
    /// a transcript segment's `start`).
    public mutating func place(at seconds: Double?, note: Bool) {
        if note { timestamp = seconds } else { start = seconds }
    }

    public static let fields: [RecordField<SearchItem>] = [
        .required("sermonId", .uuid, \.sermonId),
        .required("kind", .string, \.kind),
        .optional("recordId", .uuid, \.recordId),
        .optional("snippet", .string, \.snippet),
        .optional("display", .string, \.display),
        .optional("start", .number(min: 0), \.start),
        .same(as: Note.self, \.timestamp, optional: \.timestamp),
        .optional("rank", .number(min: -Double.greatestFiniteMagnitude), \.rank),
        .optional("ref", .object, \.ref),
    ]
}

/// A page of search hits.
public struct SearchPage: RecordShape {
    public var items: [SearchItem] = []
    /// `search.query`: the cursor of the next page (null after the last).
    public var next: String??

    public init() {}

    public static let fields: [RecordField<SearchPage>] = [
        .defaulted("items", .arrayOf(.object), \.items),
        .optional("next", .string, \.next, nullable: true),
    ]
}
