/// One normalised Bible reference: a whole chapter, one verse, or a run of verses inside one chapter.
///
/// Ranges that cross a chapter boundary ("John 3:16-4:2") are not representable here, on purpose: a reference
/// is the unit notes are indexed by, and splitting such a range exactly would need a verse-count table for all
/// 1,189 chapters. The parser keeps the start ("John 3:16", `verseEnd == nil`) and reports the end in
/// `ScriptureMatch.spanEnd`. A range of whole chapters ("John 3-4") is split into one reference per chapter,
/// which is exact.
public struct ScriptureReference: Hashable, Sendable {
    /// Canonical English name from `BibleBooks.all` ("Genesis", "Psalms", "Song of Solomon", "1 Corinthians").
    public let book: String
    public let chapter: Int
    /// nil = the whole chapter.
    public let verseStart: Int?
    /// nil unless a run of verses; a single verse has `verseEnd == nil` (never `verseEnd == verseStart`).
    public let verseEnd: Int?

    public init(book: String, chapter: Int, verseStart: Int? = nil, verseEnd: Int? = nil) {
        self.book = book
        self.chapter = chapter
        self.verseStart = verseStart
        self.verseEnd = verseEnd
    }

    /// "Romans 8:1-4", "1 Corinthians 13", "Psalms 23:1", "Jude 1:3" (single-chapter books keep the chapter).
    public var display: String {
        var text = "\(book) \(chapter)"
        if let verseStart {
            text += ":\(verseStart)"
            if let verseEnd { text += "-\(verseEnd)" }
        }
        return text
    }
}

extension ScriptureReference: CustomStringConvertible {
    public var description: String { display }
}

/// A chapter and verse, used for the far end of a range that crosses chapters.
public struct ChapterAndVerse: Hashable, Sendable {
    public let chapter: Int
    public let verse: Int

    public init(chapter: Int, verse: Int) {
        self.chapter = chapter
        self.verse = verse
    }
}

/// A reference found in free text, with where it was found.
public struct ScriptureMatch: Sendable {
    public let reference: ScriptureReference
    /// The text that produced this reference. For the first reference of a written group it starts at the book
    /// name ("Ps 23:1"); later items of a list cover only their own numbers ("4" in "Ps 23:1,4"). The pieces of a
    /// split chapter range ("John 3-4") share the range of the whole group.
    public let range: Range<String.Index>
    /// True when the group was written as speech-to-text writes it: numbers in words ("john three sixteen") or
    /// the words chapter / verse / through / to / and. "romans 8" is indistinguishable from writing: false.
    public let spoken: Bool
    /// The end of a range that crosses chapters ("John 3:16-4:2" → 4:2); nil otherwise. See `ScriptureReference`.
    public let spanEnd: ChapterAndVerse?

    public init(reference: ScriptureReference, range: Range<String.Index>, spoken: Bool, spanEnd: ChapterAndVerse? = nil) {
        self.reference = reference
        self.range = range
        self.spoken = spoken
        self.spanEnd = spanEnd
    }
}
