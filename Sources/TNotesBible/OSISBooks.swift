import TNotesScripture

/// Our canonical book names (`BibleBooks.all`) and their OSIS book identifiers.
///
/// Keys go to SWORD as OSIS references ("1Cor.13.4"), not as English names, for two reasons: SWORD's parser
/// reads names in the process's locale (LANG=de_DE would want "1. Korinther"), while OSIS identifiers parse
/// the same everywhere; and the key SWORD lands on can be read back as an OSIS reference, so checking that it
/// landed where we asked is an exact string comparison rather than a guess about SWORD's spelling of names
/// ("I Corinthians", "Revelation of John").
enum OSISBooks {
    /// In canonical order, one entry per book of `BibleBooks.all` (a test checks the two agree).
    static let pairs: [(name: String, osis: String)] = [
        ("Genesis", "Gen"), ("Exodus", "Exod"), ("Leviticus", "Lev"), ("Numbers", "Num"),
        ("Deuteronomy", "Deut"), ("Joshua", "Josh"), ("Judges", "Judg"), ("Ruth", "Ruth"),
        ("1 Samuel", "1Sam"), ("2 Samuel", "2Sam"), ("1 Kings", "1Kgs"), ("2 Kings", "2Kgs"),
        ("1 Chronicles", "1Chr"), ("2 Chronicles", "2Chr"), ("Ezra", "Ezra"), ("Nehemiah", "Neh"),
        ("Esther", "Esth"), ("Job", "Job"), ("Psalms", "Ps"), ("Proverbs", "Prov"),
        ("Ecclesiastes", "Eccl"), ("Song of Solomon", "Song"), ("Isaiah", "Isa"), ("Jeremiah", "Jer"),
        ("Lamentations", "Lam"), ("Ezekiel", "Ezek"), ("Daniel", "Dan"), ("Hosea", "Hos"),
        ("Joel", "Joel"), ("Amos", "Amos"), ("Obadiah", "Obad"), ("Jonah", "Jonah"),
        ("Micah", "Mic"), ("Nahum", "Nah"), ("Habakkuk", "Hab"), ("Zephaniah", "Zeph"),
        ("Haggai", "Hag"), ("Zechariah", "Zech"), ("Malachi", "Mal"),
        ("Matthew", "Matt"), ("Mark", "Mark"), ("Luke", "Luke"), ("John", "John"), ("Acts", "Acts"),
        ("Romans", "Rom"), ("1 Corinthians", "1Cor"), ("2 Corinthians", "2Cor"), ("Galatians", "Gal"),
        ("Ephesians", "Eph"), ("Philippians", "Phil"), ("Colossians", "Col"), ("1 Thessalonians", "1Thess"),
        ("2 Thessalonians", "2Thess"), ("1 Timothy", "1Tim"), ("2 Timothy", "2Tim"), ("Titus", "Titus"),
        ("Philemon", "Phlm"), ("Hebrews", "Heb"), ("James", "Jas"), ("1 Peter", "1Pet"), ("2 Peter", "2Pet"),
        ("1 John", "1John"), ("2 John", "2John"), ("3 John", "3John"), ("Jude", "Jude"), ("Revelation", "Rev"),
    ]

    static let osisByName: [String: String] = Dictionary(uniqueKeysWithValues: pairs.map { ($0.name, $0.osis) })

    /// The canonical name and OSIS identifier for a book name. Canonical names are looked up directly; anything
    /// else ("Ps", "I Corinthians") goes through `BibleBooks.canonicalName`, because `ScriptureReference` has a
    /// public initialiser and a caller may not have normalised the name.
    static func resolve(_ book: String) -> (name: String, osis: String)? {
        if let osis = osisByName[book] { return (book, osis) }
        guard let name = BibleBooks.canonicalName(book), let osis = osisByName[name] else { return nil }
        return (name, osis)
    }
}
