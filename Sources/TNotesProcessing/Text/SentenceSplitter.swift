/// A sentence of a transcript with the span of audio it was spoken in (nil for an untimed transcript).
public struct TimedSentence: Sendable, Equatable {
    public var text: String
    public var start: Double?
    public var end: Double?
    public var wordCount: Int

    public init(text: String, start: Double?, end: Double?, wordCount: Int) {
        self.text = text
        self.start = start
        self.end = end
        self.wordCount = wordCount
    }
}

/// Splits a transcript into sentences that keep their times.
///
/// Speech-to-text segments do not line up with sentences: one segment may hold three sentences, a sentence may
/// run over two segments, and some engines emit no punctuation at all. So the segments are read as one stream
/// of words, each word carrying its position in time, and the stream is cut at sentence punctuation. A "sentence"
/// that comes out too long to be one (unpunctuated speech) is cut again: first at segment boundaries (the
/// engine's own pauses), then, when a piece is still long, into even windows of about `windowWords` words.
public enum SentenceSplitter {
    /// A punctuated sentence longer than this is taken to be several unpunctuated ones run together.
    static let maxSentenceWords = 45
    /// Pieces of unpunctuated speech are merged up to this many words (tiny segments make poor sentences)...
    static let mergeWords = 25
    /// ...and a piece longer than this is cut into windows of about `windowWords`.
    static let maxPieceWords = 40
    static let windowWords = 20

    /// The sentences of the sermon's transcript: its segments when it has any with text, otherwise
    /// `transcriptText` as untimed text.
    public static func sentences(in sermon: SermonText) -> [TimedSentence] {
        if sermon.segments.contains(where: { !isBlank($0.text) }) { return sentences(in: sermon.segments) }
        return sentences(in: sermon.transcriptText)
    }

    /// Timed sentences from segments; segments are taken in time order whatever order they come in.
    public static func sentences(in segments: [TimedSegment]) -> [TimedSentence] {
        // Sort with the input position as the last key so equal times keep their given order (a stable,
        // deterministic order).
        let ordered = segments.enumerated().sorted { a, b in
            if a.element.start != b.element.start { return a.element.start < b.element.start }
            if a.element.end != b.element.end { return a.element.end < b.element.end }
            return a.offset < b.offset
        }
        let pieces = ordered.map { s -> Piece in
            let start = s.element.start.isFinite ? max(0, s.element.start) : 0
            let end = s.element.end.isFinite ? max(start, s.element.end) : start
            return Piece(text: s.element.text, start: start, end: end)
        }
        return split(pieces)
    }

    /// Untimed sentences from plain text. Line breaks count as pauses (like segment boundaries) for text
    /// without punctuation.
    public static func sentences(in text: String) -> [TimedSentence] {
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        return split(lines.map { Piece(text: String($0), start: nil, end: nil) })
    }

    // MARK: - Internals

    struct Piece {
        var text: String
        var start: Double?
        var end: Double?
    }

    /// A word of the stream with the audio position of its first and last character.
    struct Word {
        var text: String
        var piece: Int
        var start: Double?
        var end: Double?
    }

    static func split(_ pieces: [Piece]) -> [TimedSentence] {
        let words = words(of: pieces)
        guard !words.isEmpty else { return [] }
        var out: [TimedSentence] = []
        var sentenceStart = 0
        for i in words.indices {
            let next: String? = i + 1 < words.count ? words[i + 1].text : nil
            if next == nil || endsSentence(words[i].text, next: next!) {
                emit(words[sentenceStart...i], into: &out)
                sentenceStart = i + 1
            }
        }
        return out
    }

    /// Emits one punctuated sentence, or several chunks when it is too long to be a single sentence.
    private static func emit(_ words: ArraySlice<Word>, into out: inout [TimedSentence]) {
        guard words.count > maxSentenceWords else {
            out.append(sentence(words))
            return
        }
        // Cut at segment (or line) boundaries, merging short pieces so fragments of three words don't become
        // "sentences" of their own.
        var chunks: [ArraySlice<Word>] = []
        var runStart = words.startIndex
        for i in words.indices where i + 1 == words.endIndex || words[i + 1].piece != words[i].piece {
            chunks.append(words[runStart...i])
            runStart = i + 1
        }
        var merged: [ArraySlice<Word>] = []
        for chunk in chunks {
            if let last = merged.last, last.count + chunk.count <= mergeWords {
                merged[merged.count - 1] = words[last.startIndex..<chunk.endIndex]
            } else {
                merged.append(chunk)
            }
        }
        for chunk in merged {
            guard chunk.count > maxPieceWords else {
                out.append(sentence(chunk))
                continue
            }
            // Even windows: 45 words become 23 + 22 rather than 20 + 20 + 5.
            let n = (chunk.count + windowWords - 1) / windowWords
            var from = chunk.startIndex
            for w in 0..<n {
                let size = chunk.count / n + (w < chunk.count % n ? 1 : 0)
                out.append(sentence(chunk[from..<(from + size)]))
                from += size
            }
        }
    }

