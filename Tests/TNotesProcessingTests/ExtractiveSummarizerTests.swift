import Foundation
import Testing
@testable import TNotesProcessing
import TNotesCore

/// The extractive summariser as a unit: the three summary shapes, determinism, notes as a sign of
/// importance, transcripts that are missing, untimed or unpunctuated, sentence splitting and terms, speed.
@Suite("processing: extractive summariser")
struct ExtractiveSummarizerTests {
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

    /// Seconds of an `mm:ss` or `h:mm:ss` label; a label that is not numbers fails the test rather than
    /// trapping the test process.
    func seconds(_ label: String) throws -> Int {
        try label.split(separator: ":").reduce(0) { try $0 * 60 + #require(Int($1), "time label \(label)") }
    }

    // MARK: Shapes

    @Test("bullet summary: 3-7 timed key points from the transcript, in time order, each timed within its segment")
    func bulletSummaryIsTimedKeyPointsFromTheTranscriptInTimeOrder() throws {
        let summary = summarizer.summarize(SermonFixture.sermon, type: .bullet)
        #expect(summary.type == .bullet)
        #expect(summary.title == "Key points: No Condemnation: Forgiven and Free")
        let lines = summary.text.split(separator: "\n").map(String.init)
        #expect((3...7).contains(lines.count), "\(lines.count) key points")
        var previous = -1
        for line in lines {
            let bullet = try #require(parseBullet(line), "not a timed bullet: \(line)")
            let time = try #require(bullet.time, "not a timed bullet: \(line)")
            #expect(transcript.contains(bullet.text), "not from the transcript: \(bullet.text)")
            // The label is the time the sentence starts: within the segment that holds its first words.
            let segment = SermonFixture.segments.first { $0.text.contains(bullet.text.prefix(25)) }
            #expect(segment != nil, "\(bullet.text)")
            if let segment {
                #expect(try seconds(time) >= Int(segment.start), "\(line)")
                #expect(try seconds(time) <= Int(segment.end), "\(line)")
            }
            #expect(try seconds(time) > previous, "bullets out of time order")
            previous = try seconds(time)
        }
    }

    @Test("devotional: one short paragraph of the preacher's own sentences, in the order he said them")
    func devotionalIsOneShortParagraphOfSermonSentences() throws {
        let summary = summarizer.summarize(SermonFixture.sermon, type: .devotional)
        #expect(summary.title == "Devotional: No Condemnation: Forgiven and Free")
        #expect(!summary.text.isEmpty)
        #expect(!summary.text.contains("\n"))
        #expect(!summary.text.contains("["), "prose carries no timestamps")
        let words = summary.text.split(separator: " ").count
        #expect(words > 20)
        #expect(words <= ExtractiveSummarizer.devotionalWords)
        #expect(summary.text.hasSuffix("."))
        // Every sentence of the paragraph is one the preacher said, in the order he said them.
        let sentences = SentenceSplitter.sentences(in: summary.text).map(\.text)
        #expect(sentences.count >= 2)
        var from = transcript.startIndex
        for sentence in sentences {
            let found = try #require(transcript.range(of: sentence, range: from..<transcript.endIndex),
                                     "not from the transcript, or out of order: \(sentence)")
            from = found.upperBound
        }
    }

