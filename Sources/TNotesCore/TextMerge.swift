/// Three-way merge of note text, word by word ("no lost words").
///
/// The texts are cut into tokens that alternate between runs of non-whitespace ("words", punctuation included)
/// and runs of whitespace, so that the tokens concatenated give back the exact text. Each side is diffed
/// against the base with the standard library's `CollectionDifference` (Myers) over those tokens, and the two
/// diffs are combined as in classic diff3 (Khanna, Kunal and Pierce, "A formal investigation of diff3"):
/// base tokens that both sides kept, in step, are stable; between them lie chunks. A chunk changed on one side
/// only takes that side; a chunk changed identically on both sides is taken once; a chunk changed differently
/// on both sides is a conflict, and keeps both versions (see `conflictPassage(first:second:)`).
///
/// - Tokens compare by their exact Unicode scalars (UTF-8), not by canonical equivalence, so a change of
///   normalization (`"é"` precomposed vs `"e\u{301}"`) counts as an edit and is kept. Tokens are cut on
///   `Character` boundaries, never inside a grapheme cluster.
/// - A deletion on one side that overlaps an edit on the other is a conflict, not a deletion: the edited words
///   are kept, beside an empty first or second part (`"[[ || one 2 three]]"` when `first` deleted the passage
///   `second` edited). Deleting the whole text on one side while the other edits it therefore yields one
///   conflict that holds the other side's whole text.
/// - Both sides inserting different text at the same place is a conflict too (both insertions kept).
/// - Conflicts separated only by unchanged whitespace are joined into one passage
///   (`"[[x y || p q]]"`, not `"[[x || p]] [[y || q]]"`).
/// - The result depends only on `(base, first, second)`; it is not symmetric in `first` and `second`
///   (`first` is written first in a conflict), so callers pass them in a fixed order.
/// - Cost: each side's common head and tail with the base are cut off first, so a long transcript with a few
///   edits merges in milliseconds (20,000 words, one edit per side: ~40 ms optimized). A changed region longer
///   than `splitSize` tokens is first cut at words that occur once in both texts (patience-diff anchors), so
///   moving a large block of ordinary prose stays fast. When a region needs more than `exactDiffLimit` token
///   edits for certain (a lower bound from token frequencies: a rewrite), it is taken as one replaced block
///   instead of being diffed: still correct, only coarser. What remains slow is a large move of text with no
///   word that occurs once (Myers is quadratic in the edit count).
public enum TextMerge {
    public struct Outcome: Sendable, Equatable {
        public let text: String
        /// Passages both sides changed differently (each kept in `text` in the conflict form of
        /// `conflictPassage(first:second:)`).
        public let conflicts: Int

        public init(text: String, conflicts: Int) {
            self.text = text
            self.conflicts = conflicts
        }
    }

    /// Above this many certain token edits in a changed region (between one side and the base) the region is
    /// treated as one replaced block instead of being diffed token by token. Myers' time grows with the square
    /// of the edit count; 4,000 edits take about 0.1 s.
    static let exactDiffLimit = 4_000

