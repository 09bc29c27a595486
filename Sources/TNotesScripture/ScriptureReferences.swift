/// Finding and parsing Bible references.
///
/// Free text (`find`) and typed input (`parse`) share one grammar; they differ in how much they trust an
/// ambiguous name. In free text a book name followed by one number is a reference only when the name could
/// hardly be anything else:
/// - "Romans 8", "romans eight", "psalm twenty three", "first corinthians thirteen": yes, in any case.
/// - Names that are words or first names ("Mark", "Job", "Acts", "Numbers", "John") and abbreviations ("Rom",
///   "Jn"): only with a capital. "Job 3" yes, "job 3" no, "mark 5 people" no.
/// - Abbreviations that are words ("Is", "Am", "Col", "Rev", "Song"): never with one number alone.
/// Stronger evidence lifts these limits: chapter:verse ("job 3:1"), the word chapter or verse ("mark chapter
/// five"), two numbers ("mark five three"), or "the book of" / "the gospel of". A chapter beyond the book's
/// count or a verse outside 1...176 is never a reference ("Numbers 500").
public enum ScriptureReferences {
    /// Bumped whenever what `find` answers for some text changes: stores index references by this version
    /// and refill their index when it differs.
    public static let parserVersion = 1

    /// Every reference found in free text (notes, transcripts, summaries), written and spoken forms, in text
    /// order. A list yields one match per item ("Ps 23:1,4" → 23:1 and 23:4).
    public static func find(in text: String) -> [ScriptureMatch] {
        guard mentionsBook(text) else { return [] }
        return matches(in: text)
    }

    /// `find(in:)` without the pre-scan (`mentionsBook`): the tests hold the two to the same answers.
    static func matches(in text: String) -> [ScriptureMatch] {
        let tokens = ReferenceTokenizer.tokenize(text)
        let grammar = ReferenceGrammar(tokens: tokens, mode: .find)
        var matches: [ScriptureMatch] = []
        var index = 0
        while index < tokens.count {
            guard mayStartPhrase(tokens[index]), let phrase = grammar.bookPhrase(at: index) else {
                index += 1
                continue
            }
            guard let group = grammar.group(for: phrase) else {
                // Skip the whole name: after a failed "1 John 9" the "John 9" inside it must not match.
                index = max(phrase.end, index + 1)
                continue
            }
            for item in group.items {
                let range = tokens[item.start].range.lowerBound..<tokens[item.end - 1].range.upperBound
                matches.append(ScriptureMatch(reference: item.reference, range: range, spoken: group.spoken,
                                              spanEnd: item.spanEnd))
            }
            index = group.end
        }
        return matches
    }

    /// Whether `text` has a word that is a book name's first word or a numbered book's base
    /// (`BookNames.bookWords`). Every reference `find` answers has one (`ReferenceGrammar.bookName` starts
    /// from one), and most notes and transcript segments have none; for those, this one pass over the bytes
    /// replaces the tokenizing. Measured with perf over a pulled 1× sync (100 k notes, 10 k transcripts, no
    /// references): the reference search was 29 % of the page decoding's CPU.
    ///
    /// Its words are the runs of ASCII letters: every word the tokenizer gives a text (ASCII letters only, at
    /// most `Token.maxWordLength`; any other word has an empty text and names no book) is such a run, since
    /// every byte that ends a word there ends a run here. A run may be a piece of a longer non-ASCII word; that
    /// only sends the text on to the tokenizer.
    static func mentionsBook(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var i = 0
            let n = bytes.count
            while i < n {
                guard Self.isASCIILetter(bytes[i]) else {
                    i += 1
                    continue
                }
                let start = i
                while i < n, Self.isASCIILetter(bytes[i]) { i += 1 }
                let length = i - start
                guard length <= Token.maxWordLength,
                      BookNames.bookWordLengths[Int((bytes[start] | 0x20) &- 0x61)] & (1 << length) != 0 else { continue }
                if length <= 8 {
                    let key = BookNames.packed(bytes[start..<i].lazy.map { $0 | 0x20 })
                    if BookNames.isShortBookWord(key) { return true }
                    continue
                }
                // At most 15 bytes: stored inline by String, no allocation.
                let word = String(unsafeUninitializedCapacity: length) { buffer in
                    for k in 0..<length { buffer[k] = bytes[start + k] | 0x20 }
                    return length
                }
                if BookNames.bookWords.contains(word) { return true }
            }
            return false
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// Whether a book phrase can start at this token (`ReferenceGrammar.bookPhrase` answers the same nil for
    /// every token this rejects). Nearly every token of a note or transcript starts none, and the grammar asks
    /// up to four dictionaries and scans the introducers before it says so. Measured with perf over a pulled
    /// 1× sync (100 k notes, 10 k transcripts): `find` took 0.55 CPU seconds, 0.25 with this one lookup first.
    static func mayStartPhrase(_ token: Token) -> Bool {
        switch token.kind {
        case .word: return BookNames.phraseStarters.contains(token.text)
        case .number: return token.digits == 1 && (1...3).contains(token.value)  // a numbered book's prefix
        case .punct: return false
        }
    }

    /// `find(in:)` as references only, without repeats, in order of first occurrence.
    public static func references(in text: String) -> [ScriptureReference] {
        var seen = Set<ScriptureReference>()
        return find(in: text).compactMap { seen.insert($0.reference).inserted ? $0.reference : nil }
    }

    /// One reference as a person types it ("John 3:16-18", "Rom 8", "Ps 23:1,4", "1 Cor 13:4", "Song of Songs
    /// 2", "job 3", "john three sixteen"). A list gives several references. The whole string (less surrounding
    /// white space) must be the reference: nil otherwise, and for an unknown book, a chapter the book does not
    /// have, or a verse outside 1...176. A range across chapters ("John 3:16-4:2") gives its start only; use
    /// `parseMatches(_:)` for its end.
    public static func parse(_ text: String) -> [ScriptureReference]? {
        parseMatches(text)?.map(\.reference)
    }

    /// `parse(_:)` with ranges and the far end of a range across chapters.
    public static func parseMatches(_ text: String) -> [ScriptureMatch]? {
        let tokens = ReferenceTokenizer.tokenize(text)
        guard !tokens.isEmpty else { return nil }
        let grammar = ReferenceGrammar(tokens: tokens, mode: .whole)
        guard let phrase = grammar.bookPhrase(at: 0), let group = grammar.group(for: phrase),
              group.end == tokens.count else { return nil }
        return group.items.map { item in
            ScriptureMatch(reference: item.reference,
                           range: tokens[item.start].range.lowerBound..<tokens[item.end - 1].range.upperBound,
                           spoken: group.spoken, spanEnd: item.spanEnd)
        }
    }
}
