import Foundation
import TNotesClient
import TNotesCore
import TNotesTestSupport

/// Contract §8.3 (issue #52): every installed speech-to-text engine's word error rate against the text that was
/// spoken, and its speed, on our own sermon passages (scripts/speech) spoken by a neural voice (hibari-tts) and by
/// espeak-ng; and the daemon's memory after its jobs, beside its memory when idle.
extension Bench {
    struct SpeechPassage: Decodable {
        var text: String
        var duration: Double
    }

    /// `speechDir` holds NAME-VOICE.wav/.json (scripts/speech/make-speech.sh); `modelsDir` the sherpa-onnx
    /// installation, or nil when it is not installed (its figures are then left out, and said so).
    func recognizers(speechDir: String, modelsDir: String?, passages: [String]) throws -> [Figure] {
        var engines = ["pocketsphinx"]
        if let modelsDir, FileManager.default.fileExists(atPath: "\(modelsDir)/MANIFEST.sha256") {
            engines.insert("sherpa-onnx", at: 0)
        } else {
            say("sherpa-onnx is not installed (scripts/install-models.sh .build/models): its figures are left out")
        }
        var figures: [Figure] = []
        for engine in engines {
            figures += try recognizer(engine, speechDir: speechDir, modelsDir: modelsDir, passages: passages)
        }
        return figures
    }

    private func recognizer(_ engine: String, speechDir: String, modelsDir: String?, passages: [String]) throws -> [Figure] {
        let d = "\(dir)/recognizer-\(engine)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        var config = "[processing]\nauto_transcribe = false\nauto_summarize = false\ntranscriber = \"\(engine)\"\n"
        if engine == "sherpa-onnx", let modelsDir { config += "model_dir = \"\(modelsDir)\"\n" }
        try Data(config.utf8).write(to: URL(fileURLWithPath: "\(d)/tnotesd.toml"))
        let daemon = try Child("\(bin)/tnotesd", ["--config", "\(d)/tnotesd.toml", "--data-dir", "\(d)/data", "--socket", "\(d)/s.sock",
                                                  "--log-level", logLevel], log: "\(d)/log")
        defer { daemon.stop() }
        try Wait.forSocket("\(d)/s.sock")
        let c = try RPCConnection(path: "\(d)/s.sock")
        // Every passage is imported first: the baseline is the idle daemon holding them, so the figure after is
        // what the jobs left behind, not what importing did.
        var imported: [(voice: String, passage: SpeechPassage, sermonId: JSON)] = []
        for voice in ["neural", "espeak"] {
            for name in passages {
                let base = "\(speechDir)/\(name)-\(voice)"
                let passage = try JSONDecoder().decode(SpeechPassage.self, from: Data(contentsOf: URL(fileURLWithPath: base + ".json")))
                let sid = try c.call("sermon.create", ["title": .string("\(name) (\(voice))")])["id"] ?? .null
                _ = try c.call("audio.import", ["sermonId": sid, "path": .string(base + ".wav")])
                imported.append((voice, passage, sid))
            }
        }
        usleep(500_000)
        let idleRSS = daemon.rssKiB
        var figures: [Figure] = []
        var workerPeak = 0
        for voice in ["neural", "espeak"] {
            var errors = 0, words = 0
            var audio = 0.0, cpu = 0.0
            for (_, passage, sid) in imported.filter({ $0.voice == voice }) {
                let cpuBefore = daemon.cpuSecondsWithChildren
                let job = try c.call("transcript.generate", ["sermonId": sid])["jobId"] ?? .null
                var state = ""
                let deadline = Date().addingTimeInterval(passage.duration * 10 + 120)
                repeat {
                    usleep(100_000)
                    if let w = daemon.recognizerWorker { workerPeak = max(workerPeak, Child.peakRSSKiB(pid: w)) }
                    state = try c.call("jobs.get", ["id": job])["state"]?.stringValue ?? ""
                    if Date() > deadline { throw BenchError("\(engine) did not finish a \(voice) passage in time") }
                } while state != "done" && state != "failed"
                guard state == "done" else { throw BenchError("\(engine) failed on a \(voice) passage: \(try c.call("jobs.get", ["id": job]).text)") }
                cpu += daemon.cpuSecondsWithChildren - cpuBefore
                audio += passage.duration
                let text = try c.call("sermon.get", ["id": sid])["transcript"]?["text"]?.stringValue ?? ""
                let a = SpeechScore.align(reference: SpeechScore.words(passage.text), hypothesis: SpeechScore.words(text))
                errors += a.substitutions + a.deletions + a.insertions
                words += a.referenceCount
            }
            let wer = 100 * Double(errors) / Double(max(1, words))
            say("\(engine), \(voice) voice: WER \(String(format: "%.1f", wer)) % (\(errors) of \(words) words), "
                + "\(String(format: "%.1f", audio / max(cpu, 0.001)))× real time per CPU")
            let target = engine == "sherpa-onnx" ? (voice == "neural" ? "≤ 3 %" : "≤ 10 %") : nil
            figures.append(Figure(name: "word error rate, \(engine), \(voice == "neural" ? "neural voice (hibari-tts)" : "espeak-ng")",
                                  value: wer, unit: "%", target: target, higherIsBetter: false, mayBeZero: true))
            figures.append(Figure(name: "transcription speed, \(engine), \(voice == "neural" ? "neural voice" : "espeak-ng")",
                                  value: audio / max(cpu, 0.001), unit: "audio s per CPU s",
                                  target: engine == "sherpa-onnx" ? "≥ 3 (one core)" : nil, higherIsBetter: true))
        }
        usleep(500_000)
        figures.append(Figure(name: "tnotesd RSS after \(engine) jobs", value: Double(daemon.rssKiB) / 1024, unit: "MiB",
                              baseline: Double(idleRSS) / 1024, baselineName: "tnotesd RSS idle, before them (audio imported)",
                              target: "≤ 1.1× idle (the recognizer runs in a worker process)", higherIsBetter: false))
        figures.append(Figure(name: "\(engine) worker peak RSS", value: Double(workerPeak) / 1024, unit: "MiB",
                              target: nil, higherIsBetter: false))
        return figures
    }
}
