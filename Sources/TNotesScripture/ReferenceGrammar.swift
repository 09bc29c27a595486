/// The reference grammar over tokens: a book phrase, then chapter, verse, range and list parts, written
/// ("1 Cor 13:4-7, 13") or spoken ("first corinthians chapter thirteen verses four through seven").
///
/// Hand-written recursive descent with bounded look-ahead: every attempt reads a few tokens past the book name
/// (plus the list it consumes), so scanning a transcript is linear in its length.

/// `find` scans free text and asks for evidence before it trusts an ambiguous name; `whole` reads one
/// reference typed on purpose (search box, CLI), where "job 3" can only mean the book.
enum ParseMode: Sendable { case find, whole }

/// A recognised book name, with what came before it ("the book of", "1", "First").
struct BookPhrase: Sendable {
    let book: Int
    /// First token: of the introducer, the prefix or the name.
    let start: Int
    /// Token after the name (and after an abbreviation's full stop).
    let end: Int
    let tier: NameTier
    /// Written with a capital as the `.capitalised` tier requires.
    let capitalOK: Bool
    /// Introduced by "the book of", "the gospel of", ...: a reference whatever the name.
    let introduced: Bool
}

/// One reference and the tokens that produced it.
struct ParsedItem: Sendable {
    let reference: ScriptureReference
    let start: Int
    let end: Int
    let spanEnd: ChapterAndVerse?
}

/// All references read after one book phrase: "Ps 23:1,4" gives two items.
struct ParsedGroup: Sendable {
    let items: [ParsedItem]
    let end: Int
    let spoken: Bool
}

struct ReferenceGrammar {
    let tokens: [Token]
    let mode: ParseMode

    static let maxVerse = 176  // Psalm 119:176, the longest chapter

    private static let chapterWords: [String: Bool] = ["chapter": true, "chapters": true, "ch": false, "chap": false]
    private static let verseWords: [String: Bool] = [
        "verse": true, "verses": true, "v": false, "vv": false, "vs": false, "ver": false, "vss": false,
    ]
    private static let rangeWords: Set<String> = ["to", "through", "thru", "till", "until"]
    /// Letters that may follow a verse number: part of a verse ("16a") or "and following" ("16ff").
    private static let verseSuffixes: Set<String> = ["a", "b", "c", "f", "ff"]

    // MARK: Numbers and keywords

    /// A number in digits or words. `isWord` tells the spoken form. Digits glued to a word ("3rd", "5pm") are
    /// no chapter or verse, except a verse-part suffix ("16a", "16ff"), which is read and ignored; "1,000"
    /// (a thousands separator) is no list of chapter 1 and verse 0.
    private func number(at index: Int) -> (value: Int, next: Int, isWord: Bool)? {
        guard index < tokens.count else { return nil }
        let token = tokens[index]
        if token.kind == .word {
            guard let (value, next) = NumberWords.read(tokens, at: index) else { return nil }
            return (value, next, true)
        }
        guard token.kind == .number else { return nil }
        var next = index + 1
        if next < tokens.count, !tokens[next].spaced {
            let after = tokens[next]
            if after.kind == .word {
                guard Self.verseSuffixes.contains(after.text) else { return nil }
                next += 1
            } else if after.isPunct(","), next + 1 < tokens.count, !tokens[next + 1].spaced,
                      tokens[next + 1].kind == .number, tokens[next + 1].digits == 3 {
                return nil
            }
        }
        return (token.value, next, false)
    }

    /// ":16" (any spacing) or ".16" (touching on both sides: "John 3.16", not "John 3. 16 people").
    private func separatedNumber(at index: Int) -> (value: Int, next: Int, isWord: Bool)? {
        guard index + 1 < tokens.count, tokens[index + 1].kind == .number else { return nil }
        let mark = tokens[index]
        if mark.isPunct(":") || (mark.isPunct(".") && !mark.spaced && !tokens[index + 1].spaced) {
            return number(at: index + 1)
        }
        return nil
    }

    /// A second number right after the chapter: the verse in "john three sixteen" / "john 3 16".
    private func juxtaposedNumber(at index: Int) -> (value: Int, next: Int, isWord: Bool)? {
        guard index < tokens.count, tokens[index].spaced, !startsNumberedBook(at: index) else { return nil }
        return number(at: index)
    }

    /// A keyword from `words` (with an optional full stop after an abbreviation): the index after it and
    /// whether it is spoken ("chapter" yes, "ch." no).
    private func keyword(at index: Int, in words: [String: Bool]) -> (next: Int, spoken: Bool)? {
        guard index < tokens.count, tokens[index].kind == .word, let spoken = words[tokens[index].text] else {
            return nil
        }
        return (afterAbbreviationDot(index + 1, !spoken), spoken)
    }

