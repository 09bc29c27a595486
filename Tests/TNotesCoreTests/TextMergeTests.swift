import Testing
import TNotesCore

@Suite struct TextMergeTests {
    func merge(_ base: String, _ first: String, _ second: String) -> TextMerge.Outcome {
        TextMerge.merge(base: base, first: first, second: second)
    }

    /// Byte-exact comparison (String's `==` treats canonically equivalent texts as equal).
    func scalars(_ a: String, _ b: String) -> Bool { a.unicodeScalars.elementsEqual(b.unicodeScalars) }

    @Test func editsAtBothEndsMergeCleanly() {
        let r = merge("one two three four five six", "ONE two three four five six", "one two three four five SIX")
        #expect(r == TextMerge.Outcome(text: "ONE two three four five SIX", conflicts: 0))
    }

    @Test func sameWordChangedDifferentlyIsAConflictKeepingBoth() {
        let r = merge("one two three four five six", "one two 3 four five six", "one two drei four five six")
        #expect(r.conflicts == 1)
        #expect(r.text.contains("3"))
        #expect(r.text.contains("drei"))
        #expect(r.text == "one two " + TextMerge.conflictPassage(first: "3", second: "drei") + " four five six")
        #expect(r.text == "one two [[3 || drei]] four five six")
    }

    @Test func conflictPassageFormat() {
        #expect(TextMerge.conflictPassage(first: "zwei", second: "deux") == "[[zwei || deux]]")
        #expect(TextMerge.conflictPassage(first: "", second: "deux") == "[[ || deux]]")
        #expect(TextMerge.conflictPassage(first: "zwei", second: "") == "[[zwei || ]]")
    }

    @Test func insertionOnOneSideAndDeletionOnTheOther() {
        let base = "one two three four five six"
        let r = merge(base, "one two three and a half four five six", "one three four five six")
        #expect(r == TextMerge.Outcome(text: "one three and a half four five six", conflicts: 0))
        let r2 = merge(base, "zero one two three four five six", "one two three four five")
        #expect(r2 == TextMerge.Outcome(text: "zero one two three four five", conflicts: 0))
    }

    @Test func identicalEditsAreTakenOnce() {
        #expect(merge("the cat sat", "the dog sat", "the dog sat") == TextMerge.Outcome(text: "the dog sat", conflicts: 0))
        // The same edit on both sides, plus another edit on one side.
        #expect(merge("a b c d e f", "a B c d e F", "a B c d e f") == TextMerge.Outcome(text: "a B c d e F", conflicts: 0))
        // Both append the same words.
        #expect(merge("alpha beta", "alpha beta gamma", "alpha beta gamma") == TextMerge.Outcome(text: "alpha beta gamma", conflicts: 0))
    }

    @Test func identities() {
        let base = "Shopping:\n- milk\n- eggs  (free range)\n"
        let edited = "Shopping:\n- oat milk\n- eggs  (free range)\n- bread\n"
        let other = "Shopping:\n- milk\n- eggs\n"
        for changed in [edited, other, "", base] {
            #expect(merge(base, base, changed) == TextMerge.Outcome(text: changed, conflicts: 0))
            #expect(merge(base, changed, base) == TextMerge.Outcome(text: changed, conflicts: 0))
            #expect(merge(base, changed, changed) == TextMerge.Outcome(text: changed, conflicts: 0))
        }
    }

    /// Decision: deleting a passage on one side while the other edits it is a conflict (the edited words are
    /// kept, the deleting side's part is empty), never a silent deletion.
    @Test func deletingEverythingVersusEditingAWordIsAConflict() {
        #expect(merge("one two three", "", "one 2 three") == TextMerge.Outcome(text: "[[ || one 2 three]]", conflicts: 1))
        #expect(merge("one two three", "one 2 three", "") == TextMerge.Outcome(text: "[[one 2 three || ]]", conflicts: 1))
        // Deleting everything against an untouched side is a plain deletion.
        #expect(merge("one two three", "", "one two three") == TextMerge.Outcome(text: "", conflicts: 0))
    }

    @Test func deletingAWordVersusEditingItIsAConflictWithoutDoubledSpaces() {
        let r = merge("one two three four", "one three four", "one 2 three four")
        #expect(r == TextMerge.Outcome(text: "one [[ || 2]] three four", conflicts: 1))
    }

