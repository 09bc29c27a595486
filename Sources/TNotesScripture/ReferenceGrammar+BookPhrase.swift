/// The grammar's first part: the book phrase ("1 Cor", "the book of first corinthians", "Romans").
extension ReferenceGrammar {
    func bookPhrase(at start: Int) -> BookPhrase? {
        guard start < tokens.count, tokens[start].kind != .punct else { return nil }
        if let after = introducer(at: start), let phrase = bookName(at: after, start: start, introduced: true) {
            return phrase
        }
        return bookName(at: start, start: start, introduced: false)
    }

    private func bookName(at index: Int, start: Int, introduced: Bool) -> BookPhrase? {
        guard index < tokens.count else { return nil }
        if let (number, baseIndex) = prefix(at: index), baseIndex < tokens.count, tokens[baseIndex].kind == .word,
           let base = BookNames.numbered[tokens[baseIndex].text], let book = base.books[number - 1] {
            return BookPhrase(book: book, start: start, end: afterAbbreviationDot(baseIndex + 1, base.abbreviation),
                              tier: base.tier, capitalOK: capitalOK(tokens[baseIndex], base.abbreviation),
                              introduced: introduced)
        }
        let first = tokens[index]
        guard first.kind == .word, let candidates = BookNames.byFirstWord[first.text] else { return nil }
        candidates: for candidate in candidates {
            var next = index + 1
            for word in candidate.rest {
                guard next < tokens.count, tokens[next].spaced, tokens[next].isWord(word) else { continue candidates }
                next += 1
            }
            return BookPhrase(book: candidate.name.book, start: start,
                              end: afterAbbreviationDot(next, candidate.name.abbreviation), tier: candidate.name.tier,
                              capitalOK: capitalOK(first, candidate.name.abbreviation), introduced: introduced)
        }
        return nil
    }

    /// "the book of", "gospel according to", ...: the index after it.
    private func introducer(at index: Int) -> Int? {
        var start = index
        if start < tokens.count, tokens[start].isWord("the") { start += 1 }
        guard start < tokens.count, tokens[start].kind == .word else { return nil }
        sequences: for sequence in BookNames.introducers where sequence[0] == tokens[start].text {
            var next = start
            for word in sequence {
                guard next < tokens.count, tokens[next].isWord(word) else { continue sequences }
                next += 1
            }
            return next
        }
        return nil
    }

    /// A numbered book's prefix: "1", "1st", "First", "I" / "II" / "III". Returns the number and the index of
    /// the token after it. Only the prefix is checked here, not that a numbered book's name follows.
    private func prefix(at index: Int) -> (Int, Int)? {
        let token = tokens[index]
        switch token.kind {
        case .number:
            guard token.digits == 1, (1...3).contains(token.value) else { return nil }
            // "v2 John", "12John": a digit glued to a word or number before it is not a prefix.
            if index > 0, !token.spaced, tokens[index - 1].kind != .punct { return nil }
            var next = index + 1
            if next < tokens.count, !tokens[next].spaced, let suffix = BookNames.ordinalSuffixes[token.value],
               tokens[next].isWord(suffix) {
                next += 1
            }
            return (token.value, next)
        case .word:
            if let number = BookNames.ordinalWords[token.text] { return (number, index + 1) }
            if let number = BookNames.romanPrefixes[token.text] {
                // In free text only capital numerals: "I Corinthians", never the pronoun "i" of a transcript.
                let upper = token.text.count == 1 ? token.capitalised : token.allCaps
                guard mode == .whole || upper else { return nil }
                return (number, index + 1)
            }
            return nil
        case .punct:
            return nil
        }
    }

    /// True when a numbered book starts at `index` ("..., 2 Cor 5:17"): a list must stop before it.
    func startsNumberedBook(at index: Int) -> Bool {
        guard index < tokens.count, let (_, base) = prefix(at: index), base < tokens.count else { return false }
        return tokens[base].kind == .word && BookNames.numbered[tokens[base].text] != nil
    }

    func afterAbbreviationDot(_ index: Int, _ abbreviation: Bool) -> Int {
        abbreviation && index < tokens.count && tokens[index].isPunct(".") && !tokens[index].spaced ? index + 1 : index
    }

    /// "John", "JOHN", "Rom" meet the capital rule; "john", "rom" and all-capital abbreviations ("PS") do not.
    private func capitalOK(_ token: Token, _ abbreviation: Bool) -> Bool {
        token.capitalised && !(abbreviation && token.allCaps)
    }
}