    /// "-", "–", "to", "through", "thru": the index after it and whether it is spoken.
    private func rangeMarker(at index: Int) -> (next: Int, spoken: Bool)? {
        guard index < tokens.count else { return nil }
        let token = tokens[index]
        if token.isPunct("-") { return (index + 1, false) }
        if token.kind == .word, Self.rangeWords.contains(token.text) { return (index + 1, true) }
        return nil
    }

    // MARK: References after a book

    /// Everything after a book phrase; nil when no reference follows or the evidence is too weak (`.find`).
    func group(for phrase: BookPhrase) -> ParsedGroup? {
        let book = BibleBooks.all[phrase.book]
        let chapters = book.chapters
        var index = phrase.end
        var strong = phrase.introduced
        var spoken = false
        var chapterKeyword = false
        if let word = keyword(at: index, in: Self.chapterWords) {
            chapterKeyword = true
            strong = true
            spoken = spoken || word.spoken
            index = word.next
        }

        var chapter: Int
        var verse: Int?
        var verseList = false  // "verses one and four": "and" continues the list

        if chapters == 1 && !chapterKeyword {
            // A single-chapter book: a lone number is a verse ("Jude 3" = Jude 1:3, as pythonbible and most
            // citation styles read it); "Jude 1:3" and "jude one three" name the chapter too, which must be 1.
            chapter = 1
            if let word = keyword(at: index, in: Self.verseWords), let number = number(at: word.next) {
                verse = number.value
                index = number.next
                strong = true
                verseList = true
                spoken = spoken || word.spoken || number.isWord
            } else {
                guard let first = number(at: index) else { return nil }
                index = first.next
                spoken = spoken || first.isWord
                if let second = separatedNumber(at: index) {
                    guard first.value == 1 else { return nil }  // "Jude 2:1": there is no chapter 2
                    verse = second.value
                    index = second.next
                    strong = true
                } else if first.value == 1, let second = juxtaposedNumber(at: index) {
                    verse = second.value
                    index = second.next
                    strong = true
                    spoken = spoken || second.isWord
                } else {
                    verse = first.value
                }
            }
        } else {
            guard let first = number(at: index), (1...chapters).contains(first.value) else { return nil }
            chapter = first.value
            index = first.next
            spoken = spoken || first.isWord
            if let second = separatedNumber(at: index) {
                verse = second.value
                index = second.next
                strong = true
            } else if let word = keyword(at: index, in: Self.verseWords), let second = number(at: word.next) {
                verse = second.value
                index = second.next
                strong = true
                verseList = true
                spoken = spoken || word.spoken || second.isWord
            } else if index + 1 < tokens.count, tokens[index].isPunct(":"), tokens[index + 1].kind == .number {
                // "Mark 3:30pm", "John 3:1,000": a chapter:number that is no verse is something else, not
                // "Mark 3" followed by junk. ("Romans 8: no condemnation" stays Romans 8.)
                return nil
            } else if let second = juxtaposedNumber(at: index) {
                verse = second.value
                index = second.next
                strong = true
                spoken = spoken || second.isWord
            }
        }
        if let verse, !(1...Self.maxVerse).contains(verse) { return nil }

        if mode == .find {
            switch phrase.tier {
            case .any: break
            case .capitalised: guard strong || phrase.capitalOK else { return nil }
            case .strong: guard strong && phrase.capitalOK else { return nil }
            }
        }

        var items: [ParsedItem] = []
        let name = book.name

        // The first reference, with its range.
        if let verse {
            var verseEnd: Int?
            var spanEnd: ChapterAndVerse?
            if let range = verseRange(at: index, chapter: chapter, verse: verse, chapters: chapters) {
                verseEnd = range.verseEnd
                spanEnd = range.spanEnd
                index = range.next
                spoken = spoken || range.spoken
            }
            items.append(ParsedItem(reference: ScriptureReference(book: name, chapter: chapter, verseStart: verse,
                                                                  verseEnd: verseEnd),
                                    start: phrase.start, end: index, spanEnd: spanEnd))
        } else if let range = chapterRange(at: index, chapter: chapter, chapters: chapters) {
            // "John 3-4" → John 3, John 4; "John 3-4:2" → John 3, John 4:1-2. All share the group's range.
            index = range.next
            spoken = spoken || range.spoken
            for whole in chapter..<range.lastChapter {
                items.append(ParsedItem(reference: ScriptureReference(book: name, chapter: whole),
                                        start: phrase.start, end: index, spanEnd: nil))
            }
            let last = range.lastVerse.map {
                ScriptureReference(book: name, chapter: range.lastChapter, verseStart: 1, verseEnd: $0 > 1 ? $0 : nil)
            } ?? ScriptureReference(book: name, chapter: range.lastChapter)
            items.append(ParsedItem(reference: last, start: phrase.start, end: index, spanEnd: nil))
            chapter = range.lastChapter
        } else {
            items.append(ParsedItem(reference: ScriptureReference(book: name, chapter: chapter),
                                    start: phrase.start, end: index, spanEnd: nil))
        }

        // Further items in the same book: ", 4" / ", 4:2" / "; 12:1-2" / "and four" (after "verses").
        var hasVerse = verse != nil
        while index < tokens.count {
            let mark = tokens[index]
            let itemStart = index + 1
            var itemVerse: Int
            var next: Int
            if mark.isPunct(",") || mark.isPunct(";") {
                guard !startsNumberedBook(at: itemStart), let first = number(at: itemStart) else { break }
                if let second = separatedNumber(at: first.next) {
                    let chapterOK = chapters == 1 ? first.value == 1 : (1...chapters).contains(first.value)
                    guard chapterOK, (1...Self.maxVerse).contains(second.value) else { break }
                    chapter = first.value
                    itemVerse = second.value
                    next = second.next
                } else if mark.text == "," && hasVerse {
                    guard (1...Self.maxVerse).contains(first.value) else { break }
                    itemVerse = first.value
                    next = first.next
                } else if mark.text == "," && mode == .whole && (1...chapters).contains(first.value) {
                    // "Ps 23, 24" typed in a search box: two chapters. In free text too likely "Psalm 23, 24 times".
                    chapter = first.value
                    index = first.next
                    items.append(ParsedItem(reference: ScriptureReference(book: name, chapter: chapter),
                                            start: itemStart, end: index, spanEnd: nil))
                    continue
                } else {
                    break
                }
                spoken = spoken || first.isWord
            } else if verseList, mark.isWord("and"), let first = number(at: itemStart),
                      (1...Self.maxVerse).contains(first.value) {
                itemVerse = first.value
                next = first.next
                spoken = true
            } else {
                break
            }
            var verseEnd: Int?
            var spanEnd: ChapterAndVerse?
            if let range = verseRange(at: next, chapter: chapter, verse: itemVerse, chapters: chapters) {
                verseEnd = range.verseEnd
                spanEnd = range.spanEnd
                next = range.next
                spoken = spoken || range.spoken
            }
            items.append(ParsedItem(reference: ScriptureReference(book: name, chapter: chapter, verseStart: itemVerse,
                                                                  verseEnd: verseEnd),
                                    start: itemStart, end: next, spanEnd: spanEnd))
            index = next
            hasVerse = true
        }
        return ParsedGroup(items: items, end: index, spoken: spoken)
    }