    /// Merges `first` and `second`, two edits of `base`, word by word (diff3 over word tokens).
    ///
    /// `first == base` gives `second`, `second == base` gives `first`, `first == second` gives `first`, all
    /// with no conflicts ("equal" meaning the same Unicode scalars).
    public static func merge(base: String, first: String, second: String) -> Outcome {
        if same(first, base) { return Outcome(text: second, conflicts: 0) }
        if same(second, base) || same(first, second) { return Outcome(text: first, conflicts: 0) }

        var interner = Interner()
        let o = Tokens(text: base, interner: &interner)
        let a = Tokens(text: first, interner: &interner)
        let b = Tokens(text: second, interner: &interner)
        let matchA = matches(base: o.ids, side: a.ids, vocabulary: interner.count)
        let matchB = matches(base: o.ids, side: b.ids, vocabulary: interner.count)

        // diff3: alternate maximal stable runs (base tokens matched in both sides, in step) and the unstable
        // chunks between them, each chunk ending where the next token matched in both sides begins.
        var pieces: [Piece] = []
        var lo = 0, la = 0, lb = 0
        let n = o.ids.count
        while true {
            var i = lo
            while i < n, matchA[i] == la + (i - lo), matchB[i] == lb + (i - lo) { i += 1 }
            if i > lo {
                append(.plain(o.tokens[lo..<i]), to: &pieces)
                la += i - lo
                lb += i - lo
                lo = i
            }
            if lo == n && la == a.ids.count && lb == b.ids.count { break }
            var j = lo
            while j < n, matchA[j] < 0 || matchB[j] < 0 { j += 1 }
            let (ea, eb) = j < n ? (matchA[j], matchB[j]) : (a.ids.count, b.ids.count)
            let baseIds = o.ids[lo..<j], aIds = a.ids[la..<ea], bIds = b.ids[lb..<eb]
            if aIds.elementsEqual(baseIds) || aIds.elementsEqual(bIds) {
                append(.plain(b.tokens[lb..<eb]), to: &pieces)
            } else if bIds.elementsEqual(baseIds) {
                append(.plain(a.tokens[la..<ea]), to: &pieces)
            } else {
                append(.conflict(first: Array(a.tokens[la..<ea]), second: Array(b.tokens[lb..<eb])), to: &pieces)
            }
            lo = j
            la = ea
            lb = eb
        }

        var text = ""
        text.reserveCapacity(max(base.utf8.count, first.utf8.count, second.utf8.count) + 64)
        var conflicts = 0
        for piece in pieces {
            switch piece {
            case .plain(let tokens):
                for token in tokens { text.append(contentsOf: token) }
            case .conflict(let first, let second):
                conflicts += 1
                write(conflictFirst: first, second: second, into: &text)
            }
        }
        return Outcome(text: text, conflicts: conflicts)
    }

    /// How a conflicting passage is written into the merged text: `"[[" + first + " || " + second + "]]"`, so a
    /// person reads `"one [[zwei || deux]] three"` and keeps what they want. A side that deleted the passage
    /// leaves its part empty: `"[[ || deux]]"` (first deleted it), `"[[zwei || ]]"` (second deleted it).
    ///
    /// In the merged text, words both versions share at the passage's start or end stay outside the brackets,
    /// and whitespace at the passage's edges is written outside them (the first version's whitespace when both
    /// have some), so no doubled spaces appear around the brackets. Text that itself contains `"[["`, `" || "`
    /// or `"]]"` is written as it is.
    public static func conflictPassage(first: String, second: String) -> String {
        "[[" + first + " || " + second + "]]"
    }

    // MARK: - Pieces of the result

    private enum Piece {
        case plain(ArraySlice<Substring>)
        case conflict(first: [Substring], second: [Substring])
    }

    /// Appends `piece`, joining a conflict to the previous one when only unchanged whitespace lies between.
    private static func append(_ piece: Piece, to pieces: inout [Piece]) {
        if case .conflict(let first, let second) = piece, pieces.count >= 2,
           case .plain(let between) = pieces[pieces.count - 1],
           between.allSatisfy(isWhitespace),
           case .conflict(let previousFirst, let previousSecond) = pieces[pieces.count - 2] {
            pieces.removeLast(2)
            pieces.append(.conflict(first: previousFirst + between + first, second: previousSecond + between + second))
            return
        }
        if case .plain(let tokens) = piece, tokens.isEmpty { return }
        pieces.append(piece)
    }

    /// Writes one conflict: shared leading and trailing tokens outside the brackets, then edge whitespace outside
    /// them, then `conflictPassage`.
    private static func write(conflictFirst first: [Substring], second: [Substring], into text: inout String) {
        var a = first[...], b = second[...]
        var head = 0
        while head < a.count, head < b.count, exactlyEqual(a[a.startIndex + head], b[b.startIndex + head]) { head += 1 }
        var tail = 0
        while tail < a.count - head, tail < b.count - head,
              exactlyEqual(a[a.endIndex - 1 - tail], b[b.endIndex - 1 - tail]) { tail += 1 }
        for token in a.prefix(head) { text.append(contentsOf: token) }
        let shared = a.suffix(tail)
        a = a.dropFirst(head).dropLast(tail)
        b = b.dropFirst(head).dropLast(tail)

        var leading: Substring?
        var trailing: Substring?
        if let token = a.first, isWhitespace(token) { leading = token; a = a.dropFirst() }
        if let token = b.first, isWhitespace(token) { leading = leading ?? token; b = b.dropFirst() }
        if let token = a.last, isWhitespace(token) { trailing = token; a = a.dropLast() }
        if let token = b.last, isWhitespace(token) { trailing = trailing ?? token; b = b.dropLast() }

        if let leading { text.append(contentsOf: leading) }
        text += conflictPassage(first: a.joined(), second: b.joined())
        if let trailing { text.append(contentsOf: trailing) }
        for token in shared { text.append(contentsOf: token) }
    }

