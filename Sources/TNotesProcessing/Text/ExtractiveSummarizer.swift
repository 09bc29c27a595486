#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum SummaryType: String, Sendable, CaseIterable {
    case devotional, bullet, theological
}

public struct GeneratedSummary: Sendable, Equatable {
    public var title: String
    public var text: String
    public var type: SummaryType

    public init(title: String, text: String, type: SummaryType) {
        self.title = title
        self.text = text
        self.type = type
    }
}

/// Summarises a sermon by picking its most telling sentences, with no model and no network: the same input
/// always gives byte-identical output.
///
/// A sentence's score combines
/// - salience: how much of the sermon's recurring vocabulary it carries (a TF-IDF weight per term: terms the
///   preacher comes back to score high, terms in nearly every sentence or said once score low);
/// - position: a small lift at the opening and the close, where sermons state and restate their point;
/// - a length factor: "Amen." and a 90-word run-on both make poor key points;
/// - the listener's notes, the strongest signal: a note at time t marks what was being said around t as worth
///   keeping, so sentences within `noteWindow` seconds of a note are lifted (more the closer they are), and
///   more again when they share words with the note.
public struct ExtractiveSummarizer: Sendable {
    /// Finds scripture references in a piece of text, as display strings ("Romans 8:28").
    let referencesIn: @Sendable (String) -> [String]

    /// Seconds either side of a note within which a sentence is lifted by it.
    static let noteWindow = 45.0
    /// Seconds within which a neighbouring sentence's or a note's references are shown beside a key point
    /// that cites none itself.
    static let referenceWindow = 15.0
    /// The summary paragraph's length budget in words.
    static let devotionalWords = 120
    /// Sentences at least this similar (Jaccard over terms) count as saying the same thing.
    static let duplicateSimilarity = 0.6
    static let emptyText = "No transcript or notes to summarise."

    public init(referencesIn: @escaping @Sendable (String) -> [String] = { _ in [] }) {
        self.referencesIn = referencesIn
    }

    /// Whether the sermon has any transcript or note text to summarise (the summary of one without says so).
    public static func hasContent(_ sermon: SermonText) -> Bool {
        !SentenceSplitter.isBlank(sermon.transcriptText)
            || sermon.segments.contains { !SentenceSplitter.isBlank($0.text) }
            || sermon.notes.contains { !SentenceSplitter.isBlank($0.text) }
    }

    public func summarize(_ sermon: SermonText, type: SummaryType) -> GeneratedSummary {
        let title = Self.title(sermon.title, type)
        let ranking = rank(sermon, type: type)
        guard !ranking.units.isEmpty else { return GeneratedSummary(title: title, text: Self.emptyText, type: type) }
        let picked = ranking.pick(count: Self.pointCount(ranking))
        let text: String
        switch type {
        case .bullet:
            text = picked.sorted().map { "- " + Prose.stamp(ranking.units[$0].start) + ranking.units[$0].text }
                .joined(separator: "\n")
        case .devotional:
            text = devotional(ranking, picked: picked)
        case .theological:
            text = theological(ranking, picked: picked.sorted(), sermon: sermon)
        }
        return GeneratedSummary(title: title, text: text, type: type)
    }

    static func title(_ sermonTitle: String, _ type: SummaryType) -> String {
        let label = switch type {
        case .bullet: "Key points"
        case .devotional: "Devotional"
        case .theological: "Theology"
        }
        let t = sermonTitle.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return t.isEmpty ? label : "\(label): \(t)"
    }

    /// 3 key points for a short text, one more per 50 sentences, at most 7 (an hour's sermon). A summary of
    /// notes alone may keep up to 7 of them: they are already the listener's own digest.
    static func pointCount(_ ranking: Ranking) -> Int {
        let n = ranking.units.count
        if ranking.notesOnly { return min(n, 7) }
        return min(n, max(3, min(7, 3 + n / 50)))
    }

    // MARK: - Formats

    /// Top sentences, best first, while they fit the word budget; then read in time order as one paragraph.
    private func devotional(_ ranking: Ranking, picked: [Int]) -> String {
        var kept: [Int] = []
        var words = 0
        for i in picked {
            let n = ranking.units[i].wordCount
            if kept.isEmpty || words + n <= Self.devotionalWords {
                kept.append(i)
                words += n
            }
        }
        return kept.sorted().map { i -> String in
            let text = ranking.units[i].text
            return Prose.sentence(kept.count == 1 ? Prose.truncated(text, words: Self.devotionalWords) : text)
        }.joined(separator: " ")
    }

    /// Key points with the scripture each one cites, then every reference in the sermon.
    private func theological(_ ranking: Ranking, picked: [Int], sermon: SermonText) -> String {
        let refs = ranking.references
        let notes = ranking.notesOnly ? [] : SermonUnits.notes(of: sermon)
        let noteRefs = notes.map { referencesIn($0.text) }
        var lines: [String] = []
        for i in picked {
            let unit = ranking.units[i]
            var cited = refs[i]
            if cited.isEmpty {
                // A point that names no verse itself is usually about the verse just read ("That is the whole
                // gospel in one line."), or the listener noted the verse while it was said: take the references
                // of the sentence before and of notes taken meanwhile — close in time only, since a reference
                // shown beside a sentence claims the sentence is about it. (Not the sentence after: that one
                // more often starts the next verse.)
                if i > 0, Self.near(ranking.units[i - 1], unit, within: Self.referenceWindow) { cited += refs[i - 1] }
                for (n, note) in notes.enumerated() {
                    if let t = note.start, let d = SermonUnits.distance(from: t, to: unit), d <= Self.referenceWindow {
                        cited += noteRefs[n]
                    }
                }
            }
            let list = Self.unique(cited)
            let suffix = list.isEmpty ? "" : " (\(list.joined(separator: "; ")))"
            lines.append("- " + Prose.stamp(unit.start) + unit.text + suffix)
        }
        // Every reference in order of first appearance: transcript and notes merged by time (a note after the
        // sentence at the same second); an untimed transcript comes before the notes.
        var events: [(time: Double, kind: Int, order: Int, refs: [String])] = []
        for (i, unit) in ranking.units.enumerated() {
            events.append((unit.start ?? -1, 0, i, refs[i]))
        }
        for (n, note) in notes.enumerated() {
            events.append((note.start ?? 0, 1, n, noteRefs[n]))
        }
        events.sort { a, b in
            if a.time != b.time { return a.time < b.time }
            if a.kind != b.kind { return a.kind < b.kind }
            return a.order < b.order
        }
        let all = Self.unique(events.flatMap(\.refs))
        lines.append("Scripture cited: " + (all.isEmpty ? "none found" : all.joined(separator: ", ")))
        return lines.joined(separator: "\n")
    }

