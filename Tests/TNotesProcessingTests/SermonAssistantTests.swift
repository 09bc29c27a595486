import XCTest
@testable import TNotesProcessing
import TNotesCore

final class SermonAssistantTests: XCTestCase {
    let assistant = SermonAssistant()

    func testQuotesThePassagesThatHoldTheQuestionsWordsWithTheirTimes() {
        let answer = assistant.answer(question: "What did Pastor Daniel say about adoption?", about: SermonFixture.sermon)
        XCTAssertEqual(answer.text.split(separator: "\n").first, "From the sermon \"No Condemnation: Forgiven and Free\":")
        XCTAssertFalse(answer.quotes.isEmpty)
        XCTAssertLessThanOrEqual(answer.quotes.count, SermonAssistant.maxQuotes)
        for quote in answer.quotes {
            XCTAssertTrue(quote.text.lowercased().contains("adoption"), quote.text)
            XCTAssertEqual(quote.source, "transcript")
            XCTAssertNotNil(quote.start)
            XCTAssertTrue(answer.text.contains("[\(ClockTime.format(quote.start ?? -1))] \"\(quote.text)\""), answer.text)
        }
        // "We received the Spirit of adoption…" opens the segment that starts at 130.6 s.
        XCTAssertEqual(answer.quotes.first?.start, 130.6)
        XCTAssertTrue(answer.text.contains("[02:10] \"We received the Spirit of adoption, by whom we cry, Abba, Father.\""),
                      answer.text)
    }

    func testQuotesAreInTimeOrderAndNotesAreMarkedAsTheListeners() {
        let answer = assistant.answer(question: "Why stop counting?", about: SermonFixture.sermon)
        XCTAssertEqual(answer.quotes.map(\.source), ["transcript", "note"])
        let starts = answer.quotes.compactMap(\.start)
        XCTAssertEqual(starts, starts.sorted())
        // A sentence that starts mid-segment is timed from its place in the segment (266.2–275.7 s).
        XCTAssertEqual(answer.quotes[0].text, "He was telling Peter to stop counting.")
        XCTAssertEqual(answer.quotes[0].start ?? 0, 271, accuracy: 1)
        XCTAssertTrue(answer.text.hasSuffix("[04:32] your note: \"Stop counting! Matthew 18:22\""), answer.text)
    }

    func testAQuestionThePreacherAskedIsQuotedWithItsAnswer() {
        let answer = assistant.answer(question: "How many times should I forgive?", about: SermonFixture.sermon)
        XCTAssertEqual(answer.quotes.first?.start, 249.3)
        XCTAssertTrue(answer.quotes.first?.text.contains("seventy-seven times") ?? false, answer.text)
    }

    func testAReferenceFindsTheSentenceThatReadsIt() {
        let answer = assistant.answer(question: "What about Romans 8:28?", about: SermonFixture.sermon)
        let verse = answer.quotes.first { $0.text.contains("Romans 8:28") }
        XCTAssertEqual(verse?.start, 430.2, answer.text)
        // "Romans chapter 8" shares two of the three words but not the verse: not quoted.
        XCTAssertFalse(answer.quotes.contains { $0.text.contains("Romans chapter 8") }, answer.text)
    }