    @Test func neighbouringConflictsAreOnePassage() {
        #expect(merge("a b c", "x y z", "p q r") == TextMerge.Outcome(text: "[[x y z || p q r]]", conflicts: 1))
        #expect(merge("keep a b c keep", "keep x y c keep", "keep p q c keep")
            == TextMerge.Outcome(text: "keep [[x y || p q]] c keep", conflicts: 1))
        // Words both sides inserted alike stay outside the brackets.
        #expect(merge("one three", "one two X three", "one two Y three")
            == TextMerge.Outcome(text: "one two [[X || Y]] three", conflicts: 1))
        // Conflicts apart from each other are counted apart.
        #expect(merge("a b c d e", "A b c d E", "Á b c d É").conflicts == 2)
    }

    @Test func bothInsertingDifferentTextAtTheSamePlaceKeepsBoth() {
        let r = merge("Notes:", "Notes: call Ann", "Notes: buy milk")
        #expect(r == TextMerge.Outcome(text: "Notes: [[call Ann || buy milk]]", conflicts: 1))
    }

    @Test func punctuationStaysWithItsWord() {
        #expect(merge("Hello, world.", "Hello, world!", "Hi, world.") == TextMerge.Outcome(text: "Hi, world!", conflicts: 0))
    }

    @Test func unicode() {
        let base = "café 🇫🇷 naïve 日本語 テキスト end"
        let r = merge(base, "café 🇫🇷 naïve 日本語 テキスト 終わり", "Café 🇫🇷 naïve 日本語 テキスト end")
        #expect(r == TextMerge.Outcome(text: "Café 🇫🇷 naïve 日本語 テキスト 終わり", conflicts: 0))

        let family = merge("x 👩‍👩‍👧 y", "x 👩‍👩‍👦 y", "x 👨‍👩‍👧 y")
        #expect(family.conflicts == 1)
        #expect(scalars(family.text, "x [[👩‍👩‍👦 || 👨‍👩‍👧]] y"))

        // A combining accent stays on its letter (decomposed é = "e" + U+0301).
        let accents = merge("e\u{301}a b", "e\u{301}a B", "E\u{301}a b")
        #expect(scalars(accents.text, "E\u{301}a B"))
        #expect(accents.conflicts == 0)

        // A change of normalization alone is an edit, and is kept.
        let normalized = merge("caf\u{E9} ok", "cafe\u{301} ok", "caf\u{E9} OK")
        #expect(scalars(normalized.text, "cafe\u{301} OK"))
        #expect(normalized.conflicts == 0)

        // Ideographic space (U+3000) separates words too.
        let cjk = merge("東京\u{3000}大阪\u{3000}京都", "東京\u{3000}名古屋\u{3000}京都", "東京\u{3000}大阪\u{3000}奈良")
        #expect(scalars(cjk.text, "東京\u{3000}名古屋\u{3000}奈良"))
        #expect(cjk.conflicts == 0)
    }

    @Test func whitespaceIsPreservedExactly() {
        let base = "Title\n\nfirst  para   line\twith tabs\n\n\nsecond para\r\nend  "
        let first = "Title\n\nFirst  para   line\twith tabs\n\n\nsecond para\r\nend  "
        let second = "Title\n\nfirst  para   line\twith tabs\n\n\nsecond para\r\nEND  "
        let r = merge(base, first, second)
        #expect(r.conflicts == 0)
        #expect(scalars(r.text, "Title\n\nFirst  para   line\twith tabs\n\n\nsecond para\r\nEND  "))
        // A whitespace-only change on one side and a word edit on the other both survive.
        #expect(merge("a b c", "a  b c", "a b C") == TextMerge.Outcome(text: "a  b C", conflicts: 0))
    }

    @Test func emptyBase() {
        #expect(merge("", "hello", "world") == TextMerge.Outcome(text: "[[hello || world]]", conflicts: 1))
        #expect(merge("", "hello", "") == TextMerge.Outcome(text: "hello", conflicts: 0))
        #expect(merge("", "", "world") == TextMerge.Outcome(text: "world", conflicts: 0))
        #expect(merge("", "same", "same") == TextMerge.Outcome(text: "same", conflicts: 0))
        #expect(merge("", "", "") == TextMerge.Outcome(text: "", conflicts: 0))
    }

    /// Random small edits on both sides: identities hold, the result is the same each time, and every word a
    /// side added is in the result.
    @Test func noLostWords() {
        var rng = SplitMix(seed: 7)
        let vocabulary = ["a", "b", "the", "cat", "dog,", "end.", "é", "日本", "🙂", "e\u{301}"]
        let separators = [" ", " ", "  ", "\n", "\t"]
        func text(_ words: [String]) -> String {
            var s = ""
            for (i, word) in words.enumerated() {
                if i > 0 { s += separators[(i * 3 + i / 4) % separators.count] }
                s += word
            }
            return s
        }
        func edited(_ words: [String]) -> [String] {
            var w = words
            for _ in 0...rng.below(3) {
                switch rng.below(3) {
                case 0: w.insert("new\(rng.below(5))", at: rng.below(w.count + 1))
                case 1: if !w.isEmpty { w.remove(at: rng.below(w.count)) }
                default: if !w.isEmpty { w[rng.below(w.count)] = "N\(rng.below(9))" }
                }
            }
            return w
        }
        func counts(_ s: String) -> [Substring: Int] {
            var t = s
            for marker in ["[[", "]]", " || "] { t = t.replacing(marker, with: " ") }
            var c: [Substring: Int] = [:]
            for w in t.split(whereSeparator: \.isWhitespace) { c[w, default: 0] += 1 }
            return c
        }
        for _ in 0..<500 {
            let baseWords = (0..<rng.below(12)).map { _ in vocabulary[rng.below(vocabulary.count)] }
            let firstWords = edited(baseWords)
            let secondWords = rng.below(4) == 0 ? firstWords : edited(baseWords)
            let base = text(baseWords), first = text(firstWords), second = text(secondWords)
            let r = merge(base, first, second)
            #expect(r == merge(base, first, second))
            #expect(merge(base, base, second) == TextMerge.Outcome(text: second, conflicts: 0))
            #expect(merge(base, first, base) == TextMerge.Outcome(text: first, conflicts: 0))
            #expect(merge(base, first, first) == TextMerge.Outcome(text: first, conflicts: 0))
            if r.conflicts == 0 { #expect(!r.text.contains("[[")) }
            let inBase = counts(base), inResult = counts(r.text)
            for side in [first, second] {
                for (word, n) in counts(side) {
                    #expect(inResult[word, default: 0] >= n - inBase[word, default: 0],
                            "lost \(word) merging \(base.debugDescription), \(first.debugDescription), \(second.debugDescription)")
                }
            }
        }
    }

    /// Transcript-sized: 20,000 words.
    func transcript(_ count: Int) -> [String] {
        let words = ["so", "the", "meeting", "started,", "and", "we", "talked", "about", "budget.", "Then"]
        return (0..<count).map { i in i % 17 == 0 ? "w\(i)" : words[(i * 7 + i / 10) % words.count] }
    }

    @Test func twentyThousandWordsWithOneEditPerSideIsFast() {
        let words = transcript(20_000)
        var first = words, second = words, expected = words
        first[1_234] = "EDITED"
        second[17_000] = "CHANGED"
        expected[1_234] = "EDITED"
        expected[17_000] = "CHANGED"
        let clock = ContinuousClock()
        var r = TextMerge.Outcome(text: "", conflicts: 0)
        let elapsed = clock.measure {
            r = merge(words.joined(separator: " "), first.joined(separator: " "), second.joined(separator: " "))
        }
        #expect(r == TextMerge.Outcome(text: expected.joined(separator: " "), conflicts: 0))
        #expect(elapsed < .seconds(1))
    }

    @Test func twentyThousandWordsWithALargeMoveOrRewriteIsFast() {
        let words = transcript(20_000)
        let base = words.joined(separator: " ")
        var second = words
        second[19_000] = "CHANGED"
        // first moves a 5,000-word block to the end.
        let moved = Array(words[..<3_000] + words[8_000...] + words[3_000..<8_000])
        let clock = ContinuousClock()
        var r = TextMerge.Outcome(text: "", conflicts: 0)
        var elapsed = clock.measure {
            r = merge(base, moved.joined(separator: " "), second.joined(separator: " "))
        }
        #expect(elapsed < .seconds(1))
        #expect(r.text.contains("CHANGED"))
        #expect(r.text.contains("w3009"))  // a word from the moved block
        // first rewrites everything.
        let rewritten = (0..<20_000).map { "r\($0 % 3_001)" }.joined(separator: " ")
        elapsed = clock.measure {
            r = merge(base, rewritten, second.joined(separator: " "))
        }
        #expect(elapsed < .seconds(1))
        #expect(r.conflicts >= 1)
        #expect(r.text.contains("CHANGED"))
        #expect(r.text.contains("r3000"))
    }
}

/// A small seeded generator, so the random test is the same on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
