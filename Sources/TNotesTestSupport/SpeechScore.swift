import Foundation

/// Scores a transcript against the text that was spoken (the recognizer's tests and the bench, issue #52):
/// word error rate as jiwer computes it, on words lowercased with punctuation removed, and where each
/// recognised word sits in the reference (to check segment times against the time each sentence was spoken).
public enum SpeechScore {
    /// Lowercase words, punctuation dropped (a hyphen or a dash separates words; an apostrophe is dropped, so
    /// "don't" and "dont" are one word).
    public static func words(_ text: String) -> [String] {
        var cleaned = ""
        for ch in text.lowercased() {
            if ch.isLetter || ch.isNumber { cleaned.append(ch) }
            else if ch == "'" || ch == "’" { continue }
            else { cleaned.append(" ") }
        }
        return cleaned.split(separator: " ").map(String.init)
    }

    /// For each hypothesis word, the index of the reference word it was aligned to (a match or a
    /// substitution), or nil (an insertion); and the edit counts. The minimum-edit alignment (Levenshtein over
    /// words, as jiwer's), matches preferred on ties.
    public struct Alignment: Sendable {
        public var referenceIndex: [Int?]
        public var substitutions = 0, deletions = 0, insertions = 0, hits = 0
        public var referenceCount = 0
        /// (S + D + I) / N.
        public var wordErrorRate: Double { Double(substitutions + deletions + insertions) / Double(max(1, referenceCount)) }
    }

    public static func align(reference ref: [String], hypothesis hyp: [String]) -> Alignment {
        let n = ref.count, m = hyp.count
        var cost = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { cost[i][0] = i }
        for j in 0...m { cost[0][j] = j }
        if n > 0 && m > 0 {
            for i in 1...n {
                for j in 1...m {
                    let sub = cost[i - 1][j - 1] + (ref[i - 1] == hyp[j - 1] ? 0 : 1)
                    cost[i][j] = min(sub, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
                }
            }
        }
        var a = Alignment(referenceIndex: [Int?](repeating: nil, count: m), referenceCount: n)
        var i = n, j = m
        while i > 0 || j > 0 {
            if i > 0 && j > 0 && cost[i][j] == cost[i - 1][j - 1] + (ref[i - 1] == hyp[j - 1] ? 0 : 1) {
                if ref[i - 1] == hyp[j - 1] { a.hits += 1 } else { a.substitutions += 1 }
                a.referenceIndex[j - 1] = i - 1
                i -= 1; j -= 1
            } else if i > 0 && cost[i][j] == cost[i - 1][j] + 1 {
                a.deletions += 1
                i -= 1
            } else {
                a.insertions += 1
                j -= 1
            }
        }
        return a
    }

    public static func wordErrorRate(reference: String, hypothesis: String) -> Double {
        align(reference: words(reference), hypothesis: words(hypothesis)).wordErrorRate
    }

    /// A sentence of the reference and when it was spoken (seconds into the audio).
    public struct Sentence: Sendable, Decodable {
        public var start: Double
        public var end: Double
        public var text: String
    }

    /// A transcript segment as the daemon stores it.
    public struct Segment: Sendable {
        public var start: Double
        public var end: Double
        public var text: String
        public init(start: Double, end: Double, text: String) { self.start = start; self.end = end; self.text = text }
    }

    /// The ways `segments` misplace speech: a segment outside the audio, or one whose words were spoken more
    /// than `tolerance` seconds before it starts or after it ends (each recognised word is placed in the
    /// sentence it was aligned to; a word is timed within `tolerance` when its sentence's span overlaps the
    /// segment widened by `tolerance`, and the segment starts no earlier than `tolerance` before its first
    /// word's sentence and ends no later than `tolerance` after its last word's). Empty: every word is in time.
    public static func timingProblems(segments: [Segment], sentences: [Sentence], duration: Double,
                                      tolerance: Double = 1) -> [String] {
        var problems: [String] = []
        var refWords: [String] = [], refSentence: [Int] = []
        for (k, s) in sentences.enumerated() {
            let w = words(s.text)
            refWords += w
            refSentence += [Int](repeating: k, count: w.count)
        }
        var hypWords: [String] = [], hypSegment: [Int] = []
        for (k, g) in segments.enumerated() {
            if g.start < 0 || g.end > duration + 0.05 || g.end < g.start {
                problems.append("segment \(k) [\(g.start), \(g.end)] lies outside the audio (0…\(duration) s)")
            }
            let w = words(g.text)
            hypWords += w
            hypSegment += [Int](repeating: k, count: w.count)
        }
        let alignment = align(reference: refWords, hypothesis: hypWords)
        var spoken = [Int: (first: Int, last: Int)]()  // segment -> its words' sentences
        for (j, r) in alignment.referenceIndex.enumerated() {
            guard let r else { continue }
            let g = hypSegment[j], s = refSentence[r]
            let seg = segments[g], sen = sentences[s]
            if sen.end < seg.start - tolerance || sen.start > seg.end + tolerance {
                problems.append("\"\(hypWords[j])\" in segment \(k(g, seg)) was spoken in [\(sen.start), \(sen.end)]")
            }
            spoken[g] = (min(spoken[g]?.first ?? s, s), max(spoken[g]?.last ?? s, s))
        }
        for (g, span) in spoken.sorted(by: { $0.key < $1.key }) {
            let seg = segments[g]
            if seg.start < sentences[span.first].start - tolerance {
                problems.append("segment \(k(g, seg)) starts \(sentences[span.first].start - seg.start) s before its first words")
            }
            if seg.end > sentences[span.last].end + tolerance {
                problems.append("segment \(k(g, seg)) ends \(seg.end - sentences[span.last].end) s after its last words")
            }
        }
        return problems
    }

    private static func k(_ g: Int, _ s: Segment) -> String { "\(g) [\(s.start), \(s.end)] \"\(s.text.prefix(40))\"" }
}
