import XCTest
@testable import TNotesProcessing
import TNotesCore

final class ExtractiveSummarizerTests: XCTestCase {
    let summarizer = ExtractiveSummarizer(referencesIn: SermonFixture.references)

    /// The whole transcript as one string with single spaces, for "is this quote really from the sermon".
    var transcript: String { SermonFixture.segments.map(\.text).joined(separator: " ") }

    /// Splits `- [mm:ss] text` into its time label and text.
    func parseBullet(_ line: String) -> (time: String?, text: String)? {
        guard line.hasPrefix("- ") else { return nil }
        let rest = line.dropFirst(2)
        guard rest.hasPrefix("["), let close = rest.firstIndex(of: "]") else { return (nil, String(rest)) }
        return (String(rest[rest.index(after: rest.startIndex)..<close]), String(rest[rest.index(close, offsetBy: 2)...]))
    }

    func seconds(_ label: String) -> Int {
        label.split(separator: ":").reduce(0) { $0 * 60 + Int($1)! }
    }

    // MARK: Shapes

    func testBulletSummaryIsTimedKeyPointsFromTheTranscriptInTimeOrder() {
        let summary = summarizer.summarize(SermonFixture.sermon, type: .bullet)
        XCTAssertEqual(summary.type, .bullet)
        XCTAssertEqual(summary.title, "Key points: No Condemnation: Forgiven and Free")
        let lines = summary.text.split(separator: "\n").map(String.init)
        XCTAssertTrue((3...7).contains(lines.count), "\(lines.count) key points")
        var previous = -1
        for line in lines {
            guard let bullet = parseBullet(line), let time = bullet.time else {
                return XCTFail("not a timed bullet: \(line)")
            }
            XCTAssertTrue(transcript.contains(bullet.text), "not from the transcript: \(bullet.text)")
            // The label is the time the sentence starts: within the segment that holds its first words.
            let segment = SermonFixture.segments.first { $0.text.contains(bullet.text.prefix(25)) }
            XCTAssertNotNil(segment, bullet.text)
            if let segment {
                XCTAssertGreaterThanOrEqual(seconds(time), Int(segment.start), line)
                XCTAssertLessThanOrEqual(seconds(time), Int(segment.end), line)
            }
            XCTAssertGreaterThan(seconds(time), previous, "bullets out of time order")
            previous = seconds(time)
        }
    }

    func testDevotionalIsOneShortParagraphOfSermonSentences() {
        let summary = summarizer.summarize(SermonFixture.sermon, type: .devotional)
        XCTAssertEqual(summary.title, "Devotional: No Condemnation: Forgiven and Free")
        XCTAssertFalse(summary.text.isEmpty)
        XCTAssertFalse(summary.text.contains("\n"))
        XCTAssertFalse(summary.text.contains("["), "prose carries no timestamps")
        let words = summary.text.split(separator: " ").count
        XCTAssertGreaterThan(words, 20)
        XCTAssertLessThanOrEqual(words, ExtractiveSummarizer.devotionalWords)
        XCTAssertTrue(summary.text.hasSuffix("."))
        // Every sentence of the paragraph is one the preacher said, in the order he said them.
        let sentences = SentenceSplitter.sentences(in: summary.text).map(\.text)
        XCTAssertGreaterThanOrEqual(sentences.count, 2)
        var from = transcript.startIndex
        for sentence in sentences {
            guard let found = transcript.range(of: sentence, range: from..<transcript.endIndex) else {
                return XCTFail("not from the transcript, or out of order: \(sentence)")
            }
            from = found.upperBound
        }
    }

    func testTheologicalListsEachPointsReferencesAndEveryReferenceInOrder() {
        let summary = summarizer.summarize(SermonFixture.sermon, type: .theological)
        XCTAssertEqual(summary.title, "Theology: No Condemnation: Forgiven and Free")
        let lines = summary.text.split(separator: "\n").map(String.init)
        // Transcript and notes merged by time, each reference once: Matthew 18:22 is read at 4:18 and noted at
        // 4:32; Colossians 3:13 appears only in a note.
        XCTAssertEqual(lines.last, "Scripture cited: Romans 8:1, Romans 8:15, Matthew 18:22, Ephesians 4:32, "
                       + "Romans 8:28, Romans 8:38-39, Colossians 3:13")
        let points = lines.dropLast()
        XCTAssertTrue((3...7).contains(points.count))
        for line in points {
            XCTAssertTrue(line.hasPrefix("- ["), line)
            // A point that cites a verse lists it after the sentence.
            for ref in SermonFixture.references(in: line.components(separatedBy: " (").first!) {
                XCTAssertTrue(line.hasSuffix(")") && line.components(separatedBy: " (").last!.contains(ref), line)
            }
        }
        XCTAssertTrue(points.contains { $0.hasSuffix("(Ephesians 4:32)") }, summary.text)
    }

