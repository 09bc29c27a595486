import Foundation
import TNotesClient
import TNotesCore

extension Bench {
    /// Contract §6.1 figures: PocketSphinx's speed on a recording of `minutes` (audio seconds per CPU second
    /// of the daemon and its recognizer worker), the worker's peak RSS while it decodes (beside the daemon's RSS
    /// before), and the p99 of `daemon.status` while the decode runs (beside the same p99 on the idle daemon,
    /// measured first).
    func transcription(minutes: Double) throws -> [Figure] {
        let d = "\(dir)/transcription"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        let wav = try Self.speechRecording(minutes: minutes, in: d)
        let duration = try Self.wavSeconds(wav)
        let config = "\(d)/tnotesd.toml"
        try Data("[processing]\nauto_transcribe = true\nauto_summarize = false\n".utf8).write(to: URL(fileURLWithPath: config))
        let daemon = try Child("\(bin)/tnotesd", ["--config", config, "--data-dir", "\(d)/data", "--socket", "\(d)/s.sock",
                                                  "--log-level", logLevel], log: "\(d)/log")
        defer { daemon.stop() }
        try Wait.forSocket("\(d)/s.sock")
        let c = try RPCConnection(path: "\(d)/s.sock")
        let probe = try RPCConnection(path: "\(d)/s.sock")

        // daemon.status on the idle daemon: the baseline.
        var idle = [Double]()
        for _ in 0..<(quick ? 300 : 2000) {
            let t = Date()
            _ = try probe.call("daemon.status")
            idle.append(Date().timeIntervalSince(t) * 1000)
        }
        let rssBefore = daemon.rssKiB
        let sid = try c.call("sermon.create", ["title": "bench transcription"])["id"] ?? .null
        let cpuBefore = daemon.cpuSecondsWithChildren
        var workerPeak = 0
        _ = try c.call("audio.import", ["sermonId": sid, "path": .string(wav)])
        let job = try c.call("jobs.list").arrayValue?.first?["id"] ?? .null
        // daemon.status, back to back, for as long as the job runs.
        var busy = [Double]()
        var state = ""
        let deadline = Date().addingTimeInterval(duration * 4 + 120)
        repeat {
            let t = Date()
            _ = try probe.call("daemon.status")
            busy.append(Date().timeIntervalSince(t) * 1000)
            if busy.count % 20 == 0 {
                state = try c.call("jobs.get", ["id": job])["state"]?.stringValue ?? ""
                if let w = daemon.recognizerWorker { workerPeak = max(workerPeak, Child.peakRSSKiB(pid: w)) }
            }
            usleep(5000)
            if Date() > deadline { throw BenchError("the transcription did not finish in time") }
        } while state != "done" && state != "failed"
        guard state == "done" else { throw BenchError("the transcription failed: \(try c.call("jobs.get", ["id": job]).text)") }
        let cpu = daemon.cpuSecondsWithChildren - cpuBefore
        let peak = max(workerPeak, daemon.peakRSSKiB)
        let segments = try c.call("sermon.get", ["id": sid])["transcript"]?["segments"]?.arrayValue?.count ?? 0
        say("transcribed \(Int(duration)) s of speech in \(String(format: "%.1f", cpu)) CPU s: \(segments) segments")
        func p99(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[min(s.count - 1, Int(Double(s.count) * 0.99))] }
        let label = minutes >= 1 ? "\(Int(minutes))-minute" : "\(Int(minutes * 60))-second"
        return [
            Figure(name: "transcription speed, PocketSphinx, \(label) recording", value: duration / max(cpu, 0.001),
                   unit: "audio s per CPU s", target: "> 1 (faster than real time)", higherIsBetter: true),
            Figure(name: "recognizer worker peak RSS while transcribing a \(label) recording", value: Double(peak) / 1024, unit: "MiB",
                   baseline: Double(rssBefore) / 1024, baselineName: "tnotesd RSS before the job", target: "bounded (chunked decoding)",
                   higherIsBetter: false),
            Figure(name: "daemon.status p99 while transcribing", value: p99(busy), unit: "ms", baseline: p99(idle),
                   baselineName: "daemon.status p99, idle daemon", target: "< 10 ms", higherIsBetter: false),
        ]
    }

    /// A recording of about `minutes` of English speech, made by espeak-ng (Debian's espeak-ng package).
    static func speechRecording(minutes: Double, in dir: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng") else {
            throw BenchError("espeak-ng is missing (apt-get install espeak-ng)")
        }
        let paragraph = """
            Good morning church. Please open your Bibles to the letter to the Romans, chapter eight. \
            There is therefore now no condemnation for those who are in Christ Jesus. \
            This is the heart of the gospel. Forgiveness is not earned; it is received. \
            We know that all things work together for good to those who love God. \
            That does not mean that all things are good, but that God is at work in all of them. \
            Forgiveness received becomes forgiveness given. Let us forgive one another this week. \

            """
        // espeak-ng speaks about 150 words a minute at its default speed; the paragraph has about 90 words.
        let text = String(repeating: paragraph, count: max(1, Int((minutes * 150 / 90).rounded(.up))))
        let textFile = "\(dir)/speech.txt", wav = "\(dir)/speech.wav"
        try Data(text.utf8).write(to: URL(fileURLWithPath: textFile))
        _ = try run("/usr/bin/espeak-ng", ["-f", textFile, "-w", wav])
        return wav
    }

    static func wavSeconds(_ path: String) throws -> Double {
        let h = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? h.close() }
        let head = [UInt8](h.readData(ofLength: 44))
        guard head.count == 44 else { throw BenchError("\(path) is not a WAV file") }
        func le32(_ o: Int) -> Int { Int(head[o]) | Int(head[o + 1]) << 8 | Int(head[o + 2]) << 16 | Int(head[o + 3]) << 24 }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Double(size - 44) / Double(le32(28))
    }
}
