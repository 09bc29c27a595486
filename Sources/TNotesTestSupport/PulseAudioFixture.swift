import Foundation

/// A PulseAudio server of a test's own (contract §8.2's recording tests): a private socket in a temp dir, a
/// null sink `tn` whose monitor `tn.monitor` is the default source, so speech played into the sink is what a
/// recording hears. Started with posix_spawn and reaped with waitpid (Foundation's Process would also wait
/// for whatever inherits its exit pipe); stopped by `stop()` or when released.
public final class PulseAudioFixture {
    public static let pulseaudio = "/usr/bin/pulseaudio"
    public static let paplay = "/usr/bin/paplay"
    public static let espeak = "/usr/bin/espeak-ng"
    /// Whether the tools are installed; tests that need them are skipped visibly, with this reason, when not.
    public static let available = [pulseaudio, paplay, espeak].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    public let dir: TempDirectory
    public let socket: String
    private var process: SpawnedProcess?
    /// The capture that keeps the sink's monitor live (`keepSourceLive`).
    private var keeper: SpawnedProcess?

    /// libpulse's server string for `PULSE_SERVER`.
    public var server: String { "unix:\(socket)" }

    public init() throws {
        dir = TempDirectory()
        socket = dir.file("pulse.sock")
        let arguments = [
            "-n", "--daemonize=no", "--exit-idle-time=-1", "--disable-shm=yes", "--log-target=stderr",
            "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1",
            "-L", "module-null-sink sink_name=tn",
        ]
        // Its own HOME and runtime dir: no cookie or state of the machine's user is read or written.
        process = try SpawnedProcess(Self.pulseaudio, arguments, environment: ["HOME": dir.path, "XDG_RUNTIME_DIR": dir.path, "PATH": "/usr/bin:/bin"],
                                    logFile: dir.file("pulse.log"))
        // Ready when a client gets an answer.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let r = try? ProcessRunner.run("/usr/bin/pactl", ["info"],
                                               environment: ["PULSE_SERVER": server], timeout: 5), r.status == 0 {
                try keepSourceLive()
                return
            }
            usleep(100_000)
        }
        stop()
        throw HarnessError("pulseaudio did not answer within 15 s: \((try? String(contentsOfFile: dir.file("pulse.log"), encoding: .utf8)) ?? "")")
    }

    deinit { stop() }

    /// A null sink whose monitor nobody reads renders in long blocks, and a record stream that connects waits
    /// for the current block: its first audio came 0.1 to 2.1 s late (parec, measured here), where a desktop's
    /// microphone is running already. A capture at 50 ms latency kept running for the fixture's life keeps the
    /// blocks short (every later stream: 0.15 s); a short capture waits until that holds.
    private func keepSourceLive() throws {
        let arguments = ["--raw", "--rate=16000", "--channels=1", "--format=s16le", "--latency-msec=50", "-d", "tn.monitor"]
        // Its output (the audio) goes nowhere.
        keeper = try SpawnedProcess("/usr/bin/parec", arguments,
                                    environment: ["PULSE_SERVER": server, "HOME": dir.path, "PATH": "/usr/bin:/bin"], logFile: "/dev/null")
        let r = try ProcessRunner.run("/bin/sh", ["-c", "/usr/bin/parec --raw --rate=16000 --channels=1 --format=s16le -d tn.monitor | head -c 3200 > /dev/null"],
                                      environment: ["PULSE_SERVER": server, "PATH": "/usr/bin:/bin"], timeout: 10)
        guard r.status == 0 else { throw HarnessError("parec could not capture from tn.monitor: \(r.stderr)") }
    }

    public func stop() {
        keeper?.stop()
        keeper = nil
        process?.stop()
        process = nil
    }

    /// `text` spoken by espeak-ng as a WAV file in the fixture's dir; its duration in seconds.
    public func speech(_ text: String, name: String = "speech.wav") throws -> (path: String, seconds: Double) {
        let path = dir.file(name)
        let r = try ProcessRunner.run(Self.espeak, ["-w", path, text])
        guard r.status == 0 else { throw HarnessError("espeak-ng failed: \(r.stderr)") }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        // espeak-ng writes 16-bit mono at 22,050 Hz after a 44-byte header.
        return (path, Double(max(0, size - 44)) / 44_100)
    }

    /// Plays a WAV file into the sink `tn` and returns when it has played.
    public func play(_ wav: String) throws {
        let r = try ProcessRunner.run(Self.paplay, ["--device=tn", wav], environment: ["PULSE_SERVER": server], timeout: 120)
        guard r.status == 0 else { throw HarnessError("paplay failed: \(r.stderr)") }
    }

    /// Plays in the background; the returned thread ends when the file has played.
    public func playInBackground(_ wav: String) -> Thread {
        let t = Thread { [server] in
            _ = try? ProcessRunner.run(Self.paplay, ["--device=tn", wav], environment: ["PULSE_SERVER": server], timeout: 120)
        }
        t.start()
        return t
    }
}
