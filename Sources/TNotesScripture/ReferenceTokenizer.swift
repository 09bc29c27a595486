/// One word, number or punctuation mark of the scanned text.
struct Token: Sendable {
    enum Kind: UInt8, Sendable { case word, number, punct }

    let kind: Kind
    /// Words: lower-cased (ASCII only; empty for words longer than `maxWordLength`, which no book name or
    /// number word is). Punctuation: the mark, with every dash written "-". Numbers: empty.
    let text: String
    /// Numbers: their value (`tooLarge` past four digits). Others: 0.
    let value: Int
    /// Numbers: how many digits were written ("1,000" is told from a verse list by it).
    let digits: Int
    let range: Range<String.Index>
    /// Separated from the previous token by white space (true for the first token). "1Cor" and "3:16" are
    /// not; "1 Cor" is.
    let spaced: Bool
    /// First letter upper case ("John", "JOHN").
    let capitalised: Bool
    /// Two or more letters, all upper case ("PS", "JOHN").
    let allCaps: Bool

    static let maxWordLength = 15
    static let tooLarge = 100_000

    func isWord(_ word: String) -> Bool { kind == .word && text == word }
    func isPunct(_ mark: String) -> Bool { kind == .punct && text == mark }
}

/// Splits text into tokens in one pass over its UTF-8 bytes: runs of letters, runs of digits, and single
/// punctuation marks; white space only separates. A word stops at a digit and the other way round, so "1Cor"
/// is two adjacent tokens. Non-ASCII letters stay inside words (no book name has one); en and em dashes become
/// "-"; a no-break space is white space.
enum ReferenceTokenizer {
    static func tokenize(_ text: String) -> [Token] {
        let bytes = text.utf8
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count / 4)
        var index = bytes.startIndex
        var spaced = true

        while index < bytes.endIndex {
            let byte = bytes[index]
            switch ByteClass(byte) {
            case .space:
                spaced = true
                bytes.formIndex(after: &index)
            case .digit:
                let start = index
                var value = 0
                var digits = 0
                while index < bytes.endIndex, ByteClass(bytes[index]) == .digit {
                    if digits < 5 { value = value * 10 + Int(bytes[index] &- 0x30) }
                    digits += 1
                    bytes.formIndex(after: &index)
                }
                if digits > 4 { value = Token.tooLarge }
                tokens.append(Token(kind: .number, text: "", value: value, digits: digits, range: start..<index,
                                    spaced: spaced, capitalised: false, allCaps: false))
                spaced = false
            case .letter, .other:
                // A non-ASCII character is either a dash, a no-break space, typographic punctuation, or part of
                // a word.
                if byte >= 0x80, let (kind, length) = nonASCIIMark(bytes, at: index) {
                    let end = bytes.index(index, offsetBy: length)
                    if kind == .space {
                        spaced = true
                    } else {
                        tokens.append(Token(kind: .punct, text: kind == .dash ? "-" : "'", value: 0, digits: 0,
                                            range: index..<end, spaced: spaced, capitalised: false, allCaps: false))
                        spaced = false
                    }
                    index = end
                    continue
                }
                let start = index
                var length = 0
                var upper = 0
                var letters = 0
                var ascii = true
                while index < bytes.endIndex {
                    let b = bytes[index]
                    let cls = ByteClass(b)
                    if cls == .letter {
                        letters += 1
                        if b < 0x61 { upper += 1 }
                    } else if cls == .other {
                        // Only a lead byte can start a mark; continuation bytes belong to the current character.
                        if b >= 0xC0, nonASCIIMark(bytes, at: index) != nil { break }
                        ascii = false
                    } else {
                        break
                    }
                    length += 1
                    bytes.formIndex(after: &index)
                }
                let first = bytes[start]
                let word = ascii && length <= Token.maxWordLength ? lowercased(bytes[start..<index]) : ""
                tokens.append(Token(kind: .word, text: word, value: 0, digits: 0, range: start..<index, spaced: spaced,
                                    capitalised: first >= 0x41 && first <= 0x5A,
                                    allCaps: letters >= 2 && upper == letters && ascii))
                spaced = false
            case .punct:
                let end = bytes.index(after: index)
                tokens.append(Token(kind: .punct, text: String(UnicodeScalar(byte)), value: 0, digits: 0,
                                    range: index..<end, spaced: spaced, capitalised: false, allCaps: false))
                spaced = false
                index = end
            }
        }
        return tokens
    }

    private enum ByteClass: Equatable {
        case space, digit, letter, punct, other

        init(_ byte: UInt8) {
            switch byte {
            case 0x30...0x39: self = .digit
            case 0x41...0x5A, 0x61...0x7A: self = .letter
            case 0x09...0x0D, 0x20: self = .space
            case 0x80...: self = .other
            default: self = .punct
            }
        }
    }

    private enum MarkKind { case dash, space, apostrophe }

    /// Recognises the few non-ASCII characters that matter: dashes (U+2010...U+2015, U+2212), white space
    /// (U+00A0, U+2000...U+200B, U+202F, U+3000), and typographic quotes (U+2018...U+201F, treated as
    /// apostrophes so that they break words). Returns the kind and the byte length.
    private static func nonASCIIMark(_ bytes: String.UTF8View, at index: String.Index) -> (MarkKind, Int)? {
        let b0 = bytes[index]
        if b0 == 0xC2 {
            let i1 = bytes.index(after: index)
            guard i1 < bytes.endIndex else { return nil }
            return bytes[i1] == 0xA0 ? (.space, 2) : nil
        }
        guard b0 == 0xE2 || b0 == 0xE3 else { return nil }
        let i1 = bytes.index(after: index)
        guard i1 < bytes.endIndex else { return nil }
        let i2 = bytes.index(after: i1)
        guard i2 < bytes.endIndex else { return nil }
        let b1 = bytes[i1], b2 = bytes[i2]
        if b0 == 0xE3 { return b1 == 0x80 && b2 == 0x80 ? (.space, 3) : nil }
        if b1 == 0x80 {
            switch b2 {
            case 0x90...0x95: return (.dash, 3)
            case 0x80...0x8B, 0xAF: return (.space, 3)
            case 0x98...0x9F: return (.apostrophe, 3)
            default: return nil
            }
        }
        if b1 == 0x88 && b2 == 0x92 { return (.dash, 3) }
        return nil
    }

    /// An ASCII word in lower case. Words of at most 15 bytes are stored inline by String: no allocation.
    private static func lowercased(_ slice: Substring.UTF8View) -> String {
        String(unsafeUninitializedCapacity: slice.count) { buffer in
            var i = 0
            for b in slice {
                buffer[i] = (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
                i += 1
            }
            return i
        }
    }
}
