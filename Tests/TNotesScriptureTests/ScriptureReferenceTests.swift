import Foundation
import Testing
@testable import TNotesScripture

/// Table-driven tests of the scripture reference parser, and a cross-check of its written forms against an
/// independent parser (pythonbible, through scripts/cross-check-refs.py).
///
/// Expected references are written as `key(_:)` renders them: `ScriptureReference.display`, plus "→c:v" for
/// the far end of a range across chapters; several references are separated by "; ", none is "".
@Suite("scripture: reference parser")
struct ScriptureReferenceTests {
    // MARK: Case tables

    /// Written forms: found by `find(in:)`, and cross-checked against pythonbible.
    static let writtenCases: [(text: String, expected: String)] = [
        ("John 3:16", "John 3:16"),
        ("Jn 3:16", "John 3:16"),
        ("Rom 8:1-4", "Romans 8:1-4"),
        ("Rom. 8:1–4", "Romans 8:1-4"),
        ("Rom 8:1—4", "Romans 8:1-4"),
        ("1 Corinthians 13", "1 Corinthians 13"),
        ("1 Cor 13:4", "1 Corinthians 13:4"),
        ("1Cor 13:4", "1 Corinthians 13:4"),
        ("I Corinthians 13", "1 Corinthians 13"),
        ("First Corinthians 13", "1 Corinthians 13"),
        ("1st Corinthians 13", "1 Corinthians 13"),
        ("Ps 23:1,4", "Psalms 23:1; Psalms 23:4"),
        ("Psalm 23", "Psalms 23"),
        ("Psalms 23:1-3", "Psalms 23:1-3"),
        ("Ps. 119:105", "Psalms 119:105"),
        ("Psalm 119:176", "Psalms 119:176"),
        ("Song of Songs 2:4", "Song of Solomon 2:4"),
        ("Song of Solomon 2", "Song of Solomon 2"),
        ("Canticles 2", "Song of Solomon 2"),
        ("Gen 1:1", "Genesis 1:1"),
        ("Gen. 1:1", "Genesis 1:1"),
        ("Genesis 1:1-2:3", "Genesis 1:1→2:3"),
        ("Rev 21:4", "Revelation 21:4"),
        ("Revelation 21:4", "Revelation 21:4"),
        ("Revelations 21:4", "Revelation 21:4"),
        ("John 3:16-18", "John 3:16-18"),
        ("John 3.16", "John 3:16"),
        ("JOHN 3:16", "John 3:16"),
        ("John 3:16-4:2", "John 3:16→4:2"),
        ("John 3-4", "John 3; John 4"),
        ("John 3-4:2", "John 3; John 4:1-2"),
        ("John 3:16, 4:2", "John 3:16; John 4:2"),
        ("John 3:18-16", "John 3:18"),
        ("Matt 5:3-12", "Matthew 5:3-12"),
        ("Matthew 28:19-20", "Matthew 28:19-20"),
        ("Mt 5:3", "Matthew 5:3"),
        ("Mk 1:1", "Mark 1:1"),
        ("Mark 10:45", "Mark 10:45"),
        ("Mark 5", "Mark 5"),
        ("Lk 2:10", "Luke 2:10"),
        ("Luke 2:10", "Luke 2:10"),
        ("Phil 4:13", "Philippians 4:13"),
        ("Heb 11:1", "Hebrews 11:1"),
        ("Jas 1:2", "James 1:2"),
        ("1 Jn 4:8", "1 John 4:8"),
        ("2 Tim 3:16", "2 Timothy 3:16"),
        ("1 Timothy 4:12", "1 Timothy 4:12"),
        ("Eph 2:8-9", "Ephesians 2:8-9"),
        ("Jude 3", "Jude 1:3"),
        ("Jude 1:3", "Jude 1:3"),
        ("Jude 3-5", "Jude 1:3-5"),
        ("Philemon 4", "Philemon 1:4"),
        ("Phlm 4", "Philemon 1:4"),
        ("Obadiah 1", "Obadiah 1:1"),
        ("III John 4", "3 John 1:4"),
        ("3 John 2", "3 John 1:2"),
        ("2 John 12", "2 John 1:12"),
        ("II Kings 2:11", "2 Kings 2:11"),
        ("1 Kings 19:11-13", "1 Kings 19:11-13"),
        ("1 Sam 17", "1 Samuel 17"),
        ("2 Samuel 7", "2 Samuel 7"),
        ("2 Chron 7:14", "2 Chronicles 7:14"),
        ("1 Chronicles 16:34", "1 Chronicles 16:34"),
        ("Job 3:1", "Job 3:1"),
        ("Job 3", "Job 3"),
        ("Acts 2:38", "Acts 2:38"),
        ("Acts 2", "Acts 2"),
        ("Eccl 3:1", "Ecclesiastes 3:1"),
        ("Isa 53:5", "Isaiah 53:5"),
        ("Jer 29:11", "Jeremiah 29:11"),
        ("Lam 3:22-23", "Lamentations 3:22-23"),
        ("Ezek 37", "Ezekiel 37"),
        ("Dan 3", "Daniel 3"),
        ("Hos 6:6", "Hosea 6:6"),
        ("Joel 2:28", "Joel 2:28"),
        ("Amos 5:24", "Amos 5:24"),
        ("Jonah 1:17", "Jonah 1:17"),
        ("Mic 6:8", "Micah 6:8"),
        ("Nah 1:7", "Nahum 1:7"),
        ("Hab 2:4", "Habakkuk 2:4"),
        ("Zeph 3:17", "Zephaniah 3:17"),
        ("Hag 2:9", "Haggai 2:9"),
        ("Zech 9:9", "Zechariah 9:9"),
        ("Mal 3:10", "Malachi 3:10"),
        ("Exod 20:3", "Exodus 20:3"),
        ("Lev 19:18", "Leviticus 19:18"),
        ("Num 6:24", "Numbers 6:24"),
        ("Deut 6:4", "Deuteronomy 6:4"),
        ("Josh 1:9", "Joshua 1:9"),
        ("Judg 6:12", "Judges 6:12"),
        ("Ruth 1:16", "Ruth 1:16"),
        ("Ezra 7:10", "Ezra 7:10"),
        ("Neh 8:10", "Nehemiah 8:10"),
        ("Esth 4:14", "Esther 4:14"),
        ("Prov 3:5-6", "Proverbs 3:5-6"),
        ("Gal 2:20", "Galatians 2:20"),
        ("Col 3:16", "Colossians 3:16"),
        ("Colossians 3:23", "Colossians 3:23"),
        ("1 Thess 5:16-18", "1 Thessalonians 5:16-18"),
        ("2 Thess 3:10", "2 Thessalonians 3:10"),
        ("2 Corinthians 5:17", "2 Corinthians 5:17"),
        ("Titus 2:11", "Titus 2:11"),
        ("1 Pet 5:7", "1 Peter 5:7"),
        ("2 Pet 3:9", "2 Peter 3:9"),
        ("Romans 12:1-2", "Romans 12:1-2"),
        ("Rom 8:28-30, 31", "Romans 8:28-30; Romans 8:31"),
        ("Rom 8:1; 12:2", "Romans 8:1; Romans 12:2"),
        ("Rom 8:1,2 Cor 5:17", "Romans 8:1; 2 Corinthians 5:17"),
        ("John 3:1-2 Cor 5:17", "John 3:1; 2 Corinthians 5:17"),
        ("John 3:16a", "John 3:16"),
        ("Read Romans 8:28 and 1 John 4:8 today.", "Romans 8:28; 1 John 4:8"),
        ("Romans 8: no condemnation", "Romans 8"),
        ("John 3 v 16", "John 3:16"),
        ("1 John 3:16-17; 4:7", "1 John 3:16-17; 1 John 4:7"),
        ("Heb. 11.1", "Hebrews 11:1"),
        ("See John 3:16 (NIV) and Heb 4:12.", "John 3:16; Hebrews 4:12"),
    ]

