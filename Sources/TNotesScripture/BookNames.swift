/// The names and abbreviations the parser recognises, and how much evidence each needs in free text.
///
/// Many book names are also English words or first names ("Mark my words", "a job well done", "I told john
/// three times"). In free text a book name followed by a single number is only taken as a reference when the
/// name is safe enough for that; otherwise the text must show more (see `ReferenceGrammar`).

/// What a book name needs, in free text, before "name + one number" counts as a reference.
enum NameTier: UInt8, Sendable {
    /// A name that is no English word or common first name ("Romans", "Psalm", "Genesis"): any case will do.
    case any
    /// A common word or first name ("John", "Mark", "Job", "Acts", "Numbers") or an abbreviation ("Rom",
    /// "Jn"): only when written with a capital ("Job 3", "Rom 8"), never in lower case ("job 3", "rom 8").
    case capitalised
    /// An abbreviation that is itself a common word ("Is", "Am", "Col", "Rev", "Song", "Phil"): only with a
    /// capital, and even then never with a single number; it needs chapter:verse, the word chapter/verse, two
    /// numbers or "the book of" ("Is 53:5" yes; "the score is 3:1" no).
    case strong
}

/// A recognised name: which book (index into `BibleBooks.all`) and how trustworthy the name is.
struct BookName: Sendable {
    let book: Int
    let tier: NameTier
    /// Abbreviations may be followed by "." ("Rom. 8"), and count as capitalised only in mixed case ("Ps", not
    /// "PS"): an all-capitals two-letter word is more often an acronym than a book.
    let abbreviation: Bool
}

/// A base name of a numbered book ("Corinthians", "Cor", "John"): the books for the prefixes 1, 2 and 3.
struct NumberedBookName: Sendable {
    let books: [Int?]
    let tier: NameTier
    let abbreviation: Bool
}

enum BookNames {
    /// Unnumbered books: full names (lower case, words separated by one space) and abbreviations.
    private static let table: [(book: String, names: Spellings, abbreviations: Spellings)] = [
        ("Genesis", "genesis", ["gen", "gn"]),
        ("Exodus", "exodus", ["exod", "exo", "ex"]),
        ("Leviticus", "leviticus", ["lev", "lv"]),
        ("Numbers", "numbers", ["num", "numb"]),
        ("Deuteronomy", "deuteronomy", ["deut", "deu", "dt"]),
        ("Joshua", "joshua", ["josh", "jos", "jsh"]),
        ("Judges", "judges", ["judg", "jdg", "jdgs"]),
        ("Ruth", "ruth", "rth"),
        ("Ezra", "ezra", "ezr"),
        ("Nehemiah", "nehemiah", "neh"),
        ("Esther", "esther", ["esth", "est"]),
        ("Job", "job", "jb"),
        ("Psalms", ["psalms", "psalm"], ["ps", "psa", "pss", "psm", "pslm"]),
        ("Proverbs", "proverbs", ["prov", "prv", "pro"]),
        ("Ecclesiastes", ["ecclesiastes", "qoheleth"], ["eccl", "eccles", "eccle", "ecc", "qoh"]),
        ("Song of Solomon", ["song of solomon", "song of songs", "canticles", "canticle of canticles"],
         ["song of sol", "song", "sos", "cant"]),
        ("Isaiah", "isaiah", ["isa", "is"]),
        ("Jeremiah", "jeremiah", "jer"),
        ("Lamentations", "lamentations", "lam"),
        ("Ezekiel", "ezekiel", ["ezek", "eze", "ezk"]),
        ("Daniel", "daniel", ["dan", "dn"]),
        ("Hosea", "hosea", "hos"),
        ("Joel", "joel", "jl"),
        ("Amos", "amos", "am"),
        ("Obadiah", "obadiah", ["obad", "oba", "ob"]),
        ("Jonah", "jonah", ["jnh", "jon"]),
        ("Micah", "micah", "mic"),
        ("Nahum", "nahum", "nah"),
        ("Habakkuk", "habakkuk", "hab"),
        ("Zephaniah", "zephaniah", ["zeph", "zep"]),
        ("Haggai", "haggai", ["hag", "hg"]),
        ("Zechariah", "zechariah", ["zech", "zec"]),
        ("Malachi", "malachi", "mal"),
        ("Matthew", "matthew", ["matt", "mat", "mt"]),
        ("Mark", "mark", ["mk", "mrk", "mar"]),
        ("Luke", "luke", ["lk", "luk"]),
        ("John", "john", ["jn", "jhn", "joh"]),
        ("Acts", ["acts", "acts of the apostles"], ["act", "ac"]),
        ("Romans", "romans", ["rom", "rm", "ro"]),
        ("Galatians", "galatians", "gal"),
        ("Ephesians", "ephesians", ["eph", "ephes"]),
        ("Philippians", "philippians", ["phil", "php"]),
        ("Colossians", "colossians", "col"),
        ("Titus", "titus", "tit"),
        ("Philemon", "philemon", ["philem", "phlm", "phm", "phile"]),
        ("Hebrews", "hebrews", "heb"),
        ("James", "james", ["jas", "jm"]),
        ("Jude", "jude", "jud"),
        ("Revelation", ["revelation", "revelations", "apocalypse"], ["rev", "rv"]),
    ]

