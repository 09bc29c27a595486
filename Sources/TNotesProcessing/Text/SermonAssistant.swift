#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct AssistantAnswer: Sendable, Equatable {
    public var text: String
    /// The passages the answer rests on, in time order; empty when nothing in the sermon matched.
    public var quotes: [Quote]

    public struct Quote: Sendable, Equatable {
        /// Seconds into the audio; nil only for an untimed transcript.
        public var start: Double?
        public var text: String
        /// "transcript" or "note".
        public var source: String

        public init(start: Double?, text: String, source: String) {
            self.start = start
            self.text = text
            self.source = source
        }
    }

    public init(text: String, quotes: [Quote]) {
        self.text = text
        self.quotes = quotes
    }
}

/// Answers a question about one sermon by quoting it: the transcript sentences and notes that best match the
/// question's words (BM25), each with the time it was said so the listener can go and hear it. It never
/// composes claims of its own, so it cannot put words in the preacher's mouth; when nothing matches it says so.
public struct SermonAssistant: Sendable {
    static let maxQuotes = 3
    /// A passage scoring below this share of the best match is too weak to quote beside it.
    static let relativeCutoff = 0.5
    /// A sentence this short is quoted with the sentence that follows it, which carries its sense.
    static let shortQuoteWords = 6
    /// Sentences further apart than this are not joined into one passage (the excerpt skipped ahead).
    static let pauseSeconds = 10.0
    /// Longer passages (unpunctuated runs) are cut to this many words around the first matching word.
    static let maxQuoteWords = 60
    static let k1 = 1.2
    static let b = 0.75

    /// Words of the question that say how it is asked, not what it is about.
    static let questionWords: Set<String> = [
        "pastor", "preacher", "speaker", "sermon", "message", "talk", "talks", "talked", "talking", "mention",
        "mentions", "mentioned", "explain", "explains", "explained", "describe", "describes", "described", "teach",
        "teaches", "taught", "told", "tells", "means", "meant", "meaning", "happens", "happened", "please",
        "anything", "part", "point", "discuss", "discussed", "preach", "preached", "preaching", "speak", "spoke",
        "speaks",
    ]

    public init() {}

    public func answer(question: String, about sermon: SermonText) -> AssistantAnswer {
        let transcript = Self.passages(SermonUnits.transcript(of: sermon))
        let notes = SermonUnits.notes(of: sermon)
        let units = transcript + notes
        // The speaker's name is how a question refers to him ("what did Pastor Mike say"), not its subject.
        let speakerWords = Set((sermon.speaker ?? "").lowercased().split(whereSeparator: { !$0.isLetter })
            .map(String.init))
        let dropped = Self.questionWords.union(speakerWords)
        let asked = TextTerms.contentWords(in: question, dropping: dropped)

        guard !units.isEmpty else {
            let text = "This sermon has no transcript or notes yet, so there is nothing to search for "
                + "\(Self.topic(question, asked))."
            return AssistantAnswer(text: text, quotes: [])
        }

        let index = TermIndex(units.map(\.text))
        // The question's terms in order (nil: a word the sermon never uses), then as a set for BM25.
        let sequence = asked.map { index.vocabulary.lookup($0.term) }
        let query = TermSet.make(sequence.compactMap { $0 })
        let scores = bm25(index, query: query, sequence: sequence)
        let best = scores.max() ?? 0
        guard best > 0 else { return noMatch(question, asked, sermon: sermon) }

        // Best first; ties go to the earlier passage, transcript before note (units are in that order).
        let ranked = units.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        var chosen: [Int] = []
        for i in ranked where scores[i] >= best * Self.relativeCutoff && chosen.count < Self.maxQuotes {
            // A note that restates a sentence already quoted (or the reverse) adds nothing.
            if chosen.contains(where: { TermSet.jaccard(index.sets[$0], index.sets[i]) >= 0.8 }) { continue }
            chosen.append(i)
        }
        // Time order. An untimed transcript has no times to compare with the notes': it comes first, in order.
        chosen.sort { a, b in
            let ta = units[a].source == .transcript && units[a].start == nil ? -1 : units[a].start ?? 0
            let tb = units[b].source == .transcript && units[b].start == nil ? -1 : units[b].start ?? 0
            return ta != tb ? ta < tb : a < b
        }

        let queryTerms = Set(asked.map(\.term))
        var quotes: [AssistantAnswer.Quote] = []
        for i in chosen {
            let text = Self.excerpt(units[i].text, around: queryTerms)
            let source = units[i].source == .note ? "note" : "transcript"
            quotes.append(.init(start: units[i].start, text: text, source: source))
        }

        let title = sermon.title.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var lines = [title.isEmpty ? "From this sermon:" : "From the sermon \"\(title)\":"]
        lines += quotes.map(Self.line)
        return AssistantAnswer(text: lines.joined(separator: "\n"), quotes: quotes)
    }