    /// Spoken forms as speech-to-text writes them (lower case, numbers in words).
    static let spokenCases: [(text: String, expected: String)] = [
        ("john chapter three verse sixteen", "John 3:16"),
        ("john three sixteen", "John 3:16"),
        ("john 3 16", "John 3:16"),
        ("romans chapter eight", "Romans 8"),
        ("romans eight", "Romans 8"),
        ("romans 8", "Romans 8"),
        ("romans eight verses one through four", "Romans 8:1-4"),
        ("romans eight verses one and four", "Romans 8:1; Romans 8:4"),
        ("first corinthians thirteen", "1 Corinthians 13"),
        ("first corinthians chapter thirteen verse four", "1 Corinthians 13:4"),
        ("second timothy three sixteen", "2 Timothy 3:16"),
        ("psalm twenty three", "Psalms 23"),
        ("psalm twenty-three", "Psalms 23"),
        ("psalm one hundred nineteen", "Psalms 119"),
        ("psalm one hundred nineteen verse one hundred five", "Psalms 119:105"),
        ("psalm one hundred and five", "Psalms 105"),
        ("first john four eight", "1 John 4:8"),
        ("1st john four eight", "1 John 4:8"),
        ("the book of romans chapter eight", "Romans 8"),
        ("genesis one one", "Genesis 1:1"),
        ("genesis chapter one verses one to three", "Genesis 1:1-3"),
        ("mark five three", "Mark 5:3"),
        ("mark chapter five", "Mark 5"),
        ("the gospel of john chapter three", "John 3"),
        ("acts two thirty eight", "Acts 2:38"),
        ("job chapter three", "Job 3"),
        ("the book of job three", "Job 3"),
        ("john three sixteen through eighteen", "John 3:16-18"),
        ("second kings chapter two verse eleven", "2 Kings 2:11"),
        ("third john verse four", "3 John 1:4"),
        ("jude verse three", "Jude 1:3"),
        ("obadiah one", "Obadiah 1:1"),
        ("song of solomon chapter two", "Song of Solomon 2"),
        ("revelation twenty one four", "Revelation 21:4"),
        ("isaiah fifty three five", "Isaiah 53:5"),
        ("ephesians two eight through nine", "Ephesians 2:8-9"),
        ("philippians four thirteen", "Philippians 4:13"),
        ("hebrews eleven one", "Hebrews 11:1"),
        ("james one two", "James 1:2"),
        ("lamentations three twenty two", "Lamentations 3:22"),
        ("numbers six twenty four", "Numbers 6:24"),
        ("luke two ten", "Luke 2:10"),
        ("romans chapters nine through eleven", "Romans 9; Romans 10; Romans 11"),
        ("matthew chapter five verses three through twelve", "Matthew 5:3-12"),
        ("so turn with me to romans eight and we will read it together", "Romans 8"),
        ("today we are in john chapter three verse sixteen through eighteen and then genesis one one",
         "John 3:16-18; Genesis 1:1"),
    ]

