import Foundation
import Testing
import TNotesProcessing
import TNotesTestSupport

// The live transcript's recogniser (contract §8.2): fed 100 ms at a time, as the recorder delivers audio, it
// gives segments whose times lie on the audio's own clock, close to where the file transcription puts them;
// in-process (PocketSphinx) and through the recognizer worker, as the daemon runs it (both engines).
@Suite("live recogniser")
struct LiveRecognizerTests {
    static let ready = FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
        && FileManager.default.fileExists(atPath: PocketSphinxEngine.defaultModelDirectory + "/en-us/mdef")

    @Test("PocketSphinx's worker, fed 100 ms at a time, as a recording feeds it: segments in order inside the audio, the words heard",
          .enabled(if: ready, "needs espeak-ng and pocketsphinx-en-us"))
    func pocketSphinxWorker() throws { try Self.worker(.pocketsphinx) }

    @Test("sherpa-onnx's worker, fed 100 ms at a time, as a recording feeds it: segments in order inside the audio, the words heard",
          .enabled(if: ready, "needs espeak-ng and pocketsphinx-en-us"),
          .enabled(if: SpeechFixtures.hasModels, "\(SpeechFixtures.missingModels)"))
    func sherpaWorker() throws { try Self.worker(.sherpaOnnx) }

    static func worker(_ engine: ProcessingSettings.Transcriber) throws {
        var settings = ProcessingSettings()
        settings.transcriber = engine
        settings.configuredModelDirectory = engine == .sherpaOnnx ? SpeechFixtures.modelDirectory : nil
        settings.recognizerExecutable = Binaries.path("tnotesd")
        let choice = EngineChoice.choose(settings)
        #expect(choice.engine == engine.rawValue)
        let recognizer = try LiveRecognition(choice, settings: settings)
        try Self.check { try recognizer.feed($0) } finish: { try recognizer.finish() }
    }

    @Test("in this process (what the worker runs): segments in 100 ms chunks: times inside the audio, in order, the words heard",
          .enabled(if: ready, "needs espeak-ng and pocketsphinx-en-us"))
    func chunked() throws {
        let recognizer = try PocketSphinxRecognizer()
        try Self.check { recognizer.feed($0) } finish: { recognizer.finish() }
    }

    static func check(feed: ([Int16]) throws -> [TimedSegment], finish: () throws -> [TimedSegment]) throws {
        let dir = TempDirectory()
        let text = "In the beginning was the Word, and the Word was with God, and the Word was God. "
            + "The same was in the beginning with God. All things were made by him."
        let wav = try #require(try ProcessingHarness.speech(text, in: dir))
        let source = try AudioInput.open(path: wav)
        defer { source.close() }
        var samples: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 4096)
        while true {
            let n = try source.read(into: &buffer)
            if n == 0 { break }
            samples += buffer[0..<n]
        }
        let duration = Double(samples.count) / Double(AudioInput.sampleRate)
        var segments: [TimedSegment] = []
        var at = 0
        while at < samples.count {
            let end = min(samples.count, at + 1600)
            segments += try feed(Array(samples[at..<end]))
            at = end
        }
        segments += try finish()
        #expect(segments.count >= 2, "\(segments)")
        var last = 0.0
        for s in segments {
            #expect(s.start >= last - 0.01 && s.end >= s.start && s.end <= duration + 0.05,
                    "segment \(s) outside \(duration) s of audio or out of order")
            last = s.end
        }
        let words = segments.map(\.text).joined(separator: " ").lowercased()
        #expect(words.contains("beginning") && words.contains("things"), "\(words)")
    }
}