    // MARK: - Tokens

    /// A text cut into alternating word and whitespace runs, with an id per distinct token.
    private struct Tokens {
        let tokens: [Substring]
        let ids: [Int]

        init(text: String, interner: inout Interner) {
            var tokens: [Substring] = []
            var start = text.startIndex
            var index = start
            var inWhitespace: Bool?
            while index < text.endIndex {
                let whitespace = text[index].isWhitespace
                if let current = inWhitespace, current != whitespace {
                    tokens.append(text[start..<index])
                    start = index
                }
                inWhitespace = whitespace
                text.formIndex(after: &index)
            }
            if start < text.endIndex { tokens.append(text[start...]) }
            self.tokens = tokens
            self.ids = tokens.map { interner.id($0) }
        }
    }

    /// Gives equal tokens (same Unicode scalars) the same small integer id.
    private struct Interner {
        private var ids: [Key: Int] = [:]
        var count: Int { ids.count }

        mutating func id(_ token: Substring) -> Int {
            let key = Key(text: token)
            if let id = ids[key] { return id }
            let id = ids.count
            ids[key] = id
            return id
        }

        /// Equality by exact scalars; the hash is String's (canonical-equivalence) hash, which equal keys share.
        private struct Key: Hashable {
            let text: Substring
            static func == (l: Key, r: Key) -> Bool { exactlyEqual(l.text, r.text) }
            func hash(into hasher: inout Hasher) { hasher.combine(text) }
        }
    }

    private static func same(_ l: String, _ r: String) -> Bool { l.utf8.elementsEqual(r.utf8) }

    private static func exactlyEqual(_ l: Substring, _ r: Substring) -> Bool { l.utf8.elementsEqual(r.utf8) }

    private static func isWhitespace(_ token: Substring) -> Bool { token.first?.isWhitespace ?? false }

    // MARK: - Matching one side against the base

    /// Above this many tokens (base and side together, after the common head and tail are cut off) a changed
    /// region is first cut at anchors (see `match(_:_:_:_:into:scratch:)`) before Myers runs on the pieces.
    static let splitSize = 4_096

    /// Per-token counters sized to the vocabulary, zero between uses.
    private struct Scratch {
        var inBase: [Int]
        var inSide: [Int]
        var sidePosition: [Int]

        init(vocabulary: Int) {
            inBase = [Int](repeating: 0, count: vocabulary)
            inSide = inBase
            sidePosition = inBase
        }
    }

    /// For each base token, the index of the side token it is kept as, or -1 when the side deleted or replaced
    /// it. Increasing where not -1.
    private static func matches(base: [Int], side: [Int], vocabulary: Int) -> [Int] {
        var result = [Int](repeating: -1, count: base.count)
        var scratch = Scratch(vocabulary: vocabulary)
        match(base, 0..<base.count, side, 0..<side.count, into: &result, scratch: &scratch)
        return result
    }