    /// Text that names no reference.
    static let falsePositives: [String] = [
        "Mark my words",
        "a job well done",
        "acts of kindness",
        "2 times",
        "I said it 2 times",
        "the numbers were high",
        "Numbers don't lie",
        "John said hello",
        "mark 5 people",
        "mark five people came",
        "job 3",
        "acts 2 and 3 of the play",
        "Numbers 500",
        "John 0",
        "Hezekiah 3",
        "I told john three times",
        "we need 2 kings and 3 queens",
        "the first john I met",
        "Rev 2 of the spec",
        "the score is 3:1",
        "is 53 enough?",
        "PS 2 more things",
        "Mark 1,000 people",
        "Meet Mark 3:30pm",
        "The Song 2 is great",
        "chapter 3 of the report",
        "revelation 3 times",
        "",
    ]

    /// `parse`: typed input; nil when the whole string is not one reference.
    static let parseCases: [(text: String, expected: String?)] = [
        ("John 3:16-18", "John 3:16-18"),
        ("Rom 8", "Romans 8"),
        ("Ps 23:1,4", "Psalms 23:1; Psalms 23:4"),
        ("1 Cor 13:4", "1 Corinthians 13:4"),
        ("Song of Songs 2", "Song of Solomon 2"),
        ("  John 3:16  ", "John 3:16"),
        ("job 3", "Job 3"),
        ("mark 5", "Mark 5"),
        ("rev 21", "Revelation 21"),
        ("i cor 13", "1 Corinthians 13"),
        ("Ps 23, 24", "Psalms 23; Psalms 24"),
        ("Gen 1:1; 2:3", "Genesis 1:1; Genesis 2:3"),
        ("john three sixteen", "John 3:16"),
        ("Jude 3", "Jude 1:3"),
        ("John 3:16-4:2", "John 3:16"),
        ("Hezekiah 3", nil),
        ("John 0", nil),
        ("John 3:0", nil),
        ("John 3:177", nil),
        ("Numbers 500", nil),
        ("Romans 17", nil),
        ("1 John 6", nil),
        ("Jude 2:1", nil),
        ("", nil),
        ("   ", nil),
        ("John", nil),
        ("3:16", nil),
        ("John 3:16 is great", nil),
        ("John 3:16;", nil),
        ("John 3:16, Rom 8", nil),
    ]