    /// Numbered books: base names and abbreviations, then the canonical names for prefix 1, 2, 3.
    private static let numberedTable: [(names: Spellings, abbreviations: Spellings, books: [String?])] = [
        ("samuel", ["sam", "sm", "sa"], ["1 Samuel", "2 Samuel", nil]),
        ("kings", ["kgs", "ki", "kin"], ["1 Kings", "2 Kings", nil]),
        ("chronicles", ["chron", "chr", "chro"], ["1 Chronicles", "2 Chronicles", nil]),
        ("corinthians", ["cor", "co"], ["1 Corinthians", "2 Corinthians", nil]),
        ("thessalonians", ["thess", "thes", "ths", "th"], ["1 Thessalonians", "2 Thessalonians", nil]),
        ("timothy", ["tim", "ti"], ["1 Timothy", "2 Timothy", nil]),
        ("peter", ["pet", "pt", "pe"], ["1 Peter", "2 Peter", nil]),
        ("john", ["jn", "jhn", "joh", "jo"], ["1 John", "2 John", "3 John"]),
    ]

    /// Full names that are also common English words or first names: a capital is needed in free text.
    private static let wordLikeNames: Set<String> = [
        "numbers", "joshua", "judges", "ruth", "ezra", "esther", "job", "lamentations", "daniel", "joel", "amos",
        "jonah", "micah", "matthew", "mark", "luke", "john", "acts", "titus", "james", "jude", "revelation",
        "revelations", "apocalypse",
        // numbered bases whose bare word is a name or a word ("the first john I met", "2 kings 3 queens")
        "samuel", "kings", "peter", "timothy",
    ]

    /// Abbreviations that are English words, names or other common abbreviations ("Mt" = mount, "Rev" =
    /// revision, "Col" = colonel, "Ex" = former): never enough with a single number.
    private static let wordLikeAbbreviations: Set<String> = [
        "ex", "exo", "num", "numb", "jos", "est", "pro", "song", "cant", "is", "lam", "am", "ob", "jon",
        "mic", "nah", "hag", "mat", "mt", "mar", "act", "ac", "ro", "gal", "phil", "php", "col", "tit", "jud",
        "rev", "sos", "jo", "sa", "ti", "pe", "co", "th", "kin", "phile",
    ]

    /// Unnumbered names by their first word; for each first word the longest name comes first, so that
    /// "Song of Songs 2" is not read as "Song" followed by junk.
    static let byFirstWord: [String: [(rest: [String], name: BookName)]] = {
        var map: [String: [(rest: [String], name: BookName)]] = [:]
        for entry in table {
            guard let book = BibleBooks.indexByName[entry.book] else { preconditionFailure("unknown book \(entry.book)") }
            for (spellings, abbreviation) in [(entry.names, false), (entry.abbreviations, true)] {
                for spelling in spellings.all {
                    let words = spelling.split(separator: " ").map(String.init)
                    let name = BookName(book: book, tier: tier(of: spelling, abbreviation: abbreviation),
                                        abbreviation: abbreviation)
                    map[words[0], default: []].append((Array(words.dropFirst()), name))
                }
            }
        }
        for key in map.keys { map[key]?.sort { $0.rest.count > $1.rest.count } }
        return map
    }()

    /// Numbered books by base word ("cor" → 1/2 Corinthians).
    static let numbered: [String: NumberedBookName] = {
        var map: [String: NumberedBookName] = [:]
        for entry in numberedTable {
            let books = entry.books.map { name in name.flatMap { BibleBooks.indexByName[$0] } }
            for (spellings, abbreviation) in [(entry.names, false), (entry.abbreviations, true)] {
                for spelling in spellings.all {
                    map[spelling] = NumberedBookName(books: books, tier: tier(of: spelling, abbreviation: abbreviation),
                                                     abbreviation: abbreviation)
                }
            }
        }
        return map
    }()

