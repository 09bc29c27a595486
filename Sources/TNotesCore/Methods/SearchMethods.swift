/// `search.query`: full-text search, a `SearchPage` at a time.
public enum SearchQuery: SocketMethod {
    public static let name = "search.query"

    /// The kinds of hit a search can be narrowed to.
    public enum Kind: String, CaseIterable, Sendable, FieldValue {
        case sermon, note, transcript, summary
    }

    public struct Params: RecordShape {
        /// SQLite FTS5 syntax.
        public var q = ""
        /// Page size, default 20.
        public var limit: Int64?
        /// The `next` of the previous page.
        public var after: String??
        public var kinds: [Kind]?
        public var speaker: String?
        public var from: String?
        public var to: String?

        public init() {}
        public init(q: String) { self.q = q }

        public static let fields: [RecordField<Params>] = [
            .required("q", .text, \.q),
            .optional("limit", .integer(min: 1, max: 200), \.limit),
            .optional("after", .string, \.after, nullable: true),
            .optional("kinds", .arrayOf(Kind.fieldType), \.kinds),
            .optional("speaker", .string, \.speaker),
            .optional("from", .time, \.from),
            .optional("to", .time, \.to),
        ]
    }
}

/// `search.byReference`: every sermon that cites a passage (a `SearchPage` of `display` hits).
public enum SearchByReference: SocketMethod {
    public static let name = "search.byReference"

    public struct Params: RecordShape {
        /// A book name or abbreviation.
        public var book = ""
        public var chapter: Int64?
        /// Needs `chapter`.
        public var verse: Int64?
        /// Default 200.
        public var limit: Int64?

        public init() {}
        public init(book: String, chapter: Int64?, verse: Int64?) {
            self.book = book
            self.chapter = chapter
            self.verse = verse
        }

        public static let fields: [RecordField<Params>] = [
            .required("book", .text, \.book),
            .optional("chapter", .integer(min: 1, max: 150), \.chapter),
            .optional("verse", .integer(min: 1, max: 176), \.verse),
            .optional("limit", .integer(min: 1, max: 1000), \.limit),
        ]
    }
}

/// `scripture.text`: a passage from the installed SWORD modules (`PassageText`).
public enum ScriptureText: SocketMethod {
    public static let name = "scripture.text"

    public struct Params: RecordShape {
        /// As people write it: John 3:16-18.
        public var ref = ""
        /// KJV (the default) or WEB.
        public var translation: String?

        public init() {}
        public init(ref: String, translation: String?) {
            self.ref = ref
            self.translation = translation
        }

        public static let fields: [RecordField<Params>] = [
            .required("ref", .text, \.ref),
            .optional("translation", .string, \.translation),
        ]
    }
}