    static let canonicalNameCases: [(text: String, expected: String?)] = [
        ("Jn", "John"), ("jn", "John"), ("Rom", "Romans"), ("1 Cor", "1 Corinthians"), ("1cor", "1 Corinthians"),
        ("1st Cor.", "1 Corinthians"), ("I Corinthians", "1 Corinthians"), ("First Corinthians", "1 Corinthians"),
        ("Ps", "Psalms"), ("Psalm", "Psalms"), ("Song of Songs", "Song of Solomon"), ("Canticles", "Song of Solomon"),
        ("Song", "Song of Solomon"), ("Rev", "Revelation"), ("Revelations", "Revelation"), ("II Kings", "2 Kings"),
        ("3 John", "3 John"), ("Genesis", "Genesis"), ("PHILEMON", "Philemon"), ("Phlm", "Philemon"),
        ("Matt.", "Matthew"), ("Mark", "Mark"), ("Qoheleth", "Ecclesiastes"), ("the book of Job", "Job"),
        ("Hezekiah", nil), ("", nil), ("John 3", nil), ("Samuel", nil), ("3 Corinthians", nil), ("Times", nil),
    ]

    // MARK: Table tests

    @Test("written forms are found", arguments: writtenCases)
    func writtenForms(text: String, expected: String) {
        #expect(Self.found(in: text) == expected, "find(in: \(text.debugDescription))")
    }

    @Test("spoken forms are found", arguments: spokenCases)
    func spokenForms(text: String, expected: String) {
        #expect(Self.found(in: text) == expected, "find(in: \(text.debugDescription))")
    }

    @Test("text that names no reference finds nothing", arguments: falsePositives)
    func falsePositivesFindNothing(text: String) {
        #expect(Self.found(in: text) == "", "find(in: \(text.debugDescription))")
    }

    @Test("parse: one reference or list of them, nil for anything else", arguments: parseCases)
    func parse(text: String, expected: String?) {
        let parsed = ScriptureReferences.parse(text).map { $0.map(\.display).joined(separator: "; ") }
        #expect(parsed == expected, "parse(\(text.debugDescription))")
    }

    @Test("canonicalName: abbreviations, numerals and variants to the book's name", arguments: canonicalNameCases)
    func canonicalName(text: String, expected: String?) {
        #expect(BibleBooks.canonicalName(text) == expected, "canonicalName(\(text.debugDescription))")
    }

    @Test("the tables hold at least 80 distinct written and spoken forms")
    func caseCount() {
        let forms = Set(Self.writtenCases.map(\.text) + Self.spokenCases.map(\.text))
        #expect(forms.count >= 80, "distinct written and spoken forms")
    }

    // MARK: Books

    @Test("66 books, 1,189 chapters, Genesis to Revelation")
    func books() {
        #expect(BibleBooks.all.count == 66)
        #expect(BibleBooks.all.reduce(0) { $0 + $1.chapters } == 1189)
        #expect(Set(BibleBooks.all.map(\.name)).count == 66)
        #expect(BibleBooks.all.first?.name == "Genesis")
        #expect(BibleBooks.all.last?.name == "Revelation")
    }

    @Test("each book: its name in any case, its chapter count, its last chapter and no further", arguments: BibleBooks.all)
    func book(name: String, chapters: Int) {
        #expect(BibleBooks.canonicalName(name) == name)
        #expect(BibleBooks.canonicalName(name.uppercased()) == name)
        #expect(BibleBooks.chapterCount(of: name) == chapters)
        if chapters == 1 {
            // Single-chapter books read a lone number as a verse.
            #expect(ScriptureReferences.parse("\(name) 5")?.map(\.display) == ["\(name) 1:5"])
            #expect(ScriptureReferences.parse("\(name) 2:1") == nil)
        } else {
            #expect(ScriptureReferences.parse("\(name) \(chapters)")?.map(\.display) == ["\(name) \(chapters)"])
            #expect(ScriptureReferences.parse("\(name) \(chapters + 1)") == nil, "\(name)")
            #expect(Self.found(in: "see \(name) \(chapters):1 today") == "\(name) \(chapters):1")
        }
    }

    // MARK: Matches

