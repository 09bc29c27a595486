import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// `tnotes transcribe`, `tnotes summarize`, `tnotes ask` and `tnotes jobs` (contract §6.1 CLI) against a real
/// daemon whose transcriber is a command (fast and deterministic).
@Suite("tnotes transcribe, summarize, ask and jobs")
struct ProcessingCommandTests {
    static func rig(engine body: String) throws -> (CLIRig, TempDirectory) {
        let dir = TempDirectory()
        let engine = try dir.write("engine.sh", "#!/bin/sh\n" + body + "\n")
        chmod(engine, 0o755)
        let daemon = DaemonProcess()
        let config = try daemon.dir.write("tnotesd.toml", """
            [sync]
            backoff_base = 0.05
            backoff_max = 0.1
            [processing]
            transcriber = "command"
            transcribe_command = ["\(engine)"]
            max_attempts = 1
            auto_summarize = false
            """)
        daemon.extraArguments = ["--config", config]
        return (try CLIRig(daemon: daemon), dir)
    }

    @Test("transcribe --wait, summarize, ask and jobs print what happened; a failed job exits 1 with its reason")
    func processingCommands() throws {
        let (rig, dir) = try Self.rig(engine: """
            echo '{"text": "Forgive one another. Love never fails.", "segments": [{"start": 1, "end": 4, "text": "Forgive one another."}, {"start": 65, "end": 70, "text": "Love never fails."}]}'
            """)
        let sid = try rig.makeSermon("Love")
        try rig.rpc.call("audio.import", ["sermonId": .string(sid), "path": .string(try dir.write("a.wav", "RIFF"))])

        let t = try rig.run(["transcribe", sid, "--wait"])
        #expect(t.status == 0 && t.stdout.contains("transcribed (2 segments"), "\(t.stdout)\(t.stderr)")
        let jobs = try rig.run(["jobs"])
        #expect(jobs.status == 0 && jobs.stdout.contains("transcribe  done  sermon \(sid)"), "\(jobs.stdout)")
        #expect(try rig.json(["jobs"]).arrayValue?.first?["kind"] == "transcribe")

        let s = try rig.run(["summarize", sid, "--type", "bullet"])
        #expect(s.status == 0 && s.stdout.contains("Key points: Love") && s.stdout.contains("[01:05]"), "\(s.stdout)\(s.stderr)")
        #expect(try rig.run(["summarize", sid, "--type", "haiku"]).status == 2)

        let a = try rig.run(["ask", sid, "what", "about", "forgiveness?"])
        #expect(a.status == 0 && a.stdout.contains("[00:01]") && a.stdout.contains("Forgive one another"), "\(a.stdout)\(a.stderr)")
        #expect(try rig.run(["ask", sid]).status == 2)

        // On a sermon without audio, transcribe is refused (exit 1, the reason on stderr).
        let bare = try rig.makeSermon("No audio")
        let refused = try rig.run(["transcribe", bare])
        #expect(refused.status == 1 && refused.stderr.contains("no audio"), "\(refused.stderr)")
        #expect(try rig.run(["transcribe", "nope"]).status == 2)
        #expect(try rig.run(["jobs", "--state", "sleeping"]).status == 2)
    }

    @Test("a job that fails makes transcribe --wait exit 1 with the engine's message; jobs retry queues it again")
    func failedJob() throws {
        let (rig, dir) = try Self.rig(engine: "echo 'CUDA device not found' >&2; exit 3")
        let sid = try rig.makeSermon("Broken")
        try rig.rpc.call("audio.import", ["sermonId": .string(sid), "path": .string(try dir.write("a.wav", "RIFF"))])
        let t = try rig.run(["transcribe", sid, "--wait"])
        #expect(t.status == 1 && t.stderr.contains("exited with status 3: CUDA device not found"), "\(t.stdout)\(t.stderr)")
        let listed = try rig.run(["jobs", "--state", "failed"])
        #expect(listed.stdout.contains("error: ") && listed.stdout.contains("CUDA device not found"), "\(listed.stdout)")
        let id = try #require(try rig.json(["jobs"]).arrayValue?.first?["id"]?.stringValue)
        let retried = try rig.run(["jobs", "retry", id])
        #expect(retried.status == 0 && retried.stdout.hasPrefix("queued again: \(id)"), "\(retried.stdout)\(retried.stderr)")
    }
}
