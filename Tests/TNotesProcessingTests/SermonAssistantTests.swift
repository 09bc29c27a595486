import Testing
@testable import TNotesProcessing
import TNotesCore

/// The sermon assistant as a unit: which passages and notes it quotes for a question, with what times, and
/// what it says when nothing matches.
@Suite("processing: sermon assistant")
struct SermonAssistantTests {
    let assistant = SermonAssistant()

    @Test("quotes the passages that hold the question's words, with their times")
    func quotesThePassagesThatHoldTheQuestionsWordsWithTheirTimes() {
        let answer = assistant.answer(question: "What did Pastor Daniel say about adoption?", about: SermonFixture.sermon)
        #expect(answer.text.split(separator: "\n").first == "From the sermon \"No Condemnation: Forgiven and Free\":")
        #expect(!answer.quotes.isEmpty)
        #expect(answer.quotes.count <= SermonAssistant.maxQuotes)
        for quote in answer.quotes {
            #expect(quote.text.lowercased().contains("adoption"), "\(quote.text)")
            #expect(quote.source == "transcript")
            #expect(quote.start != nil)
            #expect(answer.text.contains("[\(ClockTime.format(quote.start ?? -1))] \"\(quote.text)\""), "\(answer.text)")
        }
        // "We received the Spirit of adoption…" opens the segment that starts at 130.6 s.
        #expect(answer.quotes.first?.start == 130.6)
        #expect(answer.text.contains("[02:10] \"We received the Spirit of adoption, by whom we cry, Abba, Father.\""),
                "\(answer.text)")
    }

    @Test("quotes are in time order, and notes are marked as the listener's")
    func quotesAreInTimeOrderAndNotesAreMarkedAsTheListeners() throws {
        let answer = assistant.answer(question: "Why stop counting?", about: SermonFixture.sermon)
        // Required, not only expected: the checks below read the first quote.
        try #require(answer.quotes.map(\.source) == ["transcript", "note"])
        let starts = answer.quotes.compactMap(\.start)
        #expect(starts == starts.sorted())
        // A sentence that starts mid-segment is timed from its place in the segment (266.2–275.7 s).
        #expect(answer.quotes[0].text == "He was telling Peter to stop counting.")
        #expect(abs((answer.quotes[0].start ?? 0) - 271) <= 1)
        #expect(answer.text.hasSuffix("[04:32] your note: \"Stop counting! Matthew 18:22\""), "\(answer.text)")
    }

    @Test("a question the preacher asked is quoted with its answer")
    func aQuestionThePreacherAskedIsQuotedWithItsAnswer() {
        let answer = assistant.answer(question: "How many times should I forgive?", about: SermonFixture.sermon)
        #expect(answer.quotes.first?.start == 249.3)
        #expect(answer.quotes.first?.text.contains("seventy-seven times") ?? false, "\(answer.text)")
    }

    @Test("a reference finds the sentence that reads it, not one that shares only the book and chapter")
    func aReferenceFindsTheSentenceThatReadsIt() {
        let answer = assistant.answer(question: "What about Romans 8:28?", about: SermonFixture.sermon)
        let verse = answer.quotes.first { $0.text.contains("Romans 8:28") }
        #expect(verse?.start == 430.2, "\(answer.text)")
        // "Romans chapter 8" shares two of the three words but not the verse: not quoted.
        #expect(!answer.quotes.contains { $0.text.contains("Romans chapter 8") }, "\(answer.text)")
    }

    @Test("no match is said plainly, with a pointer to the sermon's main point")
    func noMatchIsSaidPlainlyWithThePointerToTheMainPoint() throws {
        let answer = assistant.answer(question: "What did he say about baptism?", about: SermonFixture.sermon)
        #expect(answer.quotes.isEmpty)
        let lines = answer.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "I couldn't find anything about \"baptism\" in this sermon's transcript or notes.")
        // Required, not only expected: the pointer below is the second line.
        try #require(lines.count == 2)
        // The pointer is the summary's top sentence, with its time.
        let ranking = ExtractiveSummarizer().rank(SermonFixture.sermon, type: .bullet)
        let top = ranking.units[ranking.order[0]]
        let topStart = try #require(top.start)
        #expect(lines[1].hasSuffix("[\(ClockTime.format(topStart))] \"\(top.text)\""), "\(lines[1])")
    }

    @Test("a question of only stop words finds nothing")
    func aQuestionOfOnlyStopWordsFindsNothing() {
        let answer = assistant.answer(question: "What did he say about it?", about: SermonFixture.sermon)
        #expect(answer.quotes.isEmpty)
        #expect(answer.text.hasPrefix("I couldn't find anything about \"What did he say about it\""), "\(answer.text)")
    }

    @Test("an empty sermon has nothing to search, and says so")
    func anEmptySermonHasNothingToSearch() {
        let answer = assistant.answer(question: "grace?", about: SermonText(title: "Blank"))
        #expect(answer.quotes.isEmpty)
        #expect(answer.text == "This sermon has no transcript or notes yet, so there is nothing to search for \"grace\".")
    }

    @Test("answers are deterministic: on every run and whatever the segment and note order")
    func answersAreDeterministic() {
        for question in ["adoption", "How many times should I forgive?", "baptism", "forgiveness and the debt"] {
            let first = assistant.answer(question: question, about: SermonFixture.sermon)
            #expect(first == SermonAssistant().answer(question: question, about: SermonFixture.sermon), "\(question)")
            var shuffled = SermonFixture.sermon
            shuffled.segments.reverse()
            shuffled.notes.reverse()
            #expect(first == assistant.answer(question: question, about: shuffled), "\(question)")
        }
        let hour = SermonFixture.hour()
        #expect(assistant.answer(question: "adoption and forgiveness", about: hour)
                == assistant.answer(question: "adoption and forgiveness", about: hour))
    }

    @Test("times past an hour use hours")
    func timesPastAnHourUseHours() {
        let sermon = SermonText(title: "Long", segments: [
            TimedSegment(start: 10, end: 20, text: "We begin with prayer and a hymn."),
            TimedSegment(start: 3725.4, end: 3731, text: "Finally, the resurrection changes everything we fear."),
        ], notes: [TimedNote(timestamp: 3740, text: "resurrection hope")])
        let answer = assistant.answer(question: "resurrection", about: sermon)
        #expect(answer.text == """
            From the sermon "Long":
            [1:02:05] "Finally, the resurrection changes everything we fear."
            [1:02:20] your note: "resurrection hope"
            """)
    }

    @Test("an unpunctuated transcript is quoted by segment")
    func unpunctuatedTranscriptIsQuotedBySegment() {
        var sermon = SermonFixture.sermon
        sermon.segments = SermonFixture.unpunctuatedSegments
        let answer = assistant.answer(question: "bitterness", about: sermon)
        #expect(answer.quotes.count == 1)
        #expect(answer.quotes.first?.start == 312.5)
        #expect(answer.text.contains("[05:12] \"bitterness is like drinking poison"), "\(answer.text)")
    }

    @Test("an untimed transcript's quotes carry no invented times")
    func untimedTranscriptQuotesCarryNoInventedTimes() {
        var sermon = SermonFixture.sermon
        sermon.segments = []
        let answer = assistant.answer(question: "bitterness", about: sermon)
        let sentence = "Bitterness is like drinking poison and waiting for the other person to get sick."
        #expect(answer.quotes == [AssistantAnswer.Quote(start: nil, text: sentence, source: "transcript")])
        #expect(answer.text.hasSuffix("\n\"\(sentence)\""), "\(answer.text)")
    }

    @Test("a long passage is cut around the match")
    func longPassagesAreCutAroundTheMatch() {
        let filler = (1...80).map { "word\($0)" }.joined(separator: " ")
        let sermon = SermonText(title: "Run-on", segments: [TimedSegment(start: 0, end: 9, text: "We begin.")],
                                notes: [TimedNote(timestamp: 5, text: filler + " sanctification " + filler)])
        let answer = assistant.answer(question: "sanctification", about: sermon)
        #expect(answer.quotes.count == 1)
        let quote = answer.quotes.first?.text ?? ""
        #expect(quote.contains(" sanctification "), "\(quote)")
        #expect(quote.hasPrefix("\u{2026}word") && quote.hasSuffix("\u{2026}"), "\(quote)")
        #expect(quote.split(separator: " ").count == SermonAssistant.maxQuoteWords)
    }
}