    @Test("matches: the ranges they cover, the spoken flag, a span across chapters")
    func matchRangesAndSpokenFlag() throws {
        let text = "Read Ps 23:1,4 and then john chapter three verse sixteen."
        let matches = ScriptureReferences.find(in: text)
        #expect(matches.map { String(text[$0.range]) } == ["Ps 23:1", "4", "john chapter three verse sixteen"])
        #expect(matches.map(\.spoken) == [false, false, true])

        let span = try #require(ScriptureReferences.find(in: "John 3:16-4:2").first)
        #expect(span.reference == ScriptureReference(book: "John", chapter: 3, verseStart: 16))
        #expect(span.spanEnd == ChapterAndVerse(chapter: 4, verse: 2))
        #expect(ScriptureReferences.parseMatches("John 3:16-4:2")?.first?.spanEnd == ChapterAndVerse(chapter: 4, verse: 2))

        let intro = "We read the book of romans chapter eight."
        #expect(ScriptureReferences.find(in: intro).map { String(intro[$0.range]) } == ["the book of romans chapter eight"])
    }

    @Test("references(in:) drops repeats and keeps the order of first mention")
    func referencesDeduplicatesInOrder() {
        let refs = ScriptureReferences.references(in: "John 3:16, then Rom 8, then John 3:16 again, and Romans 8.")
        #expect(refs.map(\.display) == ["John 3:16", "Romans 8"])
    }

    @Test("display: book, chapter, verse or verse range")
    func display() {
        #expect(ScriptureReference(book: "Romans", chapter: 8, verseStart: 1, verseEnd: 4).display == "Romans 8:1-4")
        #expect(ScriptureReference(book: "1 Corinthians", chapter: 13).display == "1 Corinthians 13")
        #expect(ScriptureReference(book: "Psalms", chapter: 23, verseStart: 1).display == "Psalms 23:1")
        #expect(ScriptureReference(book: "John", chapter: 3, verseStart: 16).display == "John 3:16")
    }