    func testTheologicalPointTakesReferencesFromTheNoteBesideIt() {
        // The closing sentence names no verse, but the note taken while it was said does.
        let summary = summarizer.summarize(SermonFixture.sermon, type: .theological)
        let closing = summary.text.split(separator: "\n").first { $0.contains("name one person you need to forgive") }
        XCTAssertNotNil(closing, summary.text)
        XCTAssertTrue(closing?.contains("Colossians 3:13") ?? false, String(closing ?? ""))
    }

    func testScriptureCitedSaysSoWhenThereIsNone() {
        let summary = ExtractiveSummarizer().summarize(SermonFixture.sermon, type: .theological)
        XCTAssertEqual(summary.text.split(separator: "\n").last, "Scripture cited: none found")
        XCTAssertFalse(summary.text.contains("("), "no reference lists without a detector")
    }

    // MARK: Determinism

    func testOutputIsIdenticalOnEveryRunAndWhateverTheSegmentOrder() {
        var shuffled = SermonFixture.sermon
        shuffled.segments = Array(shuffled.segments.reversed())
        shuffled.notes = Array(shuffled.notes.reversed())
        for type in SummaryType.allCases {
            let first = summarizer.summarize(SermonFixture.sermon, type: type)
            let other = ExtractiveSummarizer(referencesIn: SermonFixture.references)
            let second = other.summarize(SermonFixture.sermon, type: type)
            XCTAssertEqual(first, second, "\(type)")
            XCTAssertEqual(first, summarizer.summarize(shuffled, type: type), "\(type): input order leaked into output")
            let hour = SermonFixture.hour()
            XCTAssertEqual(summarizer.summarize(hour, type: type), summarizer.summarize(hour, type: type), "\(type)")
        }
    }

    // MARK: Notes as importance

    /// Ten sentences; the 4th and 7th have the same number of words and of distinct terms, each said once,
    /// so they are equally salient, and both sit mid-sermon (no position lift).
    func equalSalienceSermon(notes: [TimedNote]) -> SermonText {
        let texts = [
            "Welcome everyone and thank you for joining us this morning.",
            "Our reading comes from the letter to the Romans.",
            "Paul wrote this letter to believers living in the capital.",
            "Hope anchors weary travelers amid stormy seasons of grief and loss.",
            "We sing together before we open the reading.",
            "Grace welcomes strangers into the household of faith.",
            "Joy strengthens tired pilgrims beside desert valleys of thirst and dust.",
            "Mercy answers failure with patience and with grace.",
            "The letter closes with greetings to many friends.",
            "Let us pray together as we close this morning.",
        ]
        let segments = texts.enumerated().map {
            TimedSegment(start: Double($0.offset) * 60, end: Double($0.offset) * 60 + 8, text: $0.element)
        }
        return SermonText(title: "Equal", segments: segments, notes: notes)
    }

    /// The ranking of `equalSalienceSermon` with one note.
    func rankWithNote(at time: Double, _ text: String = "write this down") -> ExtractiveSummarizer.Ranking {
        summarizer.rank(equalSalienceSermon(notes: [TimedNote(timestamp: time, text: text)]), type: .bullet)
    }

    func testSentenceNearANoteOutranksAnEquallySalientOneFarFromNotes() {
        let plain = summarizer.rank(equalSalienceSermon(notes: []), type: .bullet)
        let hope = 3, joy = 6
        XCTAssertTrue(plain.units[hope].text.hasPrefix("Hope") && plain.units[joy].text.hasPrefix("Joy"))
        XCTAssertEqual(plain.scores[hope], plain.scores[joy], accuracy: 1e-9, "the premise: equal without notes")

        // A note 20 s after the joy sentence ends (the listener writing it down), sharing none of its words.
        let noted = rankWithNote(at: 388)
        XCTAssertGreaterThan(noted.scores[joy], noted.scores[hope])
        XCTAssertEqual(noted.order.first, joy, "the noted passage ranks first")
        let bullets = summarizer.summarize(equalSalienceSermon(notes: [TimedNote(timestamp: 388, text: "write this down")]),
                                           type: .bullet)
        XCTAssertTrue(bullets.text.contains("- [06:00] Joy strengthens tired pilgrims beside desert valleys of thirst and dust."),
                      bullets.text)

        // The same note moved beside the hope sentence turns the order round.
        let moved = rankWithNote(at: 190)
        XCTAssertGreaterThan(moved.scores[hope], moved.scores[joy])

        // Beyond the window a note lifts nothing.
        let far = rankWithNote(at: 360 + 8 + 50)
        XCTAssertEqual(far.scores[joy], far.scores[hope], accuracy: 1e-9)
    }

