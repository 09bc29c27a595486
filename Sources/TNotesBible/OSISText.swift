/// Turning one verse entry of an OSIS module into the plain text of that verse.
///
/// SWORD's own plain rendering (`stripText`) is close but not right for quoting a verse: an entry carries more
/// than the verse. It holds the headings that precede the verse ("A Psalm of David." before Psalms 23:1), the
/// speaker labels of the Song of Solomon ("Beloved"), footnotes, and after the last verse of a chapter whatever
/// the module put between chapters (the KJV's subscriptions, "Written to the Romans from Corinthus…"; in the
/// WEB, the whole glossary after Revelation 22:21). Removing footnotes also glues words where the module has
/// no space around the note ("Christ,<note>…</note>which" → "Christ,which").
///
/// So the text is made in three steps: `prepare` works on the raw OSIS (drops what is not verse text, marks
/// where footnotes were), SWORD's OSISPlain filter renders the rest (entities, quotation markers, line and
/// paragraph elements), and `finish` settles the footnote marks, drops pilcrows and collapses white space.
enum OSISText {
    /// Stands where a footnote was, until the plain text around it is known (a private-use character, which
    /// no module's text contains and OSISPlain passes through unchanged).
    static let noteMark: Character = "\u{E000}"
    private static let noteMarkUTF8: [UInt8] = Array("\u{E000}".utf8)

    private static let noteName = Array("note".utf8)
    /// Elements dropped with everything inside them: footnotes and cross-references, headings, speaker labels.
    private static let droppedElements: Set<[UInt8]> = [noteName, Array("title".utf8), Array("speaker".utf8)]
    private static let chapterName = Array("chapter".utf8)
    /// <w> carries Strong's numbers and morphology, which OSISPlain would print (" <H7462>"). Its start tag is
    /// kept bare rather than dropped: OSISPlain upper-cases only the text directly inside <divineName>, and the
    /// KJV relies on that twice over, with `<divineName>Lord</divineName>` to be shown "LORD" and
    /// `<divineName><w>LORD’s</w></divineName>` to stay "LORD’s".
    private static let wordName = Array("w".utf8)
    private static let bareWordTag = Array("<w>".utf8)
    private static let endIDAttribute = Array(" eID=".utf8)