    @Test("random token soup: no crash, every reference valid, every range inside the text")
    func randomTextYieldsOnlyValidReferences() {
        let pieces = ["John", "john", "1", "2", "3", "16", "500", ":", "-", "–", ",", ";", ".", " ", " ", " ", "Ps",
                      "chapter", "verse", "three", "sixteen", "hundred", "and", "through", "Jude", "Song", "of",
                      "Songs", "the", "book", "I", "Cor", "first", "é", "—", "\u{00A0}", "Mark", "job", "0", "176",
                      "177", "Obadiah", "twenty", "one", "ff", "a"]
        for text in Self.randomTexts(pieces, count: 3000, maxPieces: 14, seed: 0x5EED) {
            for match in ScriptureReferences.find(in: text) {
                #expect(match.range.lowerBound >= text.startIndex && match.range.upperBound <= text.endIndex,
                        "\(text.debugDescription)")
                Self.expectValid(match.reference, text)
            }
            for reference in ScriptureReferences.parse(text) ?? [] { Self.expectValid(reference, text) }
        }
    }

    /// The pre-scan (`mentionsBook`) hides no reference: over every table case, and over random texts built
    /// from book names, abbreviations, numbers, punctuation and non-ASCII pieces, `find` answers what the
    /// tokens alone answer. And it does its job: plain prose without a book word is not tokenized.
    @Test("the pre-scan for a book word hides no reference, and skips prose without one")
    func bookPreScanHidesNoReference() {
        var texts = Self.writtenCases.map(\.text) + Self.spokenCases.map(\.text) + Self.falsePositives
        let pieces = ["John", "JOHN", "jn", "1", "2", "3", "16", ":", "-", "–", ",", ".", " ", " ", "Ps", "psalm", "chapter",
                      "verse", "three", "sixteen", "Song", "of", "Songs", "the", "book", "gospel", "according", "to", "I", "II",
                      "Cor", "first", "1st", "é", "Ré", "John\u{0301}", "\u{00A0}", "\u{2014}", "\u{2019}", "Mark", "job",
                      "Thessalonians", "Thessaloniansx", "Rom", "romans", "Philemon", "phlm", "x", "a"]
        texts += Self.randomTexts(pieces, count: 5000, maxPieces: 12, seed: 0xB00C)
        var found = 0
        for text in texts {
            let unfiltered = ScriptureReferences.matches(in: text)
            #expect(ScriptureReferences.find(in: text).map(\.reference) == unfiltered.map(\.reference), "\(text.debugDescription)")
            if !unfiltered.isEmpty {
                found += 1
                #expect(ScriptureReferences.mentionsBook(text), "\(text.debugDescription)")
            }
        }
        #expect(found > 150, "the texts hold references")
        for prose in ["Note 12 of sermon 7: grace abounds in the valley", "segment 3 faith hope love", "", "12:30 3-4",
                      "Johnny came marching home", "the letters of the apostle"] {
            #expect(!ScriptureReferences.mentionsBook(prose), "\(prose)")
        }
        #expect(ScriptureReferences.mentionsBook("see 1Cor13"))
        #expect(ScriptureReferences.mentionsBook("café John"))
    }

    /// The pre-scan's word look-up (packed integers for words of up to 8 letters, the string set above that)
    /// answers as `bookWords` does: every book word in any case, and random letter runs of 1 to 15.
    @Test("the pre-scan's packed word look-up answers as the book word set does")
    func bookPreScanLooksWordsUpAsTheWordSet() {
        for word in BookNames.bookWords {
            #expect(ScriptureReferences.mentionsBook(word), "\(word)")
            #expect(ScriptureReferences.mentionsBook(word.uppercased()), "\(word)")
            #expect(ScriptureReferences.mentionsBook("12 " + word.capitalized + ", 3"), "\(word)")
            for near in [word + "x", "q" + word, String(word.dropLast())] where !near.isEmpty {
                #expect(ScriptureReferences.mentionsBook(near) == BookNames.bookWords.contains(near), "\(near)")
            }
        }
        var seed: UInt64 = 0x5CA7
        for _ in 0..<20_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(seed >> 60) % 15 + 1
            let letters = "abcdefghijklmnopqrstuvwxyz".utf8.map { $0 }
            var word = ""
            var s = seed
            for _ in 0..<length {
                s = s &* 6364136223846793005 &+ 1442695040888963407
                word.unicodeScalars.append(UnicodeScalar(letters[Int(s >> 59) % 26]))
            }
            #expect(ScriptureReferences.mentionsBook(word) == BookNames.bookWords.contains(word), "\(word)")
        }
        #expect(BookNames.packedShortBookWords.count == BookNames.bookWords.filter { $0.utf8.count <= 8 }.count)
    }

    /// `count` texts, each of fewer than `maxPieces` pieces drawn from `pieces` by a fixed generator (the
    /// same texts every run).
    static func randomTexts(_ pieces: [String], count: Int, maxPieces: Int, seed: UInt64) -> [String] {
        var seed = seed
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        return (0..<count).map { _ in
            var text = ""
            for _ in 0..<(next() % maxPieces) { text += pieces[next() % pieces.count] }
            return text
        }
    }

    /// Expects `reference` to name a real book, a chapter it has, and a verse range that runs forwards; a
    /// failure is reported at the caller's line.
    static func expectValid(_ reference: ScriptureReference, _ text: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let chapters = BibleBooks.chapterCount(of: reference.book)
        #expect(chapters != nil, "\(text.debugDescription)", sourceLocation: sourceLocation)
        #expect((1...(chapters ?? 0)).contains(reference.chapter), "\(text.debugDescription)", sourceLocation: sourceLocation)
        if let start = reference.verseStart {
            #expect((1...176).contains(start), "\(text.debugDescription)", sourceLocation: sourceLocation)
            if let end = reference.verseEnd { #expect(end > start, "\(text.debugDescription)", sourceLocation: sourceLocation) }
        } else {
            #expect(reference.verseEnd == nil, "\(text.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    /// A 10,000-word transcript with references sprinkled in. Prints the time; the bound is loose because tests
    /// build without optimisation (an optimised build takes a few milliseconds).
    @Test("find(in:) over 10,000 words is fast (prints the time; a loose bound for a debug build)")
    func speedOnTenThousandWords() {
        let filler = "and so we see that the numbers were high but Mark my words a job well done is its own reward"
            .split(separator: " ")
        let inserts = ["John 3:16", "romans chapter eight verse twenty eight", "Ps 23:1,4", "first john four eight"]
        var words: [String] = []
        var i = 0
        while words.count < 10_000 {
            words.append(String(filler[i % filler.count]))
            if i % 97 == 0 { words.append(inserts[(i / 97) % inserts.count]) }
            i += 1
        }
        let text = words.joined(separator: " ")
        let start = DispatchTime.now().uptimeNanoseconds
        let matches = ScriptureReferences.find(in: text)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        print("find(in:) over \(words.count) words: \(matches.count) matches in \(String(format: "%.1f", milliseconds)) ms")
        #expect(matches.count > 100)
        #expect(milliseconds < 2000)
    }


    // MARK: Helpers

    /// `find(in:)` rendered as keys: display, "→c:v" for a range across chapters, "; " between references.
    static func found(in text: String) -> String {
        ScriptureReferences.find(in: text).map { match in
            match.reference.display + (match.spanEnd.map { "→\($0.chapter):\($0.verse)" } ?? "")
        }.joined(separator: "; ")
    }
}
