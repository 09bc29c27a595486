/// The 66 books of the Protestant canon and the lookup of their names.
public enum BibleBooks {
    /// The 66 books in canonical order with their chapter counts (1,189 chapters in all).
    public static let all: [(name: String, chapters: Int)] = [
        ("Genesis", 50), ("Exodus", 40), ("Leviticus", 27), ("Numbers", 36), ("Deuteronomy", 34),
        ("Joshua", 24), ("Judges", 21), ("Ruth", 4), ("1 Samuel", 31), ("2 Samuel", 24),
        ("1 Kings", 22), ("2 Kings", 25), ("1 Chronicles", 29), ("2 Chronicles", 36), ("Ezra", 10),
        ("Nehemiah", 13), ("Esther", 10), ("Job", 42), ("Psalms", 150), ("Proverbs", 31),
        ("Ecclesiastes", 12), ("Song of Solomon", 8), ("Isaiah", 66), ("Jeremiah", 52), ("Lamentations", 5),
        ("Ezekiel", 48), ("Daniel", 12), ("Hosea", 14), ("Joel", 3), ("Amos", 9),
        ("Obadiah", 1), ("Jonah", 4), ("Micah", 7), ("Nahum", 3), ("Habakkuk", 3),
        ("Zephaniah", 3), ("Haggai", 2), ("Zechariah", 14), ("Malachi", 4),
        ("Matthew", 28), ("Mark", 16), ("Luke", 24), ("John", 21), ("Acts", 28),
        ("Romans", 16), ("1 Corinthians", 16), ("2 Corinthians", 13), ("Galatians", 6), ("Ephesians", 6),
        ("Philippians", 4), ("Colossians", 4), ("1 Thessalonians", 5), ("2 Thessalonians", 3), ("1 Timothy", 6),
        ("2 Timothy", 4), ("Titus", 3), ("Philemon", 1), ("Hebrews", 13), ("James", 5),
        ("1 Peter", 5), ("2 Peter", 3), ("1 John", 5), ("2 John", 1), ("3 John", 1),
        ("Jude", 1), ("Revelation", 22),
    ]

    /// Canonical name for a book name or abbreviation, case-insensitive: "Jn", "Rom", "1 Cor", "1Cor",
    /// "I Corinthians", "First Corinthians", "1st Cor.", "Ps", "Psalm", "Song of Songs", "Canticles", "Rev",
    /// "Revelations", "the book of Job". nil if unknown, or if the text holds anything but the name.
    public static func canonicalName(_ text: String) -> String? {
        let tokens = ReferenceTokenizer.tokenize(text)
        guard !tokens.isEmpty else { return nil }
        let grammar = ReferenceGrammar(tokens: tokens, mode: .whole)
        guard let phrase = grammar.bookPhrase(at: 0), phrase.end == tokens.count else { return nil }
        return all[phrase.book].name
    }

    /// Number of chapters of a book given by any name `canonicalName` knows; nil if unknown.
    public static func chapterCount(of name: String) -> Int? {
        guard let canonical = canonicalName(name), let index = indexByName[canonical] else { return nil }
        return all[index].chapters
    }

    /// Position of a canonical name in `all` (0 = Genesis).
    static let indexByName: [String: Int] = {
        var map: [String: Int] = [:]
        for (index, book) in all.enumerated() { map[book.name] = index }
        return map
    }()
}
