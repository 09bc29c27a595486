import Foundation
import Testing
@testable import TNotesScripture

/// Contract §8.1 for the reference scanner: it reads every note, transcript and title a store holds, so it
/// must take any text: huge, odd Unicode (lone combining marks, ZWJ sequences, marks glued to digits), numbers
/// of any length. It answers references or none; each match's range slices the text it was found in.
@Suite("scripture: hostile text")
struct HostileTextScriptureTests {
    static let odd = [
        "\u{301}", "\u{301}John 3:16", "John\u{301} 3:16", "John 3\u{301}:16", "John 3:16\u{301}", "John 3:1\u{301}6",
        "👨‍👩‍👧 John 3:16 👨‍👩‍👧", "John 3:16‍👨‍👩‍👧", "Romans 8:28\u{200D}", "1\u{FE0F}\u{20E3} John 1:1",
        "John 99999999999999999999999:1", "John 3:99999999999999999999", "Psalm 119:176-99999999999",
        "John 3:16-", "John 3:16—4", "John 3:16–\u{301}", "\u{2212}\u{2212}John", "John\u{00A0}3:16", "John\u{3000}3:16",
        "ＪＯＨＮ ３:１６", "\u{202E}61:3 nhoJ\u{202C}", "\u{FEFF}John 3:16\u{0}", "", " ", "\n\n\n", "1 2 3", ":::---,,,",
        String(repeating: "1 ", count: 10_000), String(repeating: "John ", count: 10_000),
        String(repeating: "first ", count: 10_000) + "John 1:1",
    ]

    @Test("odd Unicode and endless numbers give references or none, with ranges that slice the text")
    func oddText() {
        for text in Self.odd {
            for match in ScriptureReferences.find(in: text) {
                let slice = text[match.range]
                #expect(!slice.isEmpty, "\(text.debugDescription)")
                #expect(match.reference.chapter >= 1 && (match.reference.verseStart ?? 1) >= 1, "\(match.reference)")
            }
            _ = ScriptureReferences.references(in: text)
            _ = ScriptureReferences.parse(text)
            _ = ScriptureReferences.parseMatches(text)?.map { text[$0.range] }
        }
        #expect(ScriptureReferences.references(in: "John 99999999999999999999999:1").isEmpty)
    }

    @Test("a 10 MB note is scanned in one pass: every reference in it, in order")
    func hugeText() {
        let filler = String(repeating: "grace and peace to you 👨‍👩‍👧 \u{301} ", count: 40_000)  // ~1.3 MB
        var text = ""
        for i in 1...8 { text += filler + "Romans 8:\(i) " }
        #expect(text.utf8.count > 10_000_000)
        let found = ScriptureReferences.references(in: text)
        #expect(found.map(\.display) == (1...8).map { "Romans 8:\($0)" })
    }
}
