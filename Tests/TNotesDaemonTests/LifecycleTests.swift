import Foundation
import TNotesCore
import TNotesTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Lifecycle of a real `tnotesd`: restart, crash safety, config errors, file modes, single instance,
// signals, damaged databases, path overrides (contract §1, §2, §7).

// MARK: - Tests

@Suite("Lifecycle")
struct LifecycleTests {
    // 1
    @Test("data survives a clean restart; SIGTERM exits 0 and removes the socket")
    func cleanRestart() throws {
        let d = DaemonProcess()
        try d.start()
        let before: JSON
        let id: String
        do {
            let c = try d.client()
            id = try makeSermon(c, notes: 5)
            before = try c.call("sermon.get", ["id": .string(id)])
        }
        #expect(before["notes"]?.arrayValue?.count == 5)
        #expect(before["transcript"]?["text"]?.stringValue == "In the beginning was the Word.")

        let status = d.stop()
        #expect(status == 0, "log:\n\(d.log)")
        #expect(!exists(d.socketPath), "socket file left behind after SIGTERM")

        try d.start()
        let after = try d.client().call("sermon.get", ["id": .string(id)])
        #expect(after == before)
        #expect(d.stop() == 0)
    }

    // 2
    @Test("a write acknowledged to the client survives kill -9 right after the reply")
    func acknowledgedWriteSurvivesKill9() throws {
        let d = DaemonProcess()
        try d.start()
        var noteIds: Set<String> = []
        let sermonId: String
        do {
            let c = try d.client()
            sermonId = try #require(try c.call("sermon.create", ["title": "Crash test"])["id"]?.stringValue)
            for i in 0..<20 {
                let note = try c.call("note.add", ["sermonId": .string(sermonId), "text": .string("n\(i)"),
                                                   "timestamp": .int(Int64(i))])
                noteIds.insert(try #require(note["id"]?.stringValue))
            }
            d.kill9()
        }
        #expect(!d.isRunning)

        try d.start()
        let sermon = try d.client().call("sermon.get", ["id": .string(sermonId)])
        let got = Set((sermon["notes"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
        #expect(got == noteIds)
        #expect(got.count == 20)
        #expect(d.stop() == 0)
    }

    // 3
    struct BadConfig: Sendable, CustomStringConvertible {
        let name: String
        let toml: String
        /// Substrings the single error line must contain besides the file name (the key).
        let mentions: [String]
        var description: String { name }
    }

    static let badConfigs: [BadConfig] = [
        BadConfig(name: "unknown top-level key", toml: "frobnicate = true\n", mentions: ["frobnicate"]),
        BadConfig(name: "unknown key in [sync]", toml: "[sync]\nintervall = 30\n", mentions: ["sync", "intervall"]),
        BadConfig(name: "wrong type", toml: "[sync]\ninterval = \"abc\"\n", mentions: ["sync", "interval"]),
        BadConfig(name: "bad value (zero interval)", toml: "[sync]\ninterval = 0\n", mentions: ["sync", "interval"]),
        BadConfig(name: "bad value (tiny max_request_bytes)", toml: "[limits]\nmax_request_bytes = 1\n",
                  mentions: ["limits", "max_request_bytes"]),
        BadConfig(name: "TOML syntax error", toml: "[sync\ninterval = = 3\n", mentions: []),
        BadConfig(name: "unknown transcriber", toml: "[processing]\ntranscriber = \"whisper\"\n", mentions: ["processing", "transcriber"]),
        BadConfig(name: "command engine without its command", toml: "[processing]\ntranscriber = \"command\"\n",
                  mentions: ["processing", "transcribe_command"]),
        BadConfig(name: "a command as a shell string", toml: "[processing]\ntranscribe_command = \"whisper -m x\"\n",
                  mentions: ["processing", "transcribe_command", "argv"]),
        BadConfig(name: "zero attempts", toml: "[processing]\nmax_attempts = 0\n", mentions: ["processing", "max_attempts"]),
    ]

    @Test("the example config in Config/tnotesd.toml is valid (--check-config)")
    func exampleConfigIsValid() throws {
        let dir = TempDirectory()
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Config/tnotesd.toml").path
        let r = try tnotesd(["--config", example, "--check-config"], env: cleanEnvironment(dir))
        #expect(r.status == 0, "stdout: \(r.stdout)\nstderr: \(r.stderr)")
    }

    @Test("a bad config exits 78 with one line naming the file and the key (--check-config)", arguments: badConfigs)
    func badConfigCheck(_ bad: BadConfig) throws {
        let dir = TempDirectory()
        let file = try dir.write("cfg/tnotesd.toml", bad.toml)
        let r = try tnotesd(["--config", file, "--check-config"], env: cleanEnvironment(dir))
        #expect(r.status == 78, "stdout: \(r.stdout)\nstderr: \(r.stderr)")
        let errLines = lines(r.stderr)
        #expect(errLines.count == 1, "stderr: \(r.stderr)")
        let line = String(errLines.first ?? "")
        #expect(line.contains(file), "line does not name the file: \(line)")
        for m in bad.mentions {
            #expect(line.contains(m), "line does not mention \(m): \(line)")
        }
    }

    @Test("--config naming a missing file exits 78 naming the file")
    func missingConfigFile() throws {
        let dir = TempDirectory()
        let file = dir.file("nope/tnotesd.toml")
        let r = try tnotesd(["--config", file, "--check-config"], env: cleanEnvironment(dir))
        #expect(r.status == 78, "stderr: \(r.stderr)")
        let errLines = lines(r.stderr)
        #expect(errLines.count == 1, "stderr: \(r.stderr)")
        #expect(errLines.first?.contains(file) == true, "stderr: \(r.stderr)")

        // TNOTES_CONFIG naming a missing file is an error too.
        let r2 = try tnotesd(["--check-config"], env: cleanEnvironment(dir, ["TNOTES_CONFIG": file]))
        #expect(r2.status == 78, "stderr: \(r2.stderr)")
        #expect(r2.stderr.contains(file))
    }

    @Test("a real start with a bad config exits 78 with one line, and creates no socket")
    func badConfigRealStart() throws {
        let d = DaemonProcess()
        let file = try d.dir.write("cfg/tnotesd.toml", "[sync]\ninterval = \"abc\"\n")
        d.extraArguments = ["--config", file]
        try d.launch()
        let status = d.waitForExit(timeout: 30)
        #expect(status == 78, "log:\n\(d.log)")
        let errLines = lines(d.log)
        #expect(errLines.count == 1, "log:\n\(d.log)")
        #expect(errLines.first?.contains(file) == true && errLines.first?.contains("interval") == true, "log:\n\(d.log)")
        #expect(!exists(d.socketPath))
    }

    @Test("a bad config at the default location ($XDG_CONFIG_HOME/tnotes/tnotesd.toml) also stops a real start")
    func badDefaultConfigRealStart() throws {
        let d = DaemonProcess()
        let file = try d.dir.write("config/tnotes/tnotesd.toml", "bogus_key = 1\n")
        try d.launch()
        let status = d.waitForExit(timeout: 30)
        #expect(status == 78, "log:\n\(d.log)")
        let errLines = lines(d.log)
        #expect(errLines.count == 1, "log:\n\(d.log)")
        #expect(errLines.first?.contains(file) == true && errLines.first?.contains("bogus_key") == true)
    }

    @Test("a valid config passes --check-config")
    func validConfig() throws {
        let dir = TempDirectory()
        let token = try dir.write("cfg/token", "secret\n")
        let file = try dir.write("cfg/tnotesd.toml", """
            data_dir = "\(dir.file("cfgdata"))"
            socket_path = "\(dir.file("cfgrun/s.sock"))"

            [limits]
            max_request_bytes = 1048576

            [log]
            level = "info"

            [sync]
            server_url = "http://127.0.0.1:8787"
            token_file = "\(token)"
            interval = 30
            backoff_base = 0.5
            backoff_max = 120
            batch_size = 100

            """)
        let r = try tnotesd(["--config", file, "--check-config"], env: cleanEnvironment(dir))
        #expect(r.status == 0, "stdout: \(r.stdout)\nstderr: \(r.stderr)")
        // Checking creates nothing.
        #expect(!exists(dir.file("cfgdata")))
        #expect(!exists(dir.file("cfgrun")))

        // An empty file is valid too.
        let empty = try dir.write("cfg/empty.toml", "")
        let r2 = try tnotesd(["--config", empty, "--check-config"], env: cleanEnvironment(dir))
        #expect(r2.status == 0, "stderr: \(r2.stderr)")
    }

    @Test("no config file at all: the daemon starts, local-only")
    func noConfigAtAll() throws {
        let d = DaemonProcess()
        try mkdirs(d.dir.file("config"))  // XDG_CONFIG_HOME: an empty dir
        try d.start()
        let status = try d.client().call("daemon.status")
        #expect(status["sync"]?["state"]?.stringValue == "disabled")
        #expect(status["dataDir"]?.stringValue == d.dataDir)
        #expect(status["socketPath"]?.stringValue == d.socketPath)
        #expect(d.stop() == 0)
    }

    // 4
    @Test("file modes: data dir 0700, created socket dir 0700, socket 0600, database private")
    func fileModes() throws {
        let d = DaemonProcess()
        #expect(!exists(d.dataDir) && !exists(d.dir.file("run")))
        try d.start()
        try d.client().call("sermon.create", ["title": "modes"])

        #expect(permissions(d.dataDir) == 0o700, "data dir mode \(String(permissions(d.dataDir) ?? 0, radix: 8))")
        let runDir = d.dir.file("run")
        #expect(permissions(runDir) == 0o700, "socket dir mode \(String(permissions(runDir) ?? 0, radix: 8))")
        let sockMode = try #require(fileMode(d.socketPath))
        #expect(sockMode & S_IFMT == S_IFSOCK)
        #expect(sockMode & 0o777 == 0o600, "socket mode \(String(sockMode & 0o777, radix: 8))")
        let db = "\(d.dataDir)/tnotes.sqlite"
        let dbMode = try #require(permissions(db))
        #expect(dbMode & 0o077 == 0, "database mode \(String(dbMode, radix: 8))")
        for side in ["-wal", "-shm"] where exists(db + side) {
            #expect((permissions(db + side) ?? 0o777) & 0o077 == 0, "\(side) mode")
        }
        #expect(d.stop() == 0)
    }

    // 5
    @Test("a stale socket file with nothing listening is replaced")
    func staleSocketReplaced() throws {
        let d = DaemonProcess()
        try mkdirs(d.dir.file("run"))
        try makeStaleSocket(at: d.socketPath)
        #expect(fileMode(d.socketPath).map { $0 & S_IFMT == S_IFSOCK } == true)
        #expect(!SocketProbe.accepts(d.socketPath))

        try d.start()
        let status = try d.client().call("daemon.status")
        #expect(status["pid"]?.int64Value == Int64(d.pid))
        #expect(d.stop() == 0)
    }

    // 6
    @Test("a regular file at the socket path: refuses to start and leaves the file alone")
    func regularFileAtSocketPath() throws {
        let d = DaemonProcess()
        let content = "not a socket, keep me\n"
        _ = try d.dir.write("run/tnotesd.sock", content)
        try d.launch()
        let status = d.waitForExit(timeout: 30)
        #expect(status != nil && status != 0, "log:\n\(d.log)")
        if status == nil { d.kill9() }
        #expect(fileMode(d.socketPath).map { $0 & S_IFMT == S_IFREG } == true)
        #expect((try? String(contentsOfFile: d.socketPath, encoding: .utf8)) == content)
        #expect(d.log.contains(d.socketPath), "message does not name the path:\n\(d.log)")
    }

    // 7a
    @Test("a second daemon on a live socket (other data dir) exits non-zero; the first keeps serving")
    func secondDaemonSameSocket() throws {
        let first = DaemonProcess()
        try first.start()
        let c = try first.client()
        try c.call("daemon.status")

        let dir2 = TempDirectory()
        let second = try RawDaemon(arguments: ["--data-dir", dir2.file("data"), "--socket", first.socketPath],
                                   environment: cleanEnvironment(dir2), logPath: dir2.file("second.log"))
        let status = second.waitForExit(timeout: 30)
        #expect(status != nil && status != 0, "second daemon: \(status.map(String.init) ?? "still running")\n\(second.log)")
        #expect(second.log.contains(first.socketPath), "message does not mention the socket:\n\(second.log)")

        #expect(exists(first.socketPath), "the live socket was removed by the second daemon")
        let again = try first.client().call("daemon.status")
        #expect(again["pid"]?.int64Value == Int64(first.pid))
        try c.call("sermon.create", ["title": "still here"])
        #expect(first.stop() == 0)
    }

    // 7b
    @Test("a second daemon on a locked data dir (other socket) exits non-zero naming the data dir")
    func secondDaemonSameDataDir() throws {
        let first = DaemonProcess()
        try first.start()

        let dir2 = TempDirectory()
        let otherSocket = dir2.file("run/b.sock")
        let second = try RawDaemon(arguments: ["--data-dir", first.dataDir, "--socket", otherSocket],
                                   environment: cleanEnvironment(dir2), logPath: dir2.file("second.log"))
        let status = second.waitForExit(timeout: 30)
        #expect(status != nil && status != 0, "second daemon: \(status.map(String.init) ?? "still running")\n\(second.log)")
        #expect(second.log.contains(first.dataDir), "message does not mention the data dir:\n\(second.log)")
        #expect(!SocketProbe.accepts(otherSocket))

        let again = try first.client().call("daemon.status")
        #expect(again["pid"]?.int64Value == Int64(first.pid))
        #expect(first.stop() == 0)
    }

    // 8
    @Test("SIGINT stops cleanly: exit 0, socket removed")
    func sigintStops() throws {
        let d = DaemonProcess()
        try d.start()
        try d.client().call("daemon.status")
        kill(d.pid, SIGINT)
        let status = d.waitForExit(timeout: 30)
        #expect(status == 0, "log:\n\(d.log)")
        #expect(!exists(d.socketPath))
    }

    @Test("SIGTERM with an idle client connected: exit 0, the client sees the connection close")
    func sigtermWithIdleClient() throws {
        let d = DaemonProcess()
        try d.start()
        let idle = try d.client()
        try idle.call("daemon.status")
        let status = d.stop(timeout: 30)
        #expect(status == 0, "status \(status.map(String.init) ?? "still running"); log:\n\(d.log)")
        #expect(idle.isClosedByPeer(timeout: 10))
        #expect(!exists(d.socketPath))
    }

    /// Connections accepted while the socket server stops are closed by it, never dropped half made: when
    /// connections were NIO async channels, one dropped with its writer open trapped, which once turned a
    /// SIGTERM landing as a client connected into a crash (signal 4). Clients connect in a tight loop across
    /// the stop, several times.
    /// A client that sends requests without end and reads none of the answers: the daemon stops reading from
    /// it (its answers wait on the socket, not in the daemon's memory), and a SIGTERM still stops the daemon
    /// within the stop's bound (10 s), with exit 0.
    @Test("a client that floods requests and never reads: the daemon's memory stays bounded and SIGTERM exits 0")
    func nonReadingFloodIsHeldBackAndStops() throws {
        let d = DaemonProcess()
        try d.start()
        let rssBefore = Self.rssKiB(d.pid)
        let hog = try d.client()
        let line = Array((#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"# + "\n").utf8)
        let chunk = Array([[UInt8]](repeating: line, count: 50).joined())
        let sent = Mutex(0)
        let flood = Thread {
            for _ in 0..<4_000 {
                do { try hog.send(bytes: chunk) } catch { break }
                sent.withLock { $0 += 1 }
            }
        }
        flood.start()
        // Until the sends stall (the daemon has stopped reading) or all went out.
        var last = -1
        while true {
            usleep(1_000_000)
            let now = sent.withLock { $0 }
            if now == last || now == 4_000 { break }
            last = now
        }
        let answerBytes = try d.client().call("rpc.discover").text.utf8.count
        let stalledAt = sent.withLock { $0 }
        // 200,000 answers would be gigabytes; the daemon read only as far as its socket and a few frames.
        #expect(stalledAt < 4_000, "every request was read: \(stalledAt) chunks of 50, answers of \(answerBytes) bytes")
        let rssAfter = Self.rssKiB(d.pid)
        #expect(rssAfter - rssBefore < 200 * 1024, "RSS grew from \(rssBefore) to \(rssAfter) KiB")

        let t0 = Date()
        let status = d.stop(timeout: 40)
        let seconds = Date().timeIntervalSince(t0)
        shutdown(hog.fd, Int32(SHUT_RDWR))
        #expect(status == 0, "status \(status.map(String.init) ?? "still running") after \(seconds) s; log:\n\(d.log)")
        #expect(seconds < 25, "the stop took \(seconds) s")
        #expect(!exists(d.socketPath))
    }

    static func rssKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("SIGTERM while clients keep connecting: exit 0 every time")
    func sigtermDuringConnectStorm() throws {
        for round in 0..<4 {
            let d = DaemonProcess()
            try d.start()
            let path = d.socketPath
            let stop = Mutex(false)
            let connects = Mutex(0)
            let threads = (0..<4).map { _ in
                Thread {
                    while !stop.withLock({ $0 }) {
                        if SocketProbe.accepts(path) { connects.withLock { $0 += 1 } } else { usleep(200) }
                    }
                }
            }
            threads.forEach { $0.start() }
            while connects.withLock({ $0 }) < 50 { usleep(1_000) }
            let status = d.stop(timeout: 30)
            stop.withLock { $0 = true }
            usleep(50_000)
            #expect(status == 0, "round \(round): status \(status.map(String.init) ?? "still running"); log:\n\(d.log)")
            #expect(!exists(d.socketPath))
        }
    }
}
