import Foundation
import TNotesCore
import TNotesTestSupport

/// A real `tnotesd` in a temp dir and the real `tnotes` binary pointed at it with `--socket`.
final class CLIRig: @unchecked Sendable {
    let daemon: DaemonProcess
    let rpc: RPCClient

    init(daemon: DaemonProcess = DaemonProcess()) throws {
        self.daemon = daemon
        try daemon.start()
        rpc = try daemon.client()
    }

    var socket: String { daemon.socketPath }

    /// `tnotes --socket SOCK args…` (the global flag before the command, as users type it).
    func run(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> ProcessResult {
        try CLI.run(["--socket", socket] + args, stdin: stdin, env: env)
    }

    /// `tnotes … --json` must succeed; its stdout parsed. `--json` goes after the command here, to show
    /// that the global flags work in either place.
    func json(_ args: [String], stdin: String? = nil) throws -> JSON {
        let r = try run(args + ["--json"], stdin: stdin)
        guard r.status == 0 else { throw HarnessError("tnotes \(args) exited \(r.status): \(r.stderr)") }
        guard r.stdout.hasSuffix("\n"), r.stdout.dropLast().firstIndex(of: "\n") == nil else {
            throw HarnessError("--json output is not one line: \(r.stdout)")
        }
        return try JSON.parse(r.stdout)
    }

    /// A sermon made through the socket, for tests of other commands.
    func makeSermon(_ title: String = "Test sermon") throws -> String {
        let s = try rpc.call("sermon.create", ["title": .string(title), "date": "2025-11-09"])
        return s["id"]!.stringValue!
    }

    deinit { daemon.stop() }
}

enum CLI {
    static var path: String { Binaries.path("tnotes") }

    /// The CLI's environment: the test's, minus anything pointing at a real user's daemon, colours off.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for k in ["TNOTES_SOCKET", "TNOTES_CONFIG", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"] { env[k] = nil }
        env["NO_COLOR"] = "1"
        for (k, v) in extra { env[k] = v }
        return env
    }

    static func run(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run(path, args, environment: environment(env), stdin: stdin, timeout: 60)
    }
}

extension JSON {
    /// The object without `keys` (for comparing results that hold volatile fields).
    func removing(_ keys: String...) -> JSON {
        guard case .object(var o) = self else { return self }
        for k in keys { o[k] = nil }
        return .object(o)
    }
}

/// A `tnotes` process left running (for `watch`), its output collected as it comes.
final class RunningCLI: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    init(_ args: [String], env: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: CLI.path)
        process.arguments = args
        process.environment = CLI.environment(env)
        let o = Pipe(), e = Pipe()
        process.standardOutput = o
        process.standardError = e
        process.standardInput = FileHandle.nullDevice
        o.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock(); self.out.append(d); self.lock.unlock()
        }
        e.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock(); self.err.append(d); self.lock.unlock()
        }
        try process.run()
    }

    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Sends `signal` and waits for the exit status.
    func stop(signal: Int32 = SIGINT, timeout: Double = 10) -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Replaces the volatile parts of human output: the given ids by names, any other UUID by `<UUID>`,
/// and clock times (`2025-11-22 20:42:15 UTC`) by `<TIME>`.
func normalized(_ text: String, ids: [(String, String)]) throws -> String {
    var s = text
    for (id, name) in ids { s = s.replacingOccurrences(of: id, with: name) }
    s = s.replacing(try Regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), with: "<UUID>")
    s = s.replacing(try Regex("[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC"), with: "<TIME>")
    return s
}