    private static func tier(of spelling: String, abbreviation: Bool) -> NameTier {
        if wordLikeAbbreviations.contains(spelling) && abbreviation { return .strong }
        if abbreviation || wordLikeNames.contains(spelling) { return .capitalised }
        return .any
    }

    /// Ordinal prefixes of numbered books, spelled out.
    static let ordinalWords: [String: Int] = ["first": 1, "second": 2, "third": 3]
    /// Roman-numeral prefixes ("I Corinthians", "II Kings").
    static let romanPrefixes: [String: Int] = ["i": 1, "ii": 2, "iii": 3]
    /// Suffixes after a prefix digit ("1st", "2nd", "3rd").
    static let ordinalSuffixes: [Int: String] = [1: "st", 2: "nd", 3: "rd"]

    /// Every word a book phrase can start with: "the" and the other introducers' first words, ordinal and
    /// roman prefixes, and the first word of every unnumbered name (a numbered base only follows a prefix).
    /// Any other word starts no reference, and `ScriptureReferences.find` skips it with this one lookup.
    static let phraseStarters: Set<String> = {
        var words: Set<String> = ["the"]
        words.formUnion(introducers.map { $0[0] })
        words.formUnion(ordinalWords.keys)
        words.formUnion(romanPrefixes.keys)
        words.formUnion(byFirstWord.keys)
        return words
    }()

    /// Every word a book name is found by: the first words of unnumbered names and the bases of numbered ones
    /// (`ReferenceGrammar.bookName` reads a book from one of these and from nothing else).
    static let bookWords: Set<String> = Set(byFirstWord.keys).union(numbered.keys)

    /// The book words of up to 8 letters, each as its bytes in one integer (`packed`), sorted: the pre-scan
    /// (`ScriptureReferences.mentionsBook`) looks a word up by a binary search of integers. Making a `String`
    /// of each candidate word and hashing it into `bookWords` was two thirds of the pre-scan, and the pre-scan
    /// 6 % of the pulling device's CPU in a 1× sync.
    static let packedShortBookWords: [UInt64] = bookWords.compactMap { word in
        word.utf8.count <= 8 ? packed(Array(word.utf8)[...]) : nil
    }.sorted()

    /// Up to 8 bytes, the first in the lowest byte; letters are never 0, so words of different lengths differ.
    @inline(__always)
    static func packed(_ bytes: some Collection<UInt8>) -> UInt64 {
        var key: UInt64 = 0
        var shift: UInt64 = 0
        for b in bytes {
            key |= UInt64(b) << shift
            shift += 8
        }
        return key
    }

    /// Whether `key` (`packed` of a lowercase word of up to 8 letters) is a book word.
    static func isShortBookWord(_ key: UInt64) -> Bool {
        let words = packedShortBookWords
        var lo = 0, hi = words.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if words[mid] == key { return true }
            if words[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return false
    }

    /// For each letter a...z, bit n set when some book word of n letters starts with it: most words of a
    /// note are ruled out by this before a look-up (`isShortBookWord`, or `bookWords` above 8 letters).
    static let bookWordLengths: [UInt16] = {
        var masks = [UInt16](repeating: 0, count: 26)
        for word in bookWords {
            let first = word.utf8.first!
            precondition(first >= 0x61 && first <= 0x7A && word.utf8.count <= 15, "book word \(word)")
            masks[Int(first - 0x61)] |= 1 << word.utf8.count
        }
        return masks
    }()

    /// Words that introduce a book and so make the reference unambiguous: "the book of Job 3",
    /// "the gospel of John chapter three".
    static let introducers: [[String]] = [
        ["book", "of"], ["gospel", "according", "to"], ["gospel", "of"],
        ["epistle", "to", "the"], ["epistle", "of"], ["letter", "to", "the"], ["letter", "of"],
    ]
}

/// A table row's spellings: one written as a plain string, several as a list.
struct Spellings: ExpressibleByStringLiteral, ExpressibleByArrayLiteral, Sendable {
    let all: [String]

    init(stringLiteral value: String) { all = [value] }
    init(arrayLiteral elements: String...) { all = elements }
}
