import Foundation
import Testing
import TNotesCore
@testable import TNotesProcessing
import TNotesTestSupport

/// Contract §8.1 "every renderer is total" for the processing module: the extractive summariser, the assistant
/// and the pieces under them (`SermonIndex.swift`: units, distances, `[mm:ss]` stamps; the sentence splitter;
/// the term index) given what a store can hold from before the bounds, or from a hostile client: times of 1e19
/// and 1.7e308 (and negative), segments that end before they start, huge titles and notes, empty strings and odd
/// Unicode. Each returns text; none traps (a trap would end this test process).
@Suite("processing: hostile stored values")
struct HostileValueProcessingTests {
    static let summarizer = ExtractiveSummarizer(referencesIn: { text in
        text.contains("Romans 8") ? ["Romans 8:1"] : []
    })

    /// Lone combining marks, a ZWJ family, flags, right-to-left text, a BOM, controls, an unpaired surrogate's
    /// replacement character: text as a broken client or a paste can leave it.
    static let oddTexts = [
        "\u{301}\u{301}\u{308}",  // combining marks with no base character
        "👨‍👩‍👧‍👦👩🏽‍💻🏳️‍🌈 forgive 🇺🇦",
        "\u{202E}evol si doG\u{202C} שלום עולם",
        "\u{FEFF}\u{200B}\u{0}\u{7}grace\u{FFFD}",
        "e\u{301}\u{301}\u{301}'s don\u{301}'t ' ' '",
        "",
        "   \n\t ",
    ]

    static let hugeTimes: [Double] = [1e19, 1.7e308, -1.7e308, 1e300, -1, 0, 604_800.5, .greatestFiniteMagnitude,
                                      .leastNonzeroMagnitude]

    /// A sermon with every hostile value at once.
    static func hostileSermon(noteText: String = "Forgive one another as the Lord forgave you") -> SermonText {
        var segments: [TimedSegment] = [
            .init(start: 1e300, end: 1e19, text: "Romans 8 says there is no condemnation for those in Christ."),  // end < start
            .init(start: 1.7e308, end: -1.7e308, text: "Forgiveness is received, not earned, church."),
            .init(start: -1e19, end: 1.7e308, text: "Love never fails; forgive one another freely today."),
            .init(start: 5, end: 2, text: ""),
            .init(start: 3, end: 3, text: "the the the the"),
        ]
        segments += oddTexts.enumerated().map { .init(start: Double($0.offset), end: 1e19, text: $0.element) }
        var notes = hugeTimes.map { TimedNote(timestamp: $0, text: noteText) }
        notes += oddTexts.map { TimedNote(timestamp: 1e19, text: $0) }
        return SermonText(title: String(repeating: "👨‍👩‍👧", count: 1_000) + "\u{301}", speaker: "\u{301}Pastor 👨‍👩‍👧",
                          transcriptText: "untimed words", segments: segments, notes: notes)
    }

    @Test("the summariser gives every summary type for times of 1e19 / 1.7e308 / negative, segments ending before they start, odd Unicode")
    func summariserOverHostileTimes() {
        let sermon = Self.hostileSermon()
        for type in SummaryType.allCases {
            let summary = Self.summarizer.summarize(sermon, type: type)
            #expect(!summary.text.isEmpty, "\(type)")
            #expect(!summary.title.isEmpty, "\(type)")
            if type == .bullet {
                // Each key point is stamped, however large its time: the clamped clock text, never a trap.
                for line in summary.text.split(separator: "\n") {
                    #expect(line.hasPrefix("- ["), "\(line)")
                }
            }
        }
        // Notes alone, at 1e19, 1.7e308 and below 0: a summary of the notes, each stamped by ClockTime.
        let notesOnly = SermonText(title: "", notes: [
            TimedNote(timestamp: 1e19, text: "apple reflection"), TimedNote(timestamp: -1.7e308, text: "banana reflection"),
            TimedNote(timestamp: 1.7e308, text: "cherry reflection"),
        ])
        let bullet = Self.summarizer.summarize(notesOnly, type: .bullet).text
        #expect(bullet.contains("[\(ClockTime.format(1e19))] apple"), "\(bullet)")
        #expect(bullet.contains("[\(ClockTime.format(1.7e308))] cherry"), "\(bullet)")
        #expect(bullet.contains("[00:00] banana"), "negative times read as 0: \(bullet)")
        #expect(Self.summarizer.summarize(SermonText(title: ""), type: .bullet).text == ExtractiveSummarizer.emptyText)
    }