    /// Raw OSIS of one entry → OSIS holding only the verse's own text.
    ///
    /// Works on bytes: OSIS markup is ASCII, and the text between tags is passed through untouched, so UTF-8
    /// needs no decoding here.
    static func prepare(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            guard raw[index] == UInt8(ascii: "<") else {
                out.append(raw[index])
                index += 1
                continue
            }
            // An unterminated tag ends the usable text.
            guard let close = raw[index...].firstIndex(of: UInt8(ascii: ">")) else { break }
            let tag = Tag(raw[index...close])
            if tag.name == chapterName, tag.hasEndID {
                // The chapter is over: the rest of the entry is what lies between chapters or books.
                break
            }
            if droppedElements.contains(tag.name) {
                if !tag.isEnd {
                    if tag.name == noteName { out.append(contentsOf: noteMarkUTF8) }
                    index = tag.isEmpty ? close + 1 : indexAfterEnd(of: tag.name, in: raw, from: close + 1)
                    continue
                }
                // A stray end tag: drop it.
            } else if tag.name == wordName {
                if tag.isEnd {
                    out.append(contentsOf: raw[index...close])
                } else if !tag.isEmpty {
                    out.append(contentsOf: bareWordTag)
                }
            } else {
                out.append(contentsOf: raw[index...close])
            }
            index = close + 1
        }
        return out
    }

    /// Plain text from OSISPlain → the verse on one line: footnote marks become a space where the note held
    /// the only word break ("Christ,which" → "Christ, which") and nothing elsewhere, pilcrows and USFM leftovers
    /// go, runs of white space become one space, and the ends are trimmed.
    static func finish(_ plain: String) -> String {
        let characters = Array(plain)
        var result = ""
        result.reserveCapacity(characters.count)
        var pendingSpace = false
        var offset = 0
        while offset < characters.count {
            let character = characters[offset]
            if character == noteMark {
                if noteNeedsSpace(characters, at: offset) { pendingSpace = true }
            } else if character == "¶" {
                // The KJV marks paragraphs with "¶ " at the start of a verse; a quoted verse does not need it.
            } else if character.isWhitespace {
                pendingSpace = true
            } else if let end = usfmMarkerEnd(characters, at: offset) {
                // A USFM marker the module's conversion from USFM left in the text: the KJV has "the \nd LORD" in
                // 27 verses (Exodus 6:3, 17:16, …), which SWORD prints as is.
                pendingSpace = true
                offset = end
                continue
            } else {
                if pendingSpace, !result.isEmpty { result.append(" ") }
                pendingSpace = false
                result.append(character)
            }
            offset += 1
        }
        return result
    }

    /// If a USFM character marker starts at `offset` — a backslash, an optional "+", letters or digits, an
    /// optional "*" ("\nd", "\+nd*", "\f*") — the offset just past it; nil otherwise.
    private static func usfmMarkerEnd(_ characters: [Character], at offset: Int) -> Int? {
        guard characters[offset] == "\\" else { return nil }
        var index = offset + 1
        if index < characters.count, characters[index] == "+" { index += 1 }
        let nameStart = index
        while index < characters.count, characters[index].isASCII, characters[index].isLetter || characters[index].isNumber {
            index += 1
        }
        guard index > nameStart else { return nil }
        if index < characters.count, characters[index] == "*" { index += 1 }
        return index
    }

    /// True when a removed note separated two words: something other than space or an opening mark before it,
    /// and a word or an opening quotation after it. "angel<note/> to" (space after) and "up,<note/>" (end of
    /// verse) need nothing.
    private static func noteNeedsSpace(_ characters: [Character], at offset: Int) -> Bool {
        let before = characters[..<offset].last { $0 != noteMark }
        let after = characters[(offset + 1)...].first { $0 != noteMark }
        guard let before, let after else { return false }
        if before.isWhitespace || "“‘([\"'".contains(before) { return false }
        return after.isLetter || after.isNumber || "“‘(\"".contains(after)
    }

    /// The index just past the end tag that closes an element whose start tag ended before `start`, counting
    /// nested elements of the same name; the end of `raw` if it is never closed.
    private static func indexAfterEnd(of name: [UInt8], in raw: [UInt8], from start: Int) -> Int {
        var depth = 1
        var index = start
        while index < raw.count {
            guard raw[index] == UInt8(ascii: "<"), let close = raw[index...].firstIndex(of: UInt8(ascii: ">")) else {
                index += 1
                continue
            }
            let tag = Tag(raw[index...close])
            if tag.name == name, !tag.isEmpty {
                depth += tag.isEnd ? -1 : 1
                if depth == 0 { return close + 1 }
            }
            index = close + 1
        }
        return raw.count
    }

    /// What `prepare` needs to know of one tag, from "<" to ">" inclusive.
    private struct Tag {
        let name: [UInt8]
        /// "</name>"
        let isEnd: Bool
        /// "<name …/>"
        let isEmpty: Bool
        private let bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            var index = bytes.startIndex + 1
            isEnd = index < bytes.endIndex && bytes[index] == UInt8(ascii: "/")
            if isEnd { index += 1 }
            let nameStart = index
            while index < bytes.endIndex, Tag.isNameByte(bytes[index]) { index += 1 }
            name = Array(bytes[nameStart..<index])
            isEmpty = bytes.count >= 3 && bytes[bytes.endIndex - 2] == UInt8(ascii: "/")
        }

        /// Carries an eID attribute: the end milestone of an element written as a pair of empty tags
        /// (`<chapter eID="Rev.22"/>`).
        var hasEndID: Bool {
            let pattern = OSISText.endIDAttribute
            guard bytes.count > pattern.count else { return false }
            return (bytes.startIndex...(bytes.endIndex - pattern.count)).contains { start in
                bytes[start..<(start + pattern.count)].elementsEqual(pattern)
            }
        }

        private static func isNameByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }
}
