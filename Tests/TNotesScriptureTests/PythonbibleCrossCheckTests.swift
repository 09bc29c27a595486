import Foundation
import Testing
@testable import TNotesScripture

/// The parser's written forms cross-checked against an independent parser (pythonbible, through
/// scripts/cross-check-refs.py).
extension ScriptureReferenceTests {
    // MARK: Cross-check against pythonbible

    /// Written cases where pythonbible (0.15.5) reads differently from this parser, and why this parser's
    /// reading is kept. pythonbible's output for these lines is not compared (our own expectation still is,
    /// in `writtenForms`).
    static let knownPythonbibleDifferences: [String: String] = [
        "Rom. 8:1–4": "pythonbible knows only the ASCII hyphen; an en dash ends its reference at 8:1",
        "Rom 8:1—4": "pythonbible knows only the ASCII hyphen; an em dash ends its reference at 8:1",
        "Revelations 21:4": "pythonbible lacks the common misspelling \"Revelations\"",
        "Mt 5:3": "pythonbible lacks the abbreviation Mt",
        "Mk 1:1": "pythonbible lacks the abbreviation Mk",
        "Lk 2:10": "pythonbible lacks the abbreviation Lk",
        "John 3:18-16": "a backwards range: pythonbible drops the reference, we keep the first verse",
        "Rom 8:1; 12:2": "pythonbible does not continue a reference after a semicolon",
        "1 John 3:16-17; 4:7": "pythonbible does not continue a reference after a semicolon",
        "John 3 v 16": "pythonbible does not know the verse marker v / vv",
        "John 3:1-2 Cor 5:17": "pythonbible reads a range across books (John 3:1 through 2 Corinthians 5:17); a"
            + " reference here stays in one book, so the two ends are two references",
        "Rom 8:1,2 Cor 5:17": "pythonbible reads 2 as a second verse of Romans 8 and loses 2 Corinthians",
        // False positives: pythonbible has no notion of a name that is also a word, so any book-like word
        // followed by a number is a reference to it. Here the text decides (see ScriptureReferences).
        "mark 5 people": "lower-case \"mark\" with one number is the verb or the name, not the Gospel",
        "job 3": "lower-case \"job\" with one number is the noun",
        "acts 2 and 3 of the play": "lower-case \"acts\" with one number is the noun",
        "Rev 2 of the spec": "\"Rev\" alone with one number is a revision more often than Revelation",
        "PS 2 more things": "an all-capital \"PS\" is a postscript, not Psalms",
        "The Song 2 is great": "\"Song\" alone with one number is a song",
        "revelation 3 times": "lower-case \"revelation\" with one number is the noun",
        "the first john I met": "pythonbible turns the pronoun I into the numeral 1 (\"1 John 1\")",
        "Mark 1,000 people": "a thousands separator: pythonbible reads Mark 1 and the verse Mark 1:0",
        "John 0": "there is no chapter 0; pythonbible's validation lets it through",
        "Meet Mark 3:30pm": "a time: a verse number glued to letters other than a/b/c/f/ff is no verse",
    ]

    /// The repository root: the cross-check runs scripts/cross-check-refs.py from there.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Whether python3 can import pythonbible. scripts/test.sh installs it; where it is missing the
    /// cross-check is skipped, and the test run says so and why (not a silent pass).
    static var hasPythonbible: Bool {
        (try? run(["python3", "-c", "import pythonbible"], input: "", in: root))?.status == 0
    }

    @Test("written forms and false positives read as pythonbible reads them, or differ for a listed reason",
          .enabled(if: hasPythonbible, "pythonbible is not installed: pip install pythonbible==0.15.5 (scripts/test.sh does)"))
    func crossCheckAgainstPythonbible() throws {
        let cases = Self.writtenCases + Self.falsePositives.filter { !$0.isEmpty }.map { ($0, "") }
        let input = cases.map(\.text).joined(separator: "\n") + "\n"
        let result = try Self.run(["python3", "scripts/cross-check-refs.py"], input: input, in: Self.root)
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == cases.count)

        let texts = Set(cases.map(\.text))
        for text in Self.knownPythonbibleDifferences.keys {
            #expect(texts.contains(text), "listed difference \(text.debugDescription) is no case")
        }

        var agreed = 0
        var differed: [String] = []
        for (line, (text, _)) in zip(lines, cases) {
            let theirs = try JSONDecoder().decode([PythonbibleReference].self, from: Data(line.utf8))
                // pythonbible reports a bare book name ("Mark" in "Mark my words") with no chapter; a reference
                // here always has one. Documented, generic difference.
                .filter { $0.chapter != nil }
                .map(\.key).joined(separator: "; ")
            let ours = Self.found(in: text)
            if ours == theirs {
                agreed += 1
            } else if let reason = Self.knownPythonbibleDifferences[text] {
                differed.append("\(text.debugDescription): ours \(ours.debugDescription), pythonbible \(theirs.debugDescription) — \(reason)")
            } else {
                Issue.record("\(text.debugDescription): ours \(ours.debugDescription), pythonbible \(theirs.debugDescription)")
            }
        }
        print("pythonbible cross-check: \(agreed) agree, \(differed.count) known differences")
        for line in differed { print("  \(line)") }
    }

    private struct PythonbibleReference: Decodable {
        let book: String
        let chapter: Int?
        let verseStart: Int?
        let verseEnd: Int?
        let spanEnd: [Int]?
        let crossBook: String?

        var key: String {
            guard let chapter else { return book }
            var text = ScriptureReference(book: book, chapter: chapter, verseStart: verseStart, verseEnd: verseEnd).display
            if let spanEnd, spanEnd.count == 2 { text += "→\(spanEnd[0]):\(spanEnd[1])" }
            if let crossBook { text += " (to \(crossBook))" }
            return text
        }
    }

    private static func run(_ arguments: [String], input: String, in directory: URL) throws
        -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Input and output are a few kilobytes, well inside a pipe's buffer: write all, then read all.
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }
}