    @Test("the assistant answers and quotes with [clock] stamps over the same sermon, whatever the question")
    func assistantOverHostileTimes() {
        let sermon = Self.hostileSermon()
        let assistant = SermonAssistant()
        let answer = assistant.answer(question: "what about forgiveness?", about: sermon)
        #expect(!answer.quotes.isEmpty, "\(answer.text)")
        for quote in answer.quotes {
            if let start = quote.start {
                #expect(answer.text.contains("[\(ClockTime.format(start))]"), "\(answer.text)")
            }
        }
        let questions = Self.oddTexts + [String(repeating: "forgive ", count: 100_000), "?", "👨‍👩‍👧‍👦", "\u{301}?"]
        for question in questions {
            let a = assistant.answer(question: question, about: sermon)
            #expect(!a.text.isEmpty)
        }
        // With nothing to search: it says so, whatever the question.
        #expect(assistant.answer(question: "\u{301}", about: SermonText(title: "")).text.contains("no transcript or notes"))
    }

    @Test("a 1 MB title and a 10 MB note (one run-on word, and words) are summarised and searched")
    func hugeTextsRender() {
        let words = String(repeating: "grace forgive love church ", count: 400_000)  // 10.4 MB
        let oneWord = String(repeating: "a\u{301}", count: 3_500_000)  // 10.5 MB, a single word of accented letters
        func sermon(_ note: String) -> SermonText {
            SermonText(title: String(repeating: "T", count: 1_000_000),
                       notes: [TimedNote(timestamp: 1e19, text: note), TimedNote(timestamp: 1, text: "forgive")])
        }
        let devotional = Self.summarizer.summarize(sermon(words), type: .devotional)
        #expect(!devotional.text.isEmpty)
        #expect(devotional.title.count == "Devotional: ".count + 1_000_000)
        let answer = SermonAssistant().answer(question: "forgive", about: sermon(words))
        // A quote is cut to a window of words around the match, never the whole note (the answer's first line
        // names the 1 MB title).
        #expect(answer.text.utf8.count < 1_100_000, "\(answer.text.utf8.count) bytes")
        #expect(!Self.summarizer.summarize(sermon(oneWord), type: .bullet).text.isEmpty)
    }