    func testCloserNotesLiftMoreAndSharedWordsLiftFurther() {
        let near = rankWithNote(at: 370)
        let farther = rankWithNote(at: 400)
        XCTAssertGreaterThan(near.scores[6], farther.scores[6])
        XCTAssertGreaterThan(farther.scores[6], farther.scores[3])

        // Note halfway between sentences 5 (grace, 300–308 s) and 6 (joy, 360–368 s): equal time lift, but the
        // note's words are the grace sentence's.
        let between = rankWithNote(at: 334, "xyzzy")
        let worded = rankWithNote(at: 334, "strangers welcomed into the household")
        XCTAssertGreaterThan(worded.scores[5] - between.scores[5], 0.1, "shared words add to the time lift")
        XCTAssertEqual(worded.scores[6], between.scores[6], accuracy: 1e-9, "and only to the sentence whose words they are")
    }

    // MARK: Missing parts

    func testNotesAloneAreSummarisedWhenThereIsNoTranscript() {
        var sermon = SermonFixture.sermon
        sermon.segments = []
        sermon.transcriptText = ""
        XCTAssertTrue(ExtractiveSummarizer.hasContent(sermon))
        let summary = summarizer.summarize(sermon, type: .bullet)
        let lines = summary.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, SermonFixture.notes.count)
        XCTAssertEqual(lines.first, "- [01:58] Refusing to forgive myself = thinking I'm more righteous than God")
        XCTAssertEqual(lines.last, "- [09:35] Name one person to forgive this week. Colossians 3:13")
        let theology = summarizer.summarize(sermon, type: .theological)
        XCTAssertEqual(theology.text.split(separator: "\n").last, "Scripture cited: Matthew 18:22, Colossians 3:13")
    }

    func testNothingToSummariseSaysSo() {
        let empty = SermonText(title: "Empty", transcriptText: "  \n ",
                               segments: [TimedSegment(start: 0, end: 1, text: " ")],
                               notes: [TimedNote(timestamp: 3, text: "")])
        XCTAssertFalse(ExtractiveSummarizer.hasContent(empty))
        for type in SummaryType.allCases {
            let summary = summarizer.summarize(empty, type: type)
            XCTAssertEqual(summary.text, "No transcript or notes to summarise.")
            XCTAssertEqual(summary.type, type)
        }
        XCTAssertTrue(ExtractiveSummarizer.hasContent(SermonText(title: "", transcriptText: "Grace.")))
        XCTAssertEqual(summarizer.summarize(SermonText(title: "  "), type: .bullet).title, "Key points")
    }

    func testUntimedTranscriptGivesUntimedPoints() {
        var sermon = SermonFixture.sermon
        sermon.segments = []
        let summary = summarizer.summarize(sermon, type: .bullet)
        let lines = summary.text.split(separator: "\n").map(String.init)
        XCTAssertTrue((3...7).contains(lines.count))
        for line in lines {
            let bullet = parseBullet(line)
            XCTAssertNil(bullet?.time, "an untimed transcript has no times to show: \(line)")
            XCTAssertTrue(transcript.contains(bullet?.text ?? "-"), line)
        }
    }

    // MARK: Unpunctuated speech

    func testUnpunctuatedSegmentsBecomeTheSentences() {
        var sermon = SermonFixture.sermon
        sermon.segments = SermonFixture.unpunctuatedSegments
        // Chunks are whole segments (a five-word fragment joins its neighbour), starting at a segment's start.
        let sentences = SentenceSplitter.sentences(in: sermon)
        XCTAssertGreaterThan(sentences.count, sermon.segments.count * 3 / 4)
        for sentence in sentences {
            let segment = sermon.segments.first { $0.start == sentence.start }
            XCTAssertNotNil(segment, sentence.text)
            XCTAssertTrue(sentence.text.hasPrefix(segment?.text ?? "-"), sentence.text)
            XCTAssertLessThanOrEqual(sentence.wordCount, SentenceSplitter.mergeWords + 15)
        }

        let summary = summarizer.summarize(sermon, type: .bullet)
        let lines = summary.text.split(separator: "\n").map(String.init)
        XCTAssertTrue((3...7).contains(lines.count))
        for line in lines {
            let bullet = parseBullet(line)
            let segment = sermon.segments.first { bullet?.text.hasPrefix($0.text) ?? false }
            XCTAssertNotNil(segment, line)
            XCTAssertEqual(bullet?.time, segment.map { ClockTime.format($0.start) })
        }
        let devotional = summarizer.summarize(sermon, type: .devotional).text
        XCTAssertTrue(devotional.first?.isUppercase ?? false, "prose is capitalised: \(devotional)")
        XCTAssertTrue(devotional.hasSuffix("."))
    }

    func testUnpunctuatedUntimedTextIsCutIntoWindowsOfAboutTwentyWords() {
        let words = SermonFixture.unpunctuatedSegments.flatMap { $0.text.split(separator: " ") }
        let text = words.prefix(200).joined(separator: " ")
        let sentences = SentenceSplitter.sentences(in: text)
        XCTAssertEqual(sentences.count, 10)
        XCTAssertTrue(sentences.allSatisfy { $0.wordCount == 20 && $0.start == nil && $0.end == nil })
        XCTAssertEqual(sentences.map(\.text).joined(separator: " "), text, "no words lost or reordered")

        let summary = summarizer.summarize(SermonText(title: "Raw", transcriptText: text), type: .bullet)
        XCTAssertEqual(summary.text.split(separator: "\n").count, 3)
        XCTAssertFalse(summary.text.contains("["))
    }

    // MARK: Sentences and terms

    func testSplitterFollowsSentencesAcrossAndWithinSegments() {
        let sentences = SentenceSplitter.sentences(in: [
            TimedSegment(start: 10, end: 20, text: "Condemnation is a courtroom word. It means the judge has spoken and"),
            TimedSegment(start: 20, end: 24, text: "the sentence stands."),
            TimedSegment(start: 30, end: 40,
                         text: "Dr. Stott read Rom. 8:28 to us. C. S. Lewis agreed, e.g. in Mere Christianity! Did he?"),
        ])
        XCTAssertEqual(sentences.map(\.text), [
            "Condemnation is a courtroom word.",
            "It means the judge has spoken and the sentence stands.",
            "Dr. Stott read Rom. 8:28 to us.",
            "C. S. Lewis agreed, e.g. in Mere Christianity!",
            "Did he?",
        ])
        XCTAssertEqual(sentences[0].start, 10)
        // The second sentence starts about halfway through the first segment and ends with the second.
        XCTAssertEqual(sentences[1].start!, 15.0, accuracy: 0.5)
        XCTAssertEqual(sentences[1].end, 24)
        XCTAssertEqual(sentences[2].start, 30)
        XCTAssertEqual(sentences[4].end, 40)
    }

    func testStemmingJoinsFormsOfAWordAndStopWordsAreDropped() {
        XCTAssertEqual(Set(TextTerms.terms(in: "forgive forgiving forgiveness forgiven")).count, 1)
        XCTAssertEqual(Set(TextTerms.terms(in: "loved loving love")).count, 1)
        XCTAssertEqual(TextTerms.terms(in: "You know, we are gonna, um, just say that it's really the thing"), [])
        XCTAssertEqual(TextTerms.terms(in: "God's mercies"), ["god", "mercy"])
        XCTAssertEqual(TextTerms.terms(in: "Romans 8:28"), ["roman", "8", "28"])
    }

    // MARK: Performance

    func testAnHourLongSermonIsSummarisedQuickly() {
        let hour = SermonFixture.hour()
        // A detector as cheap as a real one should be (the fixture's is a quadratic scan, too slow to time).
        let summarizer = ExtractiveSummarizer(referencesIn: { $0.contains("romans 8") ? ["Romans 8"] : [] })
        XCTAssertEqual(hour.segments.count, 600)
        XCTAssertEqual(hour.segments.reduce(0) { $0 + $1.text.split(separator: " ").count }, 9000)
        let clock = ContinuousClock()
        for type in SummaryType.allCases {
            var summary: GeneratedSummary?
            let elapsed = clock.measure { summary = summarizer.summarize(hour, type: type) }
            XCTAssertEqual(summary?.text.split(separator: "\n").count, type == .devotional ? 1 : type == .bullet ? 7 : 8)
            // 50 ms is the budget in an optimised build (about 10 ms measured); a debug build is several times
            // slower, so the bound here only catches a change of complexity.
            XCTAssertLessThan(elapsed, .milliseconds(500), "\(type): \(elapsed)")
        }
    }
}

final class ClockTimeTests: XCTestCase {
    func testFormatsMinutesAndHours() {
        XCTAssertEqual(ClockTime.format(0), "00:00")
        XCTAssertEqual(ClockTime.format(59.99), "00:59")
        XCTAssertEqual(ClockTime.format(724.5), "12:04")
        XCTAssertEqual(ClockTime.format(3599.9), "59:59")
        XCTAssertEqual(ClockTime.format(3600), "1:00:00")
        XCTAssertEqual(ClockTime.format(3725), "1:02:05")
        XCTAssertEqual(ClockTime.format(36_000 + 61), "10:01:01")
        XCTAssertEqual(ClockTime.format(-3), "00:00")
        XCTAssertEqual(ClockTime.format(.nan), "00:00")
        XCTAssertEqual(ClockTime.format(.infinity), "00:00")
    }
}
