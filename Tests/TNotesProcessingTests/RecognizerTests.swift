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
        -> (daemon: DaemonProcess, job: JSON, segments: [SpeechScore.Segment], text: String, rssBefore: Int, rssAfter: Int)
    {
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config(autoTranscribe: false, maxAttempts: 3, extra: processing))
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Spoken passage"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(passage.wav)])
        usleep(300_000)
        let rssBefore = Self.rssKiB(d.pid)
        let jobId = try #require(try c.call("transcript.generate", ["sermonId": .string(sid)])["jobId"]?.stringValue)
        try during?(d, c, jobId)
        let job = try ProcessingHarness.waitForJob(c, jobId, timeout: timeout)
        usleep(300_000)
        let rssAfter = Self.rssKiB(d.pid)
        let transcript = try c.call("sermon.get", ["id": .string(sid)])["transcript"] ?? .null
        let segments = (transcript["segments"]?.arrayValue ?? []).map {
            SpeechScore.Segment(start: $0["start"]?.doubleValue ?? -1, end: $0["end"]?.doubleValue ?? -1, text: $0["text"]?.stringValue ?? "")
        }
        return (d, job, segments, transcript["text"]?.stringValue ?? "", rssBefore, rssAfter)
    }

    static func rssKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
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
        // The recognizer ran in a worker process: the daemon is as large after the job as before it (±10 %).
        #expect(r.rssBefore > 0 && Double(r.rssAfter) <= Double(r.rssBefore) * 1.1, "RSS \(r.rssBefore) KiB -> \(r.rssAfter) KiB")
        // `tnotes models` says which engine transcribes, and that both are installed.
        let cli = try ProcessRunner.run(Binaries.path("tnotes"), ["--socket", r.daemon.socketPath, "models"])
        #expect(cli.status == 0 && cli.stdout.contains("in use: sherpa-onnx (moonshine-base-en)"), "\(cli.stdout)\(cli.stderr)")
        #expect(cli.stdout.contains("installed     sherpa-onnx") && cli.stdout.contains("installed     pocketsphinx"), "\(cli.stdout)")
    }

    @Test("a damaged model is refused before it is loaded: asked for by name the job fails saying how to reinstall, under auto PocketSphinx transcribes; the daemon lives on",
          .enabled(if: SpeechFixtures.hasModels, "\(SpeechFixtures.missingModels)"),
          .enabled(if: TranscriptionJobTests.hasEspeak, "needs espeak-ng"))
    func damagedModel() throws {
        // A copy of the installation whose tokens.txt has one line changed (a bad line would make sherpa-onnx
        // end its process), the big files linked.
        let copy = TempDirectory()
        let fm = FileManager.default
        let source = SpeechFixtures.modelDirectory
        for sub in try fm.subpathsOfDirectory(atPath: source) {
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: "\(source)/\(sub)", isDirectory: &isDir)
            if isDir.boolValue { try fm.createDirectory(atPath: copy.file(sub), withIntermediateDirectories: true); continue }
            if sub.hasSuffix("tokens.txt") || sub == "MANIFEST.sha256" { try fm.copyItem(atPath: "\(source)/\(sub)", toPath: copy.file(sub)) }
            else { try fm.createSymbolicLink(atPath: copy.file(sub), withDestinationPath: "\(source)/\(sub)") }
        }
        let tokens = copy.file("moonshine-base-en/tokens.txt")
        var text = try String(contentsOfFile: tokens, encoding: .utf8)
        text = "not base64 at all\n" + text.drop { $0 != "\n" }.dropFirst()
        try text.write(toFile: tokens, atomically: true, encoding: .utf8)
        let dir = TempDirectory()
        let wav = try #require(try ProcessingHarness.speech(TranscriptionJobTests.spoken, in: dir))
        let passage = SpeechFixtures.Passage(text: TranscriptionJobTests.spoken, voice: "espeak", duration: 10, sentences: [], wav: wav)

        let named = try Self.transcribe(passage, processing: ["model_dir = \"\(copy.path)\"", "transcriber = \"sherpa-onnx\""])
        #expect(named.job["state"] == "failed", "\(named.job.text)")
        #expect(named.job["attempts"]?.doubleValue == 1, "a damaged model is not retried: \(named.job.text)")
        let why = named.job["lastError"]?.stringValue ?? ""
        #expect(why.contains("tokens.txt is damaged") && why.contains("tnotes models install"), "\(why)")
        #expect(named.daemon.isRunning)
        _ = named.daemon.stop()

        let auto = try Self.transcribe(passage, processing: ["model_dir = \"\(copy.path)\""])
        defer { _ = auto.daemon.stop() }
        #expect(auto.job["state"] == "done", "\(auto.job.text)")
        #expect(auto.job["engine"] == "pocketsphinx")
        #expect(auto.text.lowercased().contains("read") && auto.text.lowercased().contains("book"), "\(auto.text)")
        #expect(auto.daemon.log.contains("damaged"), "\(auto.daemon.log)")
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
          .enabled(if: TranscriptionJobTests.hasEspeak, "needs espeak-ng"))
    func missingRecognizerFallsBack() throws {
        let empty = TempDirectory()
        let dir = TempDirectory()
        let wav = try #require(try ProcessingHarness.speech(TranscriptionJobTests.spoken, in: dir))
        let passage = SpeechFixtures.Passage(text: TranscriptionJobTests.spoken, voice: "espeak", duration: 10, sentences: [], wav: wav)
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
                guard let pid = ProcessTree.recognizerWorker(of: d.pid) else { return false }
                stopped = pid
                return kill(pid, SIGSTOP) == 0
            })
        }
        defer { _ = r.daemon.stop() }
        #expect(stopped > 0)
        #expect(r.job["state"] == "done", "\(r.job.text)")
        #expect(r.job["attempts"]?.doubleValue == 2, "\(r.job.text)")
        #expect(r.daemon.log.contains("made no progress"), "\(r.daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(stopped)/stat") || Self.state(stopped) == "Z" || ProcessTree.recognizerWorker(of: r.daemon.pid) != stopped)
    }

    static func state(_ pid: Int32) -> String {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return "" }
        return String(stat[stat.index(close, offsetBy: 2)])
    }
}
