import TNotesCore

/// A piece of a sermon's text that can be scored and quoted: a transcript sentence or one of the listener's
/// notes.
struct TextUnit: Sendable, Equatable {
    enum Source: Sendable, Equatable { case transcript, note }

    var text: String
    var start: Double?
    var end: Double?
    var wordCount: Int
    var source: Source

    init(_ sentence: TimedSentence) {
        text = sentence.text
        start = sentence.start
        end = sentence.end
        wordCount = sentence.wordCount
        source = .transcript
    }

    init(_ note: TimedNote) {
        text = note.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        start = note.timestamp
        end = note.timestamp
        wordCount = text.split(separator: " ").count
        source = .note
    }
}

/// Term statistics over a list of texts, shared by the summariser (salience) and the assistant (BM25).
struct TermIndex {
    var vocabulary = Vocabulary()
    /// Per text: its term ids in order, repeats kept.
    var terms: [[Int]] = []
    /// Per text: its distinct term ids, sorted.
    var sets: [[Int]] = []
    /// Per term: occurrences over all texts.
    var frequency: [Int] = []
    /// Per term: how many texts hold it.
    var documentFrequency: [Int] = []

    init(_ texts: [String]) {
        for text in texts {
            let ids = TextTerms.terms(in: text).map { vocabulary.intern($0) }
            terms.append(ids)
            sets.append(TermSet.make(ids))
        }
        frequency = Array(repeating: 0, count: vocabulary.count)
        documentFrequency = Array(repeating: 0, count: vocabulary.count)
        for ids in terms { for id in ids { frequency[id] += 1 } }
        for set in sets { for id in set { documentFrequency[id] += 1 } }
    }

    /// Ids of `text`'s terms that occur in the indexed texts (others cannot match anything), as a set.
    func knownSet(of text: String, dropping extra: Set<String> = []) -> [Int] {
        TermSet.make(TextTerms.terms(in: text, dropping: extra).compactMap { vocabulary.lookup($0) })
    }
}

/// The sermon's text in the order the summariser and assistant read it.
enum SermonUnits {
    /// Notes with text, in time order (input position breaks ties, so the order is fully determined).
    static func notes(of sermon: SermonText) -> [TextUnit] {
        let kept = sermon.notes.enumerated().filter { !SentenceSplitter.isBlank($0.element.text) }.map { item in
            let t = item.element.timestamp
            return (offset: item.offset, note: TimedNote(timestamp: t.isFinite ? max(0, t) : 0, text: item.element.text))
        }
        return kept.sorted { a, b in
            a.note.timestamp != b.note.timestamp ? a.note.timestamp < b.note.timestamp : a.offset < b.offset
        }.map { TextUnit($0.note) }
    }

    static func transcript(of sermon: SermonText) -> [TextUnit] {
        SentenceSplitter.sentences(in: sermon).map(TextUnit.init)
    }

    /// The gap in seconds between a moment and a unit's span (0 inside it); nil when the unit is untimed.
    static func distance(from t: Double, to unit: TextUnit) -> Double? {
        guard let s = unit.start else { return nil }
        let e = max(s, unit.end ?? s)
        if t < s { return s - t }
        if t > e { return t - e }
        return 0
    }
}

/// Text shaping shared by the summary and answer formats.
enum Prose {
    /// `[mm:ss] ` before timed text, nothing before untimed text.
    static func stamp(_ time: Double?) -> String {
        time.map { "[\(ClockTime.format($0))] " } ?? ""
    }

    /// A transcript chunk as a sentence of prose: first letter capitalised, a full stop when speech-to-text
    /// left none (unpunctuated windows), a trailing comma or dash turned into one.
    static func sentence(_ text: String) -> String {
        // `dropLast(1)`, not `dropLast()`: on a Substring the argument-less call is Collection's, which counts
        // the whole string each time, and these loops were quadratic in a run of trailing marks (a 100,000-
        // character note of dashes took the summariser minutes; tnotes-fuzz-render's timeout found it).
        var s = Substring(text)
        while let c = s.last, c.isWhitespace || c == "," || c == ";" || c == ":" || c == "-" || c == "\u{2014}" {
            s = s.dropLast(1)
        }
        guard let first = s.first else { return "" }
        var out = first.isLowercase ? first.uppercased() + s.dropFirst() : String(s)
        var core = Substring(out)
        while let c = core.last, "\"')]\u{201D}\u{2019}".contains(c) { core = core.dropLast(1) }
        if let c = core.last, !".!?\u{2026}".contains(c) { out += "." }
        return out
    }

    /// At most `limit` words of `text`, with "…" when cut.
    static func truncated(_ text: String, words limit: Int) -> String {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count > limit else { return text }
        return words.prefix(limit).joined(separator: " ") + "\u{2026}"
    }
}