    /// Matches `base[baseRange]` against `side[sideRange]`: the common head and tail first; then, when what is
    /// left is large, the tokens that occur exactly once in both parts and in the same order (the longest such
    /// run, as patience diff does) are matched and the gaps between them are matched the same way; otherwise
    /// `CollectionDifference` (Myers) matches the rest. Cutting at unique anchors keeps large moves of text
    /// (which Myers handles in quadratic time) fast in ordinary prose, where many words occur once.
    private static func match(
        _ base: [Int], _ baseRange: Range<Int>, _ side: [Int], _ sideRange: Range<Int>,
        into match: inout [Int], scratch: inout Scratch
    ) {
        var bLo = baseRange.lowerBound, bHi = baseRange.upperBound
        var sLo = sideRange.lowerBound, sHi = sideRange.upperBound
        while bLo < bHi, sLo < sHi, base[bLo] == side[sLo] {
            match[bLo] = sLo
            bLo += 1
            sLo += 1
        }
        while bLo < bHi, sLo < sHi, base[bHi - 1] == side[sHi - 1] {
            bHi -= 1
            sHi -= 1
            match[bHi] = sHi
        }
        if bLo == bHi || sLo == sHi { return }

        for i in bLo..<bHi { scratch.inBase[base[i]] += 1 }
        for j in sLo..<sHi {
            scratch.inSide[side[j]] += 1
            scratch.sidePosition[side[j]] = j
        }
        func resetScratch() {
            for i in bLo..<bHi { scratch.inBase[base[i]] = 0 }
            for j in sLo..<sHi { scratch.inSide[side[j]] = 0 }
        }

        if (bHi - bLo) + (sHi - sLo) > splitSize {
            var anchors: [(base: Int, side: Int)] = []
            for i in bLo..<bHi where scratch.inBase[base[i]] == 1 && scratch.inSide[base[i]] == 1 {
                anchors.append((i, scratch.sidePosition[base[i]]))
            }
            if !anchors.isEmpty {
                resetScratch()
                var baseStart = bLo, sideStart = sLo
                for anchor in longestIncreasing(anchors) {
                    match[anchor.base] = anchor.side
                    TextMerge.match(base, baseStart..<anchor.base, side, sideStart..<anchor.side, into: &match, scratch: &scratch)
                    baseStart = anchor.base + 1
                    sideStart = anchor.side + 1
                }
                TextMerge.match(base, baseStart..<bHi, side, sideStart..<sHi, into: &match, scratch: &scratch)
                return
            }
        }

        // Tokens absent from the other part can't be kept: leave them out of the diff (same result, smaller
        // problem), and count the edits the diff needs at least (by token frequencies).
        let baseKept = (bLo..<bHi).filter { scratch.inSide[base[$0]] > 0 }
        let sideKept = (sLo..<sHi).filter { scratch.inBase[side[$0]] > 0 }
        var leastEdits = 0
        for i in baseKept where scratch.inBase[base[i]] > 0 {
            leastEdits += abs(scratch.inBase[base[i]] - scratch.inSide[base[i]])
            scratch.inBase[base[i]] = -1  // counted
        }
        resetScratch()
        if baseKept.isEmpty || sideKept.isEmpty || leastEdits > exactDiffLimit { return }

        let baseIds = baseKept.map { base[$0] }, sideIds = sideKept.map { side[$0] }
        var removed = [Bool](repeating: false, count: baseIds.count)
        var inserted = [Bool](repeating: false, count: sideIds.count)
        for change in sideIds.difference(from: baseIds) {
            switch change {
            case .remove(let offset, _, _): removed[offset] = true
            case .insert(let offset, _, _): inserted[offset] = true
            }
        }
        var j = 0
        for i in baseIds.indices where !removed[i] {
            while inserted[j] { j += 1 }
            match[baseKept[i]] = sideKept[j]
            j += 1
        }
    }

    /// The longest subsequence of `anchors` (sorted by base position, side positions distinct) whose side
    /// positions increase (patience sorting, O(k log k)).
    private static func longestIncreasing(_ anchors: [(base: Int, side: Int)]) -> [(base: Int, side: Int)] {
        var tails: [Int] = []  // tails[l]: the anchor ending the best run of length l + 1 found so far
        var previous = [Int](repeating: -1, count: anchors.count)
        for (k, anchor) in anchors.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if anchors[tails[mid]].side < anchor.side { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[k] = tails[lo - 1] }
            if lo == tails.count { tails.append(k) } else { tails[lo] = k }
        }
        var run: [(base: Int, side: Int)] = []
        var k = tails.last ?? -1
        while k >= 0 {
            run.append(anchors[k])
            k = previous[k]
        }
        return run.reversed()
    }
}
