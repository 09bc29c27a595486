import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Jobs a person asked for run at SCHED_OTHER nice 10, jobs the daemon queued on its own at SCHED_IDLE
/// (`JobPriority`). The case that made the difference: a `transcript.generate` of 10 s of speech asked for by
/// hand did not finish in 180 s while a compile kept both cores busy, because SCHED_IDLE gets no CPU while
/// anything else wants it. Here the cores are kept busy by one shell loop each, and the policy and nice value
/// of the job's threads and processes are read from /proc (`stat` fields 19 and 41).
@Suite("processing: job priority on a busy machine", .serialized)
struct BusyMachinePriorityTests {
    static let hasEspeak = FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
    /// About 5 s of speech at espeak-ng's 150 words a minute: about 2 s of PocketSphinx's CPU time alone, which
    /// at nice 10 beside a busy nice-0 loop on each core (and whatever else the machine runs) takes 30-60 s.
    static let spoken = "There is therefore now no condemnation for those who are in Christ Jesus."

    static let schedOther = 0, schedIdle = 5

    @Test("a hand-requested transcription (tnotes transcribe --wait) finishes within 120 s while every core is busy; its thread runs SCHED_OTHER at nice 10",
          .enabled(if: hasEspeak, "needs espeak-ng (apt-get install espeak-ng)"))
    func handRequestedTranscriptionFinishesOnABusyMachine() throws {
        let dir = TempDirectory()
        let wav = try #require(try ProcessingHarness.speech(Self.spoken, in: dir))
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config(autoTranscribe: false))
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Busy"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(wav)])
        #expect(try c.call("jobs.list").arrayValue?.isEmpty == true, "no automatic job: auto_transcribe is off")

        let burners = try Burners()
        defer { burners.stop() }
        let started = Date()
        let cli = try BackgroundCLI(["--socket", d.socketPath, "transcribe", sid, "--wait"], in: dir)
        var seen = Set<ThreadPriority>()
        while cli.isRunning && Date().timeIntervalSince(started) < 120 {
            seen.formUnion(ThreadPriority.threads(of: d.pid, named: "tnotes-asr"))
            usleep(100_000)
        }
        let result = cli.finish()
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0 && result.stdout.contains("transcribed"), "after \(elapsed) s: \(result.stdout)\(result.stderr)")
        #expect(elapsed < 120, "took \(elapsed) s")
        #expect(seen == [ThreadPriority(nice: 10, policy: Self.schedOther)], "decoder threads seen: \(seen)")
        // The job says it was asked for by hand, in its stored params (so a restart keeps it).
        let job = try #require(try c.call("jobs.list", ["sermonId": .string(sid)]).arrayValue?.first)
        #expect(job["params"]?["byHand"] == true && job["state"] == "done", "\(job.text)")
        #expect(try c.call("sermon.get", ["id": .string(sid)])["transcriptionStatus"] == "complete")
        print("hand-requested transcription of ~5 s of speech beside \(burners.count) busy cores: \(elapsed) s")
    }

    @Test("an automatic transcription runs SCHED_IDLE; asked for by hand while it runs, it moves to nice 10 and finishes on a busy machine",
          .enabled(if: hasEspeak, "needs espeak-ng (apt-get install espeak-ng)"))
    func automaticTranscriptionRunsIdleUntilAskedFor() throws {
        let dir = TempDirectory()
        let wav = try #require(try ProcessingHarness.speech(Self.spoken, in: dir))
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config(autoTranscribe: true))
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Busy, automatic"])["id"]?.stringValue)

        let burners = try Burners()
        defer { burners.stop() }
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(wav)])
        let job = try #require(try c.call("jobs.list", ["sermonId": .string(sid)]).arrayValue?.first)
        let jobId = try #require(job["id"]?.stringValue)
        #expect(job["params"]?["byHand"] == false, "\(job.text)")
        var idle = Set<ThreadPriority>()
        #expect(eventually(timeout: 30) {
            idle = ThreadPriority.threads(of: d.pid, named: "tnotes-asr")
            return !idle.isEmpty
        }, "no decoder thread appeared")
        #expect(idle == [ThreadPriority(nice: 19, policy: Self.schedIdle)], "\(idle)")
        // Starved by the busy cores, it is still running; a person now asks for it.
        let started = Date()
        let asked = try c.call("transcript.generate", ["sermonId": .string(sid)])
        #expect(asked["jobId"]?.stringValue == jobId, "the job under way is the one asked for")
        #expect(try c.call("jobs.get", ["id": .string(jobId)])["params"]?["byHand"] == true)
        if getuid() == 0 {
            // Leaving SCHED_IDLE needs CAP_SYS_NICE, which root has: the running decoder moves at once.
            var raised = Set<ThreadPriority>()
            #expect(eventually(timeout: 10) {
                raised = ThreadPriority.threads(of: d.pid, named: "tnotes-asr")
                return raised == [ThreadPriority(nice: 10, policy: Self.schedOther)]
            }, "decoder threads after the request: \(raised)")
            let done = try ProcessingHarness.waitForJob(c, jobId, timeout: 120)
            #expect(done["state"] == "done", "\(done.text)")
            #expect(Date().timeIntervalSince(started) < 120)
        }
    }

    @Test("a command engine runs at the job's priority: SCHED_IDLE when automatic, nice 10 when asked for, and still nice 10 after kill -9 and a restart")
    func commandEngineRunsAtTheJobsPriority() throws {
        let dir = TempDirectory()
        let pidFile = dir.file("engine.pid")
        // The engine records its pid, then takes its time (long enough to be looked at and killed mid-job).
        let engine = try ProcessingHarness.script(dir, "engine.sh", """
            echo $$ >> '\(pidFile)'
            sleep 3
            echo '{"text": "Forgive one another.", "segments": [{"start": 1, "end": 4, "text": "Forgive one another."}]}'
            """)
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config(
            autoTranscribe: true, maxAttempts: 3, extra: ["transcriber = \"command\"", "transcribe_command = [\"\(engine)\"]"]))
        defer { d.stop() }
        let c = try d.client()
        let audio = try dir.write("a.wav", "RIFF")

        // Automatic (an import): the engine runs SCHED_IDLE.
        let auto = try #require(try c.call("sermon.create", ["title": "Automatic"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(auto), "path": .string(audio)])
        let autoEngine = try Self.nextEngine(pidFile, after: 0)
        // Set by the daemon right after the spawn, which the engine's first line may beat: looked at until set.
        #expect(eventually(timeout: 2, every: 0.01) { ThreadPriority.process(autoEngine)?.policy == Self.schedIdle },
                "\(String(describing: ThreadPriority.process(autoEngine)))")
        let autoJob = try #require(try c.call("jobs.list", ["sermonId": .string(auto)]).arrayValue?.first?["id"]?.stringValue)
        #expect(try ProcessingHarness.waitForJob(c, autoJob)["state"] == "done")

        // Asked for (transcript.generate on another sermon, with auto_transcribe's job done first).
        let hand = try #require(try c.call("sermon.create", ["title": "By hand"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(hand), "path": .string(audio)])
        let importJob = try #require(try c.call("jobs.list", ["sermonId": .string(hand)]).arrayValue?.first?["id"]?.stringValue)
        #expect(try ProcessingHarness.waitForJob(c, importJob)["state"] == "done")
        let handJob = try #require(try c.call("transcript.generate", ["sermonId": .string(hand)])["jobId"]?.stringValue)
        let handEngine = try Self.nextEngine(pidFile, after: 2)
        #expect(eventually(timeout: 2, every: 0.01) { ThreadPriority.process(handEngine) == ThreadPriority(nice: 10, policy: Self.schedOther) },
                "\(String(describing: ThreadPriority.process(handEngine)))")

        // kill -9 mid-job: after the restart the job runs again, still as a job asked for by hand.
        d.kill9()
        kill(handEngine, SIGKILL)
        try d.start()
        let again = try Self.nextEngine(pidFile, after: 3)
        #expect(eventually(timeout: 2, every: 0.01) { ThreadPriority.process(again) == ThreadPriority(nice: 10, policy: Self.schedOther) },
                "\(String(describing: ThreadPriority.process(again)))")
        let c2 = try d.client()
        let done = try ProcessingHarness.waitForJob(c2, handJob)
        #expect(done["state"] == "done" && done["params"]?["byHand"] == true, "\(done.text)")
    }

    /// The pid the engine script writes after the first `after` lines of `file` (waits for it).
    static func nextEngine(_ file: String, after: Int) throws -> pid_t {
        var pid: pid_t?
        _ = eventually(timeout: 30, every: 0.02) {
            let lines = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n")
            guard lines.count > after else { return false }
            pid = pid_t(lines[after])
            return true
        }
        return try #require(pid, "the engine did not start")
    }
}

