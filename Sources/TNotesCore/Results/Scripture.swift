/// A scripture reference a sermon cites (`sermon.get`'s `scriptureRefs`): `John 3:16-18`.
public struct ScriptureCitation: RecordShape {
    public var book = ""
    public var chapter: Int64 = 0
    public var verseStart: Int64?
    public var verseEnd: Int64?

    public init() {}

    public static let fields: [RecordField<ScriptureCitation>] = [
        .required("book", .string, \.book),
        .required("chapter", .integer(min: 1, max: 150), \.chapter),
        .optional("verseStart", .integer(min: 1, max: 176), \.verseStart),
        .optional("verseEnd", .integer(min: 1, max: 176), \.verseEnd),
    ]
}

/// `scripture.text`'s result: a passage's verses in one translation.
public struct PassageText: RecordShape {
    public var reference = ""
    public var translation = ""
    public var verses: [Verse] = []

    public init() {}

    public static let fields: [RecordField<PassageText>] = [
        .required("reference", .string, \.reference),
        .required("translation", .string, \.translation),
        .defaulted("verses", .arrayOf(.object), \.verses),
    ]

    public struct Verse: RecordShape {
        public var chapter: Int64 = 0
        public var verse: Int64 = 0
        public var text = ""

        public init() {}

        public init(chapter: Int64, verse: Int64, text: String) {
            self.chapter = chapter
            self.verse = verse
            self.text = text
        }

        public static let fields: [RecordField<Verse>] = [
            .required("chapter", .integer(min: 1, max: 150), \.chapter),
            .required("verse", .integer(min: 1, max: 176), \.verse),
            .required("text", .string, \.text),
        ]
    }
}