    /// Transcript sentences as quotable passages. A sentence joins the one after it (when that follows without
    /// a pause) if it is too short to stand alone ("That is Romans 8:15.") — scored alone it would also win on
    /// BM25's length normalisation with a single matching word — or if it asks a question: a preacher's
    /// question is usually answered by the next sentence, and quoting the question alone answers nothing.
    static func passages(_ sentences: [TextUnit]) -> [TextUnit] {
        var out: [TextUnit] = []
        var pending: TextUnit?
        for var s in sentences {
            if let p = pending {
                if ExtractiveSummarizer.near(p, s, within: pauseSeconds) {
                    s.text = p.text + " " + s.text
                    s.start = p.start
                    s.wordCount += p.wordCount
                } else {
                    out.append(p)
                }
                pending = nil
            }
            if s.wordCount < shortQuoteWords || (s.text.hasSuffix("?") && s.wordCount < maxQuoteWords / 2) {
                pending = s
            } else {
                out.append(s)
            }
        }
        if let p = pending {
            // A short last sentence joins the passage before it instead.
            if let last = out.last, ExtractiveSummarizer.near(last, p, within: pauseSeconds) {
                out[out.count - 1].text += " " + p.text
                out[out.count - 1].end = p.end
                out[out.count - 1].wordCount += p.wordCount
            } else {
                out.append(p)
            }
        }
        return out
    }

    /// `[mm:ss] "…"` for the transcript, `[mm:ss] your note: "…"` for a note.
    static func line(_ quote: AssistantAnswer.Quote) -> String {
        Prose.stamp(quote.start) + (quote.source == "note" ? "your note: " : "") + "\"\(quote.text)\""
    }

    /// Okapi BM25 of every unit against the query's distinct terms, plus a bonus for each pair of the
    /// question's consecutive terms that a unit has side by side too. BM25 alone sees words, not phrases:
    /// asked about "Romans 8:28" it ranks the short "Open your Bibles to Romans chapter 8" near the sentence
    /// that reads Romans 8:28; the pairs (romans, 8) and (8, 28) tell them apart. Likewise "spirit of adoption".
    private func bm25(_ index: TermIndex, query: [Int], sequence: [Int?]) -> [Double] {
        let n = Double(index.terms.count)
        let avgLength = max(1, Double(index.terms.reduce(0) { $0 + $1.count }) / n)
        func idf(_ t: Int) -> Double {
            let df = Double(index.documentFrequency[t])
            return log(1 + (n - df + 0.5) / (df + 0.5))
        }
        let queryIDF = query.map(idf)
        // Adjacent known terms of the question; a word the sermon lacks breaks the phrase.
        var pairs: [Pair: Double] = [:]
        for k in sequence.indices.dropFirst() {
            if let a = sequence[k - 1], let b = sequence[k], a != b { pairs[Pair(a: a, b: b)] = idf(a) + idf(b) }
        }
        return index.terms.map { doc in
            guard !doc.isEmpty else { return 0 }
            let lengthNorm = Self.k1 * (1 - Self.b + Self.b * Double(doc.count) / avgLength)
            var score = 0.0
            for (q, t) in query.enumerated() {
                var tf = 0
                for id in doc where id == t { tf += 1 }
                guard tf > 0 else { continue }
                score += queryIDF[q] * Double(tf) * (Self.k1 + 1) / (Double(tf) + lengthNorm)
            }
            guard !pairs.isEmpty, doc.count > 1 else { return score }
            // Each matching pair counts once per unit; `seen` is only looked up, never iterated.
            var seen = Set<Pair>()
            for k in doc.indices.dropFirst() {
                let pair = Pair(a: doc[k - 1], b: doc[k])
                if let bonus = pairs[pair], seen.insert(pair).inserted { score += bonus }
            }
            return score
        }
    }

    private struct Pair: Hashable { var a: Int, b: Int }

    /// The honest answer: nothing matched. It names what was looked for and points at the sermon's main point,
    /// so the listener still gets somewhere to start.
    private func noMatch(_ question: String, _ asked: [(word: String, term: String)],
                         sermon: SermonText) -> AssistantAnswer {
        var text = "I couldn't find anything about \(Self.topic(question, asked)) in this sermon's transcript or notes."
        let ranking = ExtractiveSummarizer().rank(sermon, type: .bullet)
        if let top = ranking.order.first {
            let unit = ranking.units[top]
            let kind = unit.source == .note ? "Your main note on it" : "The sermon's main point"
            text += "\n\(kind), as a place to start: " + Prose.stamp(unit.start) + "\"\(unit.text)\""
        }
        return AssistantAnswer(text: text, quotes: [])
    }

    /// What the question was about, quoted: its content words, or the question itself when it has none.
    static func topic(_ question: String, _ asked: [(word: String, term: String)]) -> String {
        var words: [String] = []
        for w in asked where !words.contains(w.word) { words.append(w.word) }
        if !words.isEmpty { return "\"" + words.joined(separator: " ") + "\"" }
        var q = Substring(question.split(whereSeparator: \.isWhitespace).joined(separator: " "))
        // `dropLast(1)`: the argument-less `dropLast()` of a Substring is O(n) (see `Prose.sentence`).
        while let c = q.last, c == "?" || c == "." || c == "!" { q = q.dropLast(1) }
        return q.isEmpty ? "your question" : "\"\(q)\""
    }

    /// At most `maxQuoteWords` words of `text`, placed to show its first word matching the question.
    static func excerpt(_ text: String, around terms: Set<String>) -> String {
        let words = text.split(separator: " ")
        guard words.count > maxQuoteWords else { return text }
        let hit = words.firstIndex { w in TextTerms.term(ofWord: String(w)).map(terms.contains) ?? false } ?? 0
        let from = max(0, min(hit - maxQuoteWords / 3, words.count - maxQuoteWords))
        let to = from + maxQuoteWords
        let body = words[from..<to].joined(separator: " ")
        return (from > 0 ? "\u{2026}" : "") + body + (to < words.count ? "\u{2026}" : "")
    }
}