    /// Whether `b` (which follows `a`) starts within `window` seconds of `a`'s end; untimed neighbours are near.
    static func near(_ a: TextUnit, _ b: TextUnit, within window: Double) -> Bool {
        guard let aEnd = a.end ?? a.start, let bStart = b.start else { return true }
        return bStart - aEnd <= window
    }

    static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    // MARK: - Scoring

    struct Ranking {
        /// Transcript sentences, or the notes when there is no transcript.
        var units: [TextUnit]
        var notesOnly: Bool
        var sets: [[Int]]
        var scores: [Double]
        /// Per unit, the references it cites (empty lists unless the summary is theological).
        var references: [[String]]

        /// Unit indices by score, best first; the earlier unit wins a tie, so the order is total.
        var order: [Int] {
            units.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        }

        /// The best `count` units that don't repeat one already taken, best first.
        func pick(count: Int) -> [Int] {
            var picked: [Int] = []
            for i in order {
                guard picked.count < count else { break }
                let repeats = picked.contains { j in
                    if sets[i].isEmpty || sets[j].isEmpty {
                        return units[i].text.lowercased() == units[j].text.lowercased()
                    }
                    return TermSet.jaccard(sets[i], sets[j]) >= ExtractiveSummarizer.duplicateSimilarity
                }
                if !repeats { picked.append(i) }
            }
            return picked
        }
    }

    func rank(_ sermon: SermonText, type: SummaryType) -> Ranking {
        var units = SermonUnits.transcript(of: sermon)
        let notes = SermonUnits.notes(of: sermon)
        let notesOnly = units.isEmpty
        if notesOnly { units = notes }
        let n = units.count
        guard n > 0 else { return Ranking(units: [], notesOnly: true, sets: [], scores: [], references: []) }

        let index = TermIndex(units.map(\.text))
        // Term weight: log-damped frequency in the whole sermon × inverse sentence frequency.
        let weight = index.frequency.indices.map { t in
            log(1 + Double(index.frequency[t])) * log(1 + Double(n) / Double(index.documentFrequency[t]))
        }
        // Salience: the sentence's distinct terms' weight, damped by √(count) so long sentences don't win on
        // length alone; scaled to 0...1 across the sermon.
        var salience = index.sets.map { set -> Double in
            var sum = 0.0
            for t in set { sum += weight[t] }
            return sum / (Double(set.count) + 2).squareRoot()
        }
        if let top = salience.max(), top > 0 { salience = salience.map { $0 / top } }

        let references: [[String]] = type == .theological ? units.map { referencesIn($0.text) } : units.map { _ in [] }

        // The notes' terms, for the shared-word lift. Their weight sums are fixed per note.
        let noteSets = notesOnly ? [] : notes.map { index.knownSet(of: $0.text) }
        let noteWeight = noteSets.map { set -> Double in
            var sum = 0.0
            for t in set { sum += weight[t] }
            return sum
        }

        var scores = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let unit = units[i]
            var noteLift = 0.0
            for (k, note) in notes.enumerated() where !notesOnly {
                let shared = noteWeight[k] > 0
                    ? TermSet.sharedWeight(index.sets[i], noteSets[k], weight) / noteWeight[k] : 0
                if let t = note.start, let d = SermonUnits.distance(from: t, to: unit) {
                    // Linear fall-off to nothing at the window's edge; shared words count for more near the note
                    // than far from it (the same words said elsewhere are only an echo).
                    let near = max(0, 1 - d / Self.noteWindow)
                    noteLift += 0.6 * near + shared * (0.1 + 0.5 * near)
                } else {
                    // An untimed transcript: the words are the only link between a note and a sentence.
                    noteLift += 0.6 * shared
                }
            }
            // Several notes on one passage lift it more, but not without bound.
            noteLift = min(noteLift, 1.5)

            let rel = n > 1 ? Double(i) / Double(n - 1) : 0
            let position = 0.1 * max(0, 1 - rel / 0.15) + 0.06 * max(0, (rel - 0.85) / 0.15)
            let scripture = references[i].isEmpty ? 0 : 0.25
            scores[i] = Self.lengthFactor(unit.wordCount) * (salience[i] + position + noteLift + scripture)
        }
        return Ranking(units: units, notesOnly: notesOnly, sets: index.sets, scores: scores, references: references)
    }

    /// 1 for 10–35 words; short sentences fall towards 0.2 ("Amen.", "Right?"), long ones as 35/words.
    static func lengthFactor(_ words: Int) -> Double {
        if words <= 4 { return 0.2 }
        if words < 10 { return 0.2 + 0.8 * Double(words - 4) / 6 }
        if words <= 35 { return 1 }
        return 35 / Double(words)
    }
}
