import Testing
import TNotesCLIRender
import TNotesCore

// The full-screen view of `tnotes record` as lines (contract §8.2): exactly the terminal's height, no line
// wider than it, at every size down to one cell, with hostile values (a huge clock, NaN level, long text).
@Suite("tnotes record's screen")
struct RecordingScreenTests {
    @Test("every size gives exactly its height of lines, none wider than the width")
    func sizes() {
        var screen = RecordingScreen()
        screen.title = "Grace upon grace"
        screen.elapsed = 754
        screen.level = -23
        screen.transcript = [String(repeating: "long ", count: 400), "e\u{301}\u{301}", "In the beginning was the Word."]
        screen.noteLine = String(repeating: "typed ", count: 100)
        screen.lastNote = "line one\nline two"
        screen.notesAdded = 2
        for (w, h) in [(80, 24), (1, 1), (5, 3), (20, 8), (200, 60), (0, 0), (-3, -7)] {
            let lines = screen.lines(width: w, height: h, style: Style(enabled: false))
            #expect(lines.count == max(1, h), "\(w)x\(h)")
            for l in lines { #expect(l.count <= max(1, w), "\(w)x\(h): \(l)") }
        }
        let lines = screen.lines(width: 80, height: 24, style: Style(enabled: false))
        #expect(lines[0].contains("● REC") && lines[0].contains("12:34") && lines[0].contains("Grace upon grace"))
        #expect(lines[1].contains("-23 dBFS"))
        #expect(lines[lines.count - 2].hasPrefix("> …") && lines[lines.count - 2].hasSuffix("typed "), "the note line shows its end")
        #expect(lines.contains { $0.contains("In the beginning was the Word.") })
        #expect(lines.contains { $0.contains("2 notes added: line one line two") })
    }

    @Test("hostile numbers: a clock of 1e19 s, a NaN or infinite level")
    func hostile() {
        var screen = RecordingScreen()
        screen.elapsed = 1e19
        screen.level = .nan
        screen.bytes = .max
        screen.state = "paused"
        var lines = screen.lines(width: 80, height: 10, style: Style(enabled: false))
        #expect(lines[0].contains("PAUSED") && lines[0].contains(ClockTime.format(1e19)))
        screen.level = .infinity
        lines = screen.lines(width: 80, height: 10, style: Style(enabled: true))
        #expect(lines.count == 10)
    }
}
