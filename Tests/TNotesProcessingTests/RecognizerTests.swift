import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Issue #52 (contract §8.3): the sherpa-onnx engine (Moonshine base English in a worker process) as the
/// default when installed, its accuracy and segment times on a spoken passage of over a minute with many
/// pauses, PocketSphinx's segment times on the same, the fallback when the recognizer is missing, and a hung
/// recognizer killed and retried.
@Suite("processing: the sherpa-onnx recognizer", .serialized)
struct RecognizerTests {
    /// Transcribes `passage` with a daemon configured by `processing` lines; the finished job and transcript.
    static func transcribe(_ passage: SpeechFixtures.Passage, processing: [String], timeout: Double = 240,
                           during: ((DaemonProcess, RPCClient, String) throws -> Void)? = nil) throws
        -> (daemon: DaemonProcess, job: JSON, segments: [SpeechScore.Segment], text: String)
    {
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config(autoTranscribe: false, maxAttempts: 3, extra: processing))
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Spoken passage"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(passage.wav)])
        let jobId = try #require(try c.call("transcript.generate", ["sermonId": .string(sid)])["jobId"]?.stringValue)
        try during?(d, c, jobId)
        let job = try ProcessingHarness.waitForJob(c, jobId, timeout: timeout)
        let transcript = try c.call("sermon.get", ["id": .string(sid)])["transcript"] ?? .null
        let segments = (transcript["segments"]?.arrayValue ?? []).map {
            SpeechScore.Segment(start: $0["start"]?.doubleValue ?? -1, end: $0["end"]?.doubleValue ?? -1, text: $0["text"]?.stringValue ?? "")
        }
        return (d, job, segments, transcript["text"]?.stringValue ?? "")
    }

    @Test("sherpa-onnx is the default when installed: jobs.get names it and its model; a neural voice's minute of speech has WER ≤ 5 % and every word timed within 1 s",
          .enabled(if: SpeechFixtures.hasModels, "\(SpeechFixtures.missingModels)"),
          .enabled(if: SpeechFixtures.hasSpeech, "\(SpeechFixtures.missingSpeech)"))
    func sherpaAccuracyAndTiming() throws {
        let passage = try SpeechFixtures.passage("sower-neural")
        #expect(passage.duration >= 60 && passage.sentences.count >= 10)
        let r = try Self.transcribe(passage, processing: ["model_dir = \"\(SpeechFixtures.modelDirectory)\""])
        defer { _ = r.daemon.stop() }
        #expect(r.job["state"] == "done", "\(r.job.text)")
        #expect(r.job["engine"] == "sherpa-onnx")
        #expect(r.job["model"] == "moonshine-base-en")
        let wer = SpeechScore.wordErrorRate(reference: passage.text, hypothesis: r.text)
        #expect(wer <= 0.05, "WER \(wer): \(r.text)")
        #expect(r.segments.count >= passage.sentences.count / 2, "\(r.segments)")
        let problems = SpeechScore.timingProblems(segments: r.segments, sentences: passage.sentences, duration: passage.duration)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        // The log said once which engine is in use, at start.
        #expect(r.daemon.log.components(separatedBy: "transcription engine").count == 2, "\(r.daemon.log)")
        #expect(r.daemon.log.contains("engine=sherpa-onnx"))
    }

    @Test("PocketSphinx's segments lie inside the audio and time every recognised word within 1 s, over a minute with many pauses",
          .enabled(if: SpeechFixtures.hasSpeech, "\(SpeechFixtures.missingSpeech)"))
    func pocketSphinxTiming() throws {
        let passage = try SpeechFixtures.passage("shepherd-neural")
        #expect(passage.duration >= 60)
        let r = try Self.transcribe(passage, processing: ["transcriber = \"pocketsphinx\""])
        defer { _ = r.daemon.stop() }
        #expect(r.job["state"] == "done", "\(r.job.text)")
        #expect(r.job["engine"] == "pocketsphinx")
        let problems = SpeechScore.timingProblems(segments: r.segments, sentences: passage.sentences, duration: passage.duration)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(r.segments.count >= 3)
    }

    @Test("without a recognizer installed, PocketSphinx transcribes and the log says so once, with the reason",
          .enabled(if: SpeechFixtures.hasSpeech, "\(SpeechFixtures.missingSpeech)"))
    func missingRecognizerFallsBack() throws {
        let empty = TempDirectory()
        let passage = try SpeechFixtures.passage("sower-espeak")
        let r = try Self.transcribe(passage, processing: ["model_dir = \"\(empty.path)\""])
        defer { _ = r.daemon.stop() }
        #expect(r.job["state"] == "done", "\(r.job.text)")
        #expect(r.job["engine"] == "pocketsphinx")
        let lines = r.daemon.log.split(separator: "\n").filter { $0.contains("transcription engine") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("engine=pocketsphinx") == true && lines.first?.contains("tnotes models install") == true, "\(lines)")
    }

    @Test("a hung recognizer (its worker stopped) is killed after stall_timeout and the job retries and completes",
          .enabled(if: SpeechFixtures.hasModels, "\(SpeechFixtures.missingModels)"),
          .enabled(if: SpeechFixtures.hasSpeech, "\(SpeechFixtures.missingSpeech)"))
    func hungRecognizerIsKilledAndRetried() throws {
        let passage = try SpeechFixtures.passage("shepherd-neural")
        var stopped: Int32 = 0
        let r = try Self.transcribe(passage, processing: ["model_dir = \"\(SpeechFixtures.modelDirectory)\"", "stall_timeout = 8"]) { d, _, _ in
            // The worker is the daemon's child running `--recognizer-worker`; stop it once, as a hang would.
            #expect(eventually(timeout: 60, every: 0.05) {
                guard let pid = Self.worker(of: d.pid) else { return false }
                stopped = pid
                return kill(pid, SIGSTOP) == 0
            })
        }
        defer { _ = r.daemon.stop() }
        #expect(stopped > 0)
        #expect(r.job["state"] == "done", "\(r.job.text)")
        #expect(r.job["attempts"]?.doubleValue == 2, "\(r.job.text)")
        #expect(r.daemon.log.contains("made no progress"), "\(r.daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(stopped)/stat") || Self.state(stopped) == "Z" || Self.worker(of: r.daemon.pid) != stopped)
    }

    /// The pid of `parent`'s child that runs the recognizer worker.
    static func worker(of parent: Int32) -> Int32? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task") else { return nil }
        for t in tasks {
            let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(t)/children", encoding: .utf8)) ?? ""
            for c in children.split(separator: " ").compactMap({ Int32($0) }) {
                let cmd = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(c)/cmdline"))) ?? Data()
                if String(decoding: cmd, as: UTF8.self).contains("--recognizer-worker") { return c }
            }
        }
        return nil
    }

    static func state(_ pid: Int32) -> String {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return "" }
        return String(stat[stat.index(close, offsetBy: 2)])
    }
}