    func testNoMatchIsSaidPlainlyWithThePointerToTheMainPoint() {
        let answer = assistant.answer(question: "What did he say about baptism?", about: SermonFixture.sermon)
        XCTAssertTrue(answer.quotes.isEmpty)
        let lines = answer.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "I couldn't find anything about \"baptism\" in this sermon's transcript or notes.")
        XCTAssertEqual(lines.count, 2)
        // The pointer is the summary's top sentence, with its time.
        let ranking = ExtractiveSummarizer().rank(SermonFixture.sermon, type: .bullet)
        let top = ranking.units[ranking.order[0]]
        XCTAssertTrue(lines[1].hasSuffix("[\(ClockTime.format(top.start!))] \"\(top.text)\""), lines[1])
    }

    func testAQuestionOfOnlyStopWordsFindsNothing() {
        let answer = assistant.answer(question: "What did he say about it?", about: SermonFixture.sermon)
        XCTAssertTrue(answer.quotes.isEmpty)
        XCTAssertTrue(answer.text.hasPrefix("I couldn't find anything about \"What did he say about it\""), answer.text)
    }

    func testAnEmptySermonHasNothingToSearch() {
        let answer = assistant.answer(question: "grace?", about: SermonText(title: "Blank"))
        XCTAssertTrue(answer.quotes.isEmpty)
        XCTAssertEqual(answer.text,
                       "This sermon has no transcript or notes yet, so there is nothing to search for \"grace\".")
    }

    func testAnswersAreDeterministic() {
        for question in ["adoption", "How many times should I forgive?", "baptism", "forgiveness and the debt"] {
            let first = assistant.answer(question: question, about: SermonFixture.sermon)
            XCTAssertEqual(first, SermonAssistant().answer(question: question, about: SermonFixture.sermon))
            var shuffled = SermonFixture.sermon
            shuffled.segments.reverse()
            shuffled.notes.reverse()
            XCTAssertEqual(first, assistant.answer(question: question, about: shuffled), question)
        }
        let hour = SermonFixture.hour()
        XCTAssertEqual(assistant.answer(question: "adoption and forgiveness", about: hour),
                       assistant.answer(question: "adoption and forgiveness", about: hour))
    }

    func testTimesPastAnHourUseHours() {
        let sermon = SermonText(title: "Long", segments: [
            TimedSegment(start: 10, end: 20, text: "We begin with prayer and a hymn."),
            TimedSegment(start: 3725.4, end: 3731, text: "Finally, the resurrection changes everything we fear."),
        ], notes: [TimedNote(timestamp: 3740, text: "resurrection hope")])
        let answer = assistant.answer(question: "resurrection", about: sermon)
        XCTAssertEqual(answer.text, """
            From the sermon "Long":
            [1:02:05] "Finally, the resurrection changes everything we fear."
            [1:02:20] your note: "resurrection hope"
            """)
    }

    func testUnpunctuatedTranscriptIsQuotedBySegment() {
        var sermon = SermonFixture.sermon
        sermon.segments = SermonFixture.unpunctuatedSegments
        let answer = assistant.answer(question: "bitterness", about: sermon)
        XCTAssertEqual(answer.quotes.count, 1)
        XCTAssertEqual(answer.quotes.first?.start, 312.5)
        XCTAssertTrue(answer.text.contains("[05:12] \"bitterness is like drinking poison"), answer.text)
    }

    func testUntimedTranscriptQuotesCarryNoInventedTimes() {
        var sermon = SermonFixture.sermon
        sermon.segments = []
        let answer = assistant.answer(question: "bitterness", about: sermon)
        let sentence = "Bitterness is like drinking poison and waiting for the other person to get sick."
        XCTAssertEqual(answer.quotes, [.init(start: nil, text: sentence, source: "transcript")])
        XCTAssertTrue(answer.text.hasSuffix("\n\"\(sentence)\""), answer.text)
    }

    func testLongPassagesAreCutAroundTheMatch() {
        let filler = (1...80).map { "word\($0)" }.joined(separator: " ")
        let sermon = SermonText(title: "Run-on", segments: [TimedSegment(start: 0, end: 9, text: "We begin.")],
                                notes: [TimedNote(timestamp: 5, text: filler + " sanctification " + filler)])
        let answer = assistant.answer(question: "sanctification", about: sermon)
        XCTAssertEqual(answer.quotes.count, 1)
        let quote = answer.quotes.first?.text ?? ""
        XCTAssertTrue(quote.contains(" sanctification "), quote)
        XCTAssertTrue(quote.hasPrefix("\u{2026}word") && quote.hasSuffix("\u{2026}"), quote)
        XCTAssertEqual(quote.split(separator: " ").count, SermonAssistant.maxQuoteWords)
    }
}