    @Test("theological: each point lists its references, and every reference is cited once in order")
    func theologicalListsEachPointsReferencesAndEveryReferenceInOrder() {
        let summary = summarizer.summarize(SermonFixture.sermon, type: .theological)
        #expect(summary.title == "Theology: No Condemnation: Forgiven and Free")
        let lines = summary.text.split(separator: "\n").map(String.init)
        // Transcript and notes merged by time, each reference once: Matthew 18:22 is read at 4:18 and noted at
        // 4:32; Colossians 3:13 appears only in a note.
        #expect(lines.last == "Scripture cited: Romans 8:1, Romans 8:15, Matthew 18:22, Ephesians 4:32, "
                + "Romans 8:28, Romans 8:38-39, Colossians 3:13")
        let points = lines.dropLast()
        #expect((3...7).contains(points.count))
        for line in points {
            #expect(line.hasPrefix("- ["), "\(line)")
            // A point that cites a verse lists it after the sentence. (`components` always has a first and
            // a last element.)
            for ref in SermonFixture.references(in: line.components(separatedBy: " (").first!) {
                #expect(line.hasSuffix(")") && line.components(separatedBy: " (").last!.contains(ref), "\(line)")
            }
        }
        #expect(points.contains { $0.hasSuffix("(Ephesians 4:32)") }, "\(summary.text)")
    }

    @Test("theological: a point takes references from the note taken beside it")
    func theologicalPointTakesReferencesFromTheNoteBesideIt() {
        // The closing sentence names no verse, but the note taken while it was said does.
        let summary = summarizer.summarize(SermonFixture.sermon, type: .theological)
        let closing = summary.text.split(separator: "\n").first { $0.contains("name one person you need to forgive") }
        #expect(closing != nil, "\(summary.text)")
        #expect(closing?.contains("Colossians 3:13") ?? false, "\(closing ?? "")")
    }

    @Test("'Scripture cited' says so when there is no reference detector")
    func scriptureCitedSaysSoWhenThereIsNone() {
        let summary = ExtractiveSummarizer().summarize(SermonFixture.sermon, type: .theological)
        #expect(summary.text.split(separator: "\n").last == "Scripture cited: none found")
        #expect(!summary.text.contains("("), "no reference lists without a detector")
    }

    // MARK: Determinism

    @Test("output is identical on every run and whatever the segment and note order", arguments: SummaryType.allCases)
    func outputIsIdenticalOnEveryRunAndWhateverTheSegmentOrder(type: SummaryType) {
        var shuffled = SermonFixture.sermon
        shuffled.segments = Array(shuffled.segments.reversed())
        shuffled.notes = Array(shuffled.notes.reversed())
        let first = summarizer.summarize(SermonFixture.sermon, type: type)
        let other = ExtractiveSummarizer(referencesIn: SermonFixture.references)
        let second = other.summarize(SermonFixture.sermon, type: type)
        #expect(first == second, "\(type)")
        #expect(first == summarizer.summarize(shuffled, type: type), "\(type): input order leaked into output")
        let hour = SermonFixture.hour()
        #expect(summarizer.summarize(hour, type: type) == summarizer.summarize(hour, type: type), "\(type)")
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

    @Test("a sentence near a note outranks an equally salient one far from notes")
    func sentenceNearANoteOutranksAnEquallySalientOneFarFromNotes() throws {
        let plain = summarizer.rank(equalSalienceSermon(notes: []), type: .bullet)
        let hope = 3, joy = 6
        // Ten one-sentence segments give ten units; the indexes below rely on it.
        try #require(plain.units.count == 10 && plain.scores.count == 10)
        #expect(plain.units[hope].text.hasPrefix("Hope") && plain.units[joy].text.hasPrefix("Joy"))
        #expect(abs(plain.scores[hope] - plain.scores[joy]) <= 1e-9, "the premise: equal without notes")

        // A note 20 s after the joy sentence ends (the listener writing it down), sharing none of its words.
        let noted = rankWithNote(at: 388)
        #expect(noted.scores[joy] > noted.scores[hope])
        #expect(noted.order.first == joy, "the noted passage ranks first")
        let bullets = summarizer.summarize(equalSalienceSermon(notes: [TimedNote(timestamp: 388, text: "write this down")]),
                                           type: .bullet)
        #expect(bullets.text.contains("- [06:00] Joy strengthens tired pilgrims beside desert valleys of thirst and dust."),
                "\(bullets.text)")

        // The same note moved beside the hope sentence turns the order round.
        let moved = rankWithNote(at: 190)
        #expect(moved.scores[hope] > moved.scores[joy])

        // Beyond the window a note lifts nothing.
        let far = rankWithNote(at: 360 + 8 + 50)
        #expect(abs(far.scores[joy] - far.scores[hope]) <= 1e-9)
    }

    @Test("closer notes lift more, and words shared with the note lift further")
    func closerNotesLiftMoreAndSharedWordsLiftFurther() {
        let near = rankWithNote(at: 370)
        let farther = rankWithNote(at: 400)
        #expect(near.scores[6] > farther.scores[6])
        #expect(farther.scores[6] > farther.scores[3])

        // Note halfway between sentences 5 (grace, 300–308 s) and 6 (joy, 360–368 s): equal time lift, but the
        // note's words are the grace sentence's.
        let between = rankWithNote(at: 334, "xyzzy")
        let worded = rankWithNote(at: 334, "strangers welcomed into the household")
        #expect(worded.scores[5] - between.scores[5] > 0.1, "shared words add to the time lift")
        #expect(abs(worded.scores[6] - between.scores[6]) <= 1e-9, "and only to the sentence whose words they are")
    }

    // MARK: Missing parts

    @Test("notes alone are summarised when there is no transcript")
    func notesAloneAreSummarisedWhenThereIsNoTranscript() {
        var sermon = SermonFixture.sermon
        sermon.segments = []
        sermon.transcriptText = ""
        #expect(ExtractiveSummarizer.hasContent(sermon))
        let summary = summarizer.summarize(sermon, type: .bullet)
        let lines = summary.text.split(separator: "\n").map(String.init)
        #expect(lines.count == SermonFixture.notes.count)
        #expect(lines.first == "- [01:58] Refusing to forgive myself = thinking I'm more righteous than God")
        #expect(lines.last == "- [09:35] Name one person to forgive this week. Colossians 3:13")
        let theology = summarizer.summarize(sermon, type: .theological)
        #expect(theology.text.split(separator: "\n").last == "Scripture cited: Matthew 18:22, Colossians 3:13")
    }

    @Test("nothing to summarise says so, for every summary type")
    func nothingToSummariseSaysSo() {
        let empty = SermonText(title: "Empty", transcriptText: "  \n ",
                               segments: [TimedSegment(start: 0, end: 1, text: " ")],
                               notes: [TimedNote(timestamp: 3, text: "")])
        #expect(!ExtractiveSummarizer.hasContent(empty))
        for type in SummaryType.allCases {
            let summary = summarizer.summarize(empty, type: type)
            #expect(summary.text == "No transcript or notes to summarise.", "\(type)")
            #expect(summary.type == type)
        }
        #expect(ExtractiveSummarizer.hasContent(SermonText(title: "", transcriptText: "Grace.")))
        #expect(summarizer.summarize(SermonText(title: "  "), type: .bullet).title == "Key points")
    }

    @Test("an untimed transcript gives untimed points")
    func untimedTranscriptGivesUntimedPoints() {
        var sermon = SermonFixture.sermon
        sermon.segments = []
        let summary = summarizer.summarize(sermon, type: .bullet)
        let lines = summary.text.split(separator: "\n").map(String.init)
        #expect((3...7).contains(lines.count))
        for line in lines {
            let bullet = parseBullet(line)
            #expect(bullet?.time == nil, "an untimed transcript has no times to show: \(line)")
            #expect(transcript.contains(bullet?.text ?? "-"), "\(line)")
        }
    }

    // MARK: Unpunctuated speech

    @Test("unpunctuated segments become the sentences, timed from their segment's start")
    func unpunctuatedSegmentsBecomeTheSentences() {
        var sermon = SermonFixture.sermon
        sermon.segments = SermonFixture.unpunctuatedSegments
        // Chunks are whole segments (a five-word fragment joins its neighbour), starting at a segment's start.
        let sentences = SentenceSplitter.sentences(in: sermon)
        #expect(sentences.count > sermon.segments.count * 3 / 4)
        for sentence in sentences {
            let segment = sermon.segments.first { $0.start == sentence.start }
            #expect(segment != nil, "\(sentence.text)")
            #expect(sentence.text.hasPrefix(segment?.text ?? "-"), "\(sentence.text)")
            #expect(sentence.wordCount <= SentenceSplitter.mergeWords + 15)
        }

        let summary = summarizer.summarize(sermon, type: .bullet)
        let lines = summary.text.split(separator: "\n").map(String.init)
        #expect((3...7).contains(lines.count))
        for line in lines {
            let bullet = parseBullet(line)
            let segment = sermon.segments.first { bullet?.text.hasPrefix($0.text) ?? false }
            #expect(segment != nil, "\(line)")
            #expect(bullet?.time == segment.map { ClockTime.format($0.start) })
        }
        let devotional = summarizer.summarize(sermon, type: .devotional).text
        #expect(devotional.first?.isUppercase ?? false, "prose is capitalised: \(devotional)")
        #expect(devotional.hasSuffix("."))
    }

    @Test("unpunctuated untimed text is cut into windows of about twenty words")
    func unpunctuatedUntimedTextIsCutIntoWindowsOfAboutTwentyWords() {
        let words = SermonFixture.unpunctuatedSegments.flatMap { $0.text.split(separator: " ") }
        let text = words.prefix(200).joined(separator: " ")
        let sentences = SentenceSplitter.sentences(in: text)
        #expect(sentences.count == 10)
        #expect(sentences.allSatisfy { $0.wordCount == 20 && $0.start == nil && $0.end == nil })
        #expect(sentences.map(\.text).joined(separator: " ") == text, "no words lost or reordered")

        let summary = summarizer.summarize(SermonText(title: "Raw", transcriptText: text), type: .bullet)
        #expect(summary.text.split(separator: "\n").count == 3)
        #expect(!summary.text.contains("["))
    }

    // MARK: Sentences and terms

    @Test("the splitter follows sentences across and within segments, past abbreviations")
    func splitterFollowsSentencesAcrossAndWithinSegments() throws {
        let sentences = SentenceSplitter.sentences(in: [
            TimedSegment(start: 10, end: 20, text: "Condemnation is a courtroom word. It means the judge has spoken and"),
            TimedSegment(start: 20, end: 24, text: "the sentence stands."),
            TimedSegment(start: 30, end: 40,
                         text: "Dr. Stott read Rom. 8:28 to us. C. S. Lewis agreed, e.g. in Mere Christianity! Did he?"),
        ])
        // Required, not only expected: the times below index these five sentences.
        try #require(sentences.map(\.text) == [
            "Condemnation is a courtroom word.",
            "It means the judge has spoken and the sentence stands.",
            "Dr. Stott read Rom. 8:28 to us.",
            "C. S. Lewis agreed, e.g. in Mere Christianity!",
            "Did he?",
        ])
        #expect(sentences[0].start == 10)
        // The second sentence starts about halfway through the first segment and ends with the second.
        let secondStart = try #require(sentences[1].start)
        #expect(abs(secondStart - 15.0) <= 0.5)
        #expect(sentences[1].end == 24)
        #expect(sentences[2].start == 30)
        #expect(sentences[4].end == 40)
    }

    @Test("stemming joins forms of a word, and stop words are dropped")
    func stemmingJoinsFormsOfAWordAndStopWordsAreDropped() {
        #expect(Set(TextTerms.terms(in: "forgive forgiving forgiveness forgiven")).count == 1)
        #expect(Set(TextTerms.terms(in: "loved loving love")).count == 1)
        #expect(TextTerms.terms(in: "You know, we are gonna, um, just say that it's really the thing") == [])
        #expect(TextTerms.terms(in: "God's mercies") == ["god", "mercy"])
        #expect(TextTerms.terms(in: "Romans 8:28") == ["roman", "8", "28"])
    }

    // MARK: Performance

    @Test("an hour-long sermon is summarised quickly (a bound that catches a change of complexity)")
    func anHourLongSermonIsSummarisedQuickly() {
        let hour = SermonFixture.hour()
        // A detector as cheap as a real one should be (the fixture's is a quadratic scan, too slow to time).
        let summarizer = ExtractiveSummarizer(referencesIn: { $0.contains("romans 8") ? ["Romans 8"] : [] })
        #expect(hour.segments.count == 600)
        #expect(hour.segments.reduce(0) { $0 + $1.text.split(separator: " ").count } == 9000)
        let clock = ContinuousClock()
        for type in SummaryType.allCases {
            var summary: GeneratedSummary?
            let elapsed = clock.measure { summary = summarizer.summarize(hour, type: type) }
            #expect(summary?.text.split(separator: "\n").count == (type == .devotional ? 1 : type == .bullet ? 7 : 8),
                    "\(type)")
            // 50 ms is the budget in an optimised build (about 10 ms measured); a debug build is several times
            // slower, so the bound here only catches a change of complexity.
            #expect(elapsed < .milliseconds(500), "\(type): \(elapsed)")
        }
    }
}

@Suite("ClockTime.format as the summariser and assistant use it")
struct ClockTimeTests {
    @Test("minutes below an hour, hours from one, and 00:00 for what is no time", arguments: [
        (0, "00:00"), (59.99, "00:59"), (724.5, "12:04"), (3599.9, "59:59"), (3600, "1:00:00"), (3725, "1:02:05"),
        (36_000 + 61, "10:01:01"), (-3, "00:00"), (.nan, "00:00"), (.infinity, "00:00"),
    ] as [(Double, String)])
    func formatsMinutesAndHours(seconds: Double, expected: String) {
        #expect(ClockTime.format(seconds) == expected, "ClockTime.format(\(seconds))")
    }
}