    private static func sentence(_ words: ArraySlice<Word>) -> TimedSentence {
        TimedSentence(text: words.map(\.text).joined(separator: " "), start: words.first!.start,
                      end: words.last!.end, wordCount: words.count)
    }

    /// The words of every piece with times interpolated by byte offset within the piece: a sentence that
    /// starts halfway through a 10 s segment starts about 5 s in. A word that starts its segment gets the
    /// segment's own start exactly (and the last word its end), so a whole-segment sentence keeps exact times.
    static func words(of pieces: [Piece]) -> [Word] {
        var out: [Word] = []
        for (p, piece) in pieces.enumerated() {
            let bytes = Array(piece.text.utf8)
            var ranges: [Range<Int>] = []
            var i = 0
            while i < bytes.count {
                while i < bytes.count, isSpace(bytes, i) { i += spaceWidth(bytes, i) }
                let s = i
                while i < bytes.count, !isSpace(bytes, i) { i += 1 }
                if i > s { ranges.append(s..<i) }
            }
            guard let first = ranges.first, let last = ranges.last else { continue }
            let span = Double(max(1, last.upperBound - first.lowerBound))
            func time(_ offset: Int) -> Double? {
                guard let start = piece.start, let end = piece.end else { return nil }
                return start + (end - start) * Double(offset - first.lowerBound) / span
            }
            for (k, r) in ranges.enumerated() {
                out.append(Word(text: String(decoding: bytes[r], as: UTF8.self), piece: p,
                                start: k == 0 ? piece.start : time(r.lowerBound),
                                end: k == ranges.count - 1 ? piece.end : time(r.upperBound)))
            }
        }
        return out
    }

    /// ASCII whitespace and U+00A0 (no-break space, which some engines emit between words).
    private static func isSpace(_ b: [UInt8], _ i: Int) -> Bool {
        switch b[i] {
        case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C: return true
        case 0xC2: return i + 1 < b.count && b[i + 1] == 0xA0
        default: return false
        }
    }

    private static func spaceWidth(_ b: [UInt8], _ i: Int) -> Int { b[i] == 0xC2 ? 2 : 1 }

    // MARK: Sentence ends

    /// Closing quotes and brackets that may follow the final punctuation: `he said "Amen."`.
    private static let closers: Set<Character> = ["\"", "'", "\u{201D}", "\u{2019}", ")", "]", "}", "\u{00BB}"]
    private static let openers: Set<Character> = ["(", "[", "{", "\u{201C}", "\u{2018}", "\u{00AB}"]

    /// Always followed by a name, never the end of a sentence: "Dr. King", "St. Paul".
    private static let titles: Set<String> = ["mr", "mrs", "ms", "dr", "st", "prof", "rev", "fr", "sr", "jr", "pr",
                                             "cf", "vs", "viz", "approx"]

    /// Abbreviations that end a sentence only when they aren't followed by a number: "Rom. 8:28", "v. 28",
    /// "ch. 8", "p. 12".
    private static let beforeNumbers: Set<String> = [
        "gen", "ex", "exod", "lev", "num", "deut", "josh", "judg", "sam", "kgs", "chron", "neh", "esth", "ps", "psa",
        "prov", "eccl", "eccles", "isa", "jer", "lam", "ezek", "dan", "hos", "obad", "mic", "nah", "hab", "zeph",
        "hag", "zech", "mal", "matt", "mt", "mk", "lk", "jn", "rom", "cor", "gal", "eph", "phil", "col", "thess",
        "tim", "tit", "philem", "heb", "jas", "pet", "jud", "v", "vv", "ver", "ch", "chap", "p", "pp", "vol", "no",
    ]

    /// Whether `word` ends a sentence, given the word that follows it.
    static func endsSentence(_ word: String, next: String) -> Bool {
        var core = Substring(word)
        // `dropLast(1)`: the argument-less `dropLast()` of a Substring is O(n) (see `Prose.sentence`).
        while let c = core.last, closers.contains(c) { core = core.dropLast(1) }
        guard let mark = core.last else { return false }
        if mark == "!" || mark == "?" || mark == "\u{2026}" { return true }
        guard mark == "." else { return false }
        let stem = core.drop(while: { closers.contains($0) || openers.contains($0) }).dropLast()
        if stem.hasSuffix("..") { return true }  // "and so..." trails off: a sentence end
        let lower = stem.lowercased()
        let nextFirst = next.first(where: { $0.isLetter || $0.isNumber })
        if titles.contains(lower) { return false }
        if beforeNumbers.contains(lower), nextFirst?.isNumber == true { return false }
        // An initial ("C. S. Lewis") is one capital letter.
        if stem.count == 1, stem.first!.isUppercase { return false }
        // "e.g.", "i.e.", "U.S.": a dotted abbreviation ends a sentence only before a capital.
        if stem.contains(".") { return nextFirst?.isUppercase == true }
        return true
    }

    static func isBlank(_ s: String) -> Bool { s.allSatisfy(\.isWhitespace) }
}
