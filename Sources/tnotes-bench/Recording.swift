import Foundation
import TNotesClient
import TNotesCore

extension Bench {
    /// Contract §8.2 figures, over `seconds` of espeak-ng speech played into a private PulseAudio server's
    /// null sink and recorded from its monitor: how long after words are spoken their `transcript.partial`
    /// event arrives (median and worst), the daemon's CPU while it records (capture, encoding and live
    /// recognition), and its peak RSS beside its RSS before.
    func recording(seconds: Double) throws -> [Figure] {
        let d = "\(dir)/recording"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        for tool in ["/usr/bin/pulseaudio", "/usr/bin/paplay", "/usr/bin/espeak-ng"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw BenchError("\(tool) is missing (apt-get install pulseaudio pulseaudio-utils espeak-ng)")
        }
        // About `seconds` of speech: espeak-ng speaks about 2.5 words a second.
        let words = "Good morning church. Please open your Bibles to the letter to the Romans, chapter eight. There is therefore now no condemnation for those who are in Christ Jesus. This is the heart of the gospel. Forgiveness is not earned; it is received."
            .split(separator: " ")
        let text = (0..<Int(seconds * 2.5)).map { words[$0 % words.count] }.joined(separator: " ")
        let wav = "\(d)/speech.wav"
        _ = try run("/usr/bin/espeak-ng", ["-w", wav, text])
        let duration = try Self.wavSeconds(wav)

        // A sound server of our own on a private socket.
        let socket = "\(d)/pulse.sock"
        let pulse = try Child("/usr/bin/pulseaudio", [
            "-n", "--daemonize=no", "--exit-idle-time=-1", "--disable-shm=yes", "--log-target=stderr",
            "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1", "-L", "module-null-sink sink_name=bench",
        ], env: ["HOME": d, "XDG_RUNTIME_DIR": d], log: "\(d)/pulse.log")
        defer { Self.reap(pulse) }
        try Wait.forSocket(socket, timeout: 20)
        let server = "unix:\(socket)"

        let config = "\(d)/tnotesd.toml"
        try Data("[recording]\ntranscribe = false\n".utf8).write(to: URL(fileURLWithPath: config))
        let daemon = try Child("\(bin)/tnotesd", ["--config", config, "--data-dir", "\(d)/data", "--socket", "\(d)/s.sock",
                                                  "--log-level", logLevel], env: ["PULSE_SERVER": server], log: "\(d)/log")
        defer { Self.reap(daemon) }
        try Wait.forSocket("\(d)/s.sock")
        let c = try RPCConnection(path: "\(d)/s.sock")
        let events = try RPCConnection(path: "\(d)/s.sock")
        _ = try events.call("events.subscribe", ["topics": ["transcript.partial", "recording.level"]])

        // The idle daemon's CPU over a stretch as long as the recording: the baseline.
        let idleCPU0 = daemon.cpuSeconds
        Thread.sleep(forTimeInterval: min(duration, 5))
        let idleCPU = (daemon.cpuSeconds - idleCPU0) / min(duration, 5)
        let rssBefore = daemon.rssKiB

        _ = try c.call("recording.start", ["title": "bench recording"])
        let started = Date()
        let cpu0 = daemon.cpuSeconds
        // paplay through /usr/bin/env on a thread of its own: the bench only needs it started, and a Child's
        // stop waited for good on a paplay that had already exited (Foundation never reaped it).
        let play = Thread { _ = try? run("/usr/bin/env", ["PULSE_SERVER=\(server)", "/usr/bin/paplay", "--device=bench", wav]) }
        play.start()
        // Events while the speech plays and a few seconds after: each partial's latency is its arrival less
        // the moment its last word ended, mapped from the recording's clock to wall time by the level events
        // (wall time minus elapsed, the smallest seen: the capture's own delay).
        var offset = Double.infinity
        var latencies: [Double] = []
        var peakRSS = rssBefore
        let end = Date().addingTimeInterval(duration + 4)
        while Date() < end {
            guard let message = try? events.nextNotification(timeout: 0.2), let e = message["params"] else { continue }
            let now = Date().timeIntervalSince(started)
            switch e["topic"]?.stringValue {
            case "recording.level":
                if let elapsed = e["elapsed"]?.doubleValue { offset = min(offset, now - elapsed) }
                peakRSS = max(peakRSS, daemon.rssKiB)
            case "transcript.partial":
                if let last = e["segments"]?.arrayValue?.last?["end"]?.doubleValue, offset.isFinite {
                    latencies.append(now - (last + offset))
                }
            default: break
            }
        }
        let recordingCPU = (daemon.cpuSeconds - cpu0) / Date().timeIntervalSince(started)
        _ = try c.call("recording.stop")
        guard !latencies.isEmpty else { throw BenchError("no transcript.partial event came while speech played") }
        latencies.sort()
        say("recorded \(Int(duration)) s of speech: \(latencies.count) partial events, CPU \(String(format: "%.0f", recordingCPU * 100)) %")
        return [
            Figure(name: "live transcript: speech-to-event latency, median", value: latencies[latencies.count / 2], unit: "s",
                   target: "a few seconds", higherIsBetter: false),
            Figure(name: "live transcript: speech-to-event latency, worst", value: latencies.last!, unit: "s",
                   target: "a few seconds", higherIsBetter: false),
            // No baseline: the idle daemon uses no measurable CPU (0 ticks over 5 s), and a ratio to 0 is none.
            Figure(name: "tnotesd CPU while recording (capture, Opus, live recognition)", value: recordingCPU * 100, unit: "% of a core",
                   target: "well under one core (idle: \(String(format: "%.1f", idleCPU * 100)) %)", higherIsBetter: false),
            Figure(name: "tnotesd peak RSS while recording", value: Double(peakRSS) / 1024, unit: "MiB",
                   baseline: Double(rssBefore) / 1024, baselineName: "tnotesd RSS before recording", target: "bounded",
                   higherIsBetter: false),
        ]
    }

    /// Stops a child and waits for it with waitpid: in this section Foundation's Process never saw its
    /// children exit (after the sound server started, `waitUntilExit` waited for good on exited ones).
    static func reap(_ child: Child) {
        let pid = child.pid
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<2000 {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno == ECHILD) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }
}
