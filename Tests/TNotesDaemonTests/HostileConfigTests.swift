import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Timers from configured seconds are clamped, never converted as they are: the config bounds `interval`,
/// the backoff and a command's `timeout` only from below, and `Int(seconds * 1000)` of 1e300 traps. A daemon
/// configured with them starts, backs off a failing sync (its `nextAttemptAt` rendered, far away), keeps its
/// realtime loop waiting, runs a command job, and stops cleanly.
@Suite("daemon: extreme configured seconds")
struct HostileConfigTests {
    @Test("interval, backoff and timeout of 1e300 s: the daemon starts, backs off, runs a job and stops with status 0")
    func hugeConfiguredSeconds() throws {
        let d = DaemonProcess()
        let engine = try d.dir.write("engine.sh", """
            #!/bin/sh
            echo '{"text": "Forgive one another.", "segments": [{"start": 1, "end": 4, "text": "Forgive one another."}]}'
            """)
        chmod(engine, 0o755)
        // Port 9 (discard) on loopback: nothing listens, every sync fails at once and backs off.
        let token = try d.dir.write("token", "not-a-real-token\n")
        chmod(token, 0o600)
        let config = try d.dir.write("tnotesd.toml", """
            [sync]
            server_url = "http://127.0.0.1:9"
            token_file = "\(token)"
            interval = 1e300
            backoff_base = 1e300
            backoff_max = 1e300
            realtime = true
            [processing]
            auto_transcribe = false
            transcriber = "command"
            transcribe_command = ["\(engine)"]
            timeout = 1e300
            """)
        d.extraArguments = ["--config", config]
        try d.start()
        defer { d.stop() }
        let c = try d.client()

        let failed = try c.callError("sync.now", ["wait": true])
        #expect(!failed.message.isEmpty, "\(failed)")
        var status: JSON = .null
        #expect(eventually(timeout: 10) {
            status = (try? c.call("sync.status")) ?? .null
            return status["state"] == "backoff"
        }, "\(status.text)")
        // The next attempt is as far away as the clamp allows (about 31,700 years), and rendered.
        let next = try #require(status["nextAttemptAt"]?.stringValue, "\(status.text)")
        #expect(!next.hasPrefix("20"), "\(next)")

        let sid = try #require(try c.call("sermon.create", ["title": "Timeouts"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(try d.dir.write("a.wav", "RIFF"))])
        let job = try #require(try c.call("transcript.generate", ["sermonId": .string(sid)])["jobId"]?.stringValue)
        var state: JSON = .null
        #expect(eventually(timeout: 30) {
            state = (try? c.call("jobs.get", ["id": .string(job)]))?["state"] ?? .null
            return state == "done" || state == "failed"
        })
        #expect(state == "done")
        #expect(try c.call("daemon.status")["pid"]?.int64Value == Int64(d.pid))
        #expect(d.stop() == 0, "tnotesd did not exit 0; log:\n\(d.log.suffix(3000))")
    }
}