    @Test("SermonIndex: stamps, distances, units and the sentence splitter are total")
    func sermonIndexPieces() {
        for t in Self.hugeTimes + [.infinity, -.infinity, .nan] {
            let stamp = Prose.stamp(t)
            #expect(stamp.hasPrefix("[") && stamp.hasSuffix("] "), "\(stamp)")
            let unit = TextUnit(TimedNote(timestamp: t, text: "x"))
            #expect(SermonUnits.distance(from: 1e19, to: unit) != nil, "\(t)")
        }
        #expect(Prose.stamp(nil) == "")
        #expect(Prose.stamp(1e19) == "[\(ClockTime.format(1e19))] ")
        #expect(Prose.sentence("\u{301}") == "\u{301}.")
        #expect(Prose.truncated("👨‍👩‍👧 " + String(repeating: "w ", count: 100), words: 3).hasSuffix("\u{2026}"))

        let segments = Self.hostileSermon().segments
        let sentences = SentenceSplitter.sentences(in: segments)
        #expect(!sentences.isEmpty)
        for s in sentences {
            // Times are sanitised into finite, ordered values.
            if let start = s.start, let end = s.end { #expect(start.isFinite && end.isFinite && end >= start, "\(s)") }
        }
        let notes = SermonUnits.notes(of: Self.hostileSermon())
        #expect(notes.allSatisfy { ($0.start ?? 0) >= 0 && ($0.start ?? 0).isFinite })
        for text in Self.oddTexts {
            _ = TextTerms.terms(in: text)
            _ = SentenceSplitter.sentences(in: text)
            _ = TextTerms.term(ofWord: text)
        }
        #expect(TextTerms.terms(in: "\u{301}\u{301}").isEmpty)
    }

    @Test("a float WAV holding NaN, infinities and 1e38 decodes to clipped 16-bit samples (no trap); the resampler's clip is total")
    func hostileFloatWAV() throws {
        let dir = TempDirectory()
        // 44.1 kHz stereo float32 (so mixed down and resampled) and 16 kHz mono float64 (passed through unresampled).
        let values: [Float] = [.nan, .infinity, -.infinity, 1e38, -1e38, 0.5, -0.5, .signalingNaN, 3, -3]
        for (rate, channels, bits) in [(44_100, 2, 32), (16_000, 1, 64), (16_000, 1, 32)] {
            var data = [UInt8]()
            for _ in 0..<2_000 {
                for v in values {
                    for _ in 0..<channels {
                        if bits == 32 { withUnsafeBytes(of: v.bitPattern.littleEndian) { data += $0 } }
                        else { withUnsafeBytes(of: Double(v).bitPattern.littleEndian) { data += $0 } }
                    }
                }
            }
            let path = dir.file("hostile-\(rate)-\(bits).wav")
            try Data(Self.wav(data, rate: rate, channels: channels, bits: bits, float: true)).write(to: URL(fileURLWithPath: path))
            let source = try AudioInput.open(path: path, ffmpeg: nil)
            defer { source.close() }
            var buffer = [Int16](repeating: 0, count: 4096)
            var total = 0
            var extremes = Set<Int16>()
            while true {
                let n = try source.read(into: &buffer)
                if n == 0 { break }
                total += n
                for s in buffer[0..<n] where s == .max || s == .min { extremes.insert(s) }
            }
            #expect(total > 0, "\(rate) Hz")
            #expect(!extremes.isEmpty, "1e38 and 3 are clipped to full scale at \(rate) Hz")
        }
        for y: Float in [.nan, .infinity, -.infinity, 1e38, -1e38, 1, -1, 0] {
            _ = Resampler.pcm16(y)
        }
        #expect(Resampler.pcm16(.nan) == 0 && Resampler.pcm16(.infinity) == .max && Resampler.pcm16(-.infinity) == .min)
    }

    @Test("timers and labels from configured seconds and stored attempt counts are clamped, not trapped")
    func timersAndLabels() {
        #expect(CommandRunner.seconds(1e300) == "1e+300 s")
        #expect(CommandRunner.seconds(3600) == "3600 s")
        #expect(CommandRunner.milliseconds(1e300) == 1_000_000_000_000_000)
        #expect(CommandRunner.milliseconds(-.infinity) == 0)
        let huge = BackoffPolicy(base: 1e300, factor: 2, max: 1e308)
        for attempt in [Int.min, -1, 0, 1, 63, 64, 65, Int.max] {
            let ms = ProcessingWorker.retryDelayMillis(huge, attempt: attempt)
            #expect(ms >= 0 && ms <= 86_400_000, "attempt \(attempt): \(ms)")
            _ = ProcessingWorker.retryDelayMillis(BackoffPolicy(), attempt: attempt)
        }
        #expect(JobExecutor.rounded(1.7e308) == 1.7e308)
        #expect(JobExecutor.rounded(12.34567) == 12.346)
    }

    @Test("a command engine's segment times past the bound fail the job with the engine's name, not the store's refusal")
    func commandSegmentsPastTheBound() throws {
        let ok = try CommandOutput.parse(#"{"text":"a","segments":[{"start":0,"end":604800,"text":"a"}]}"#, program: "eng")
        #expect(ok.segments.first?.end == 604_800)
        for bad in ["1e19", "1.7e308", "604800.5"] {
            #expect(throws: CommandRunner.Failure.self) {
                try CommandOutput.parse(#"{"text":"a","segments":[{"start":0,"end":\#(bad),"text":"a"}]}"#, program: "eng")
            }
        }
    }

    /// A RIFF/WAVE file of `data` (interleaved frames).
    static func wav(_ data: [UInt8], rate: Int, channels: Int, bits: Int, float: Bool) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian) { Array($0) } }
        func le16(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(v).littleEndian) { Array($0) } }
        let align = channels * bits / 8
        var out = Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVE".utf8)
        out += Array("fmt ".utf8) + le32(16) + le16(float ? 3 : 1) + le16(channels) + le32(rate) + le32(rate * align)
        out += le16(align) + le16(bits)
        out += Array("data".utf8) + le32(data.count) + data
        return out
    }
}