/// The nice value and scheduling policy of a thread or process, from /proc/<pid>/task/<tid>/stat.
struct ThreadPriority: Hashable, CustomStringConvertible {
    let nice: Int
    let policy: Int

    var description: String { "nice \(nice) policy \(policy)" }

    /// Fields 19 (nice) and 41 (policy) of a `stat` line (proc(5)); the command name, field 2, may hold
    /// spaces and parentheses, so fields are counted after its closing parenthesis.
    static func parse(_ stat: String) -> (name: String, priority: ThreadPriority)? {
        guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        let name = String(stat[stat.index(after: open)..<close])
        let fields = stat[stat.index(after: close)...].split(separator: " ")  // fields[0] is field 3
        guard fields.count > 38, let nice = Int(fields[16]), let policy = Int(fields[38]) else { return nil }
        return (name, ThreadPriority(nice: nice, policy: policy))
    }

    /// The priorities of `pid`'s threads whose name is `name`.
    static func threads(of pid: pid_t, named name: String) -> Set<ThreadPriority> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var out = Set<ThreadPriority>()
        for tid in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8),
                  let parsed = parse(stat), parsed.name == name else { continue }
            out.insert(parsed.priority)
        }
        return out
    }

    /// A process's (main thread's) priority.
    static func process(_ pid: pid_t) -> ThreadPriority? {
        (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).flatMap(parse)?.priority
    }
}

/// One busy shell loop per core, at normal priority: the machine a compile makes. Killed by `stop`.
final class Burners {
    private var processes: [Process] = []
    var count: Int { processes.count }

    init(count: Int = ProcessInfo.processInfo.activeProcessorCount) throws {
        for _ in 0..<max(1, count) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "while :; do :; done"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            processes.append(p)
        }
    }

    func stop() {
        for p in processes where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        for p in processes { p.waitUntilExit() }
        processes = []
    }

    deinit { stop() }
}

/// `tnotes` run in the background, its output in files (so a long run never fills a pipe).
final class BackgroundCLI {
    private let process = Process()
    private let out: String, err: String

    init(_ args: [String], in dir: TempDirectory) throws {
        out = dir.file("cli-\(UUID().uuidString).out")
        err = dir.file("cli-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        var env = ProcessInfo.processInfo.environment
        for k in ["TNOTES_SOCKET", "TNOTES_CONFIG", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"] { env[k] = nil }
        env["NO_COLOR"] = "1"
        process.executableURL = URL(fileURLWithPath: Binaries.path("tnotes"))
        process.arguments = args
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// Kills it if it still runs, then its status and output.
    func finish() -> (status: Int32, stdout: String, stderr: String) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