    /// "-18", " through eighteen", "-4:2" after chapter:verse. A backwards range ("3:18-16") is not taken: the
    /// reference stays the single verse and the rest of the text is left alone.
    private func verseRange(at index: Int, chapter: Int, verse: Int, chapters: Int)
        -> (verseEnd: Int?, spanEnd: ChapterAndVerse?, next: Int, spoken: Bool)? {
        // "John 3:1-2 Cor 5:17": no range into another book; the next book is left for the scan.
        guard let marker = rangeMarker(at: index), !startsNumberedBook(at: marker.next) else { return nil }
        var next = marker.next
        var spoken = marker.spoken
        if let word = keyword(at: next, in: Self.verseWords) {
            next = word.next
            spoken = spoken || word.spoken
        }
        guard let end = number(at: next) else { return nil }
        spoken = spoken || end.isWord
        if let endVerse = separatedNumber(at: end.next) {
            guard (1...Self.maxVerse).contains(endVerse.value) else { return nil }
            if end.value == chapter {  // "John 3:16-3:18"
                guard endVerse.value >= verse else { return nil }
                return (endVerse.value > verse ? endVerse.value : nil, nil, endVerse.next, spoken)
            }
            guard end.value > chapter, end.value <= chapters else { return nil }
            return (nil, ChapterAndVerse(chapter: end.value, verse: endVerse.value), endVerse.next, spoken)
        }
        guard end.value >= verse, end.value <= Self.maxVerse else { return nil }
        return (end.value > verse ? end.value : nil, nil, end.next, spoken)
    }

    /// "-4", " through five", "-4:2" after a whole chapter: the last chapter and, for "-4:2", its last verse.
    private func chapterRange(at index: Int, chapter: Int, chapters: Int)
        -> (lastChapter: Int, lastVerse: Int?, next: Int, spoken: Bool)? {
        guard let marker = rangeMarker(at: index), !startsNumberedBook(at: marker.next) else { return nil }
        var next = marker.next
        var spoken = marker.spoken
        if let word = keyword(at: next, in: Self.chapterWords) {
            next = word.next
            spoken = spoken || word.spoken
        }
        guard let end = number(at: next), end.value > chapter, end.value <= chapters else { return nil }
        spoken = spoken || end.isWord
        if let endVerse = separatedNumber(at: end.next) {
            guard (1...Self.maxVerse).contains(endVerse.value) else { return nil }
            return (end.value, endVerse.value, endVerse.next, spoken)
        }
        return (end.value, nil, end.next, spoken)
    }
}
