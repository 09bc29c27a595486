import Foundation
import TNotesClient

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A real `tnotesd` process in a temp dir, as a user would run it. Its stderr goes to a log file that
/// tests can read (`log`).
/// Unchecked because: a test owns it and changes its settings (`environment`, `extraArguments`) only from
/// its own thread between runs; other threads only read `socketPath`/`pid`, which a running process fixes.
public final class DaemonProcess: @unchecked Sendable {
    public let dir: TempDirectory
    public let dataDir: String
    public let socketPath: String
    public let logPath: String
    public private(set) var process: Process?
    public var extraArguments: [String]
    public var environment: [String: String]

    /// A daemon in a new temp dir (data in `data/`, socket in `run/tnotesd.sock`), not yet started.
    public init(dir: TempDirectory = TempDirectory(), arguments: [String] = [], environment: [String: String] = [:]) {
        self.dir = dir
        self.dataDir = dir.file("data")
        self.socketPath = dir.file("run/tnotesd.sock")
        self.logPath = dir.file("tnotesd.log")
        self.extraArguments = arguments
        self.environment = environment
    }

    /// The environment the daemon runs with: the test's own, minus anything that would point it at the
    /// real user's files, plus `environment`.
    public var fullEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        for k in ["TNOTES_CONFIG", "TNOTES_DATA_DIR", "TNOTES_SOCKET", "TNOTES_TOKEN", "NOTIFY_SOCKET", "LISTEN_FDS",
                  "LISTEN_PID", "WATCHDOG_USEC", "STATE_DIRECTORY", "CREDENTIALS_DIRECTORY"] { env[k] = nil }
        env["XDG_CONFIG_HOME"] = dir.file("config")
        env["XDG_DATA_HOME"] = dir.file("xdg-data")
        env["XDG_RUNTIME_DIR"] = dir.file("xdg-run")
        // No D-Bus unless a test brings its own (DBusFixture): the machine's buses would tell a test daemon the
        // machine's battery and network, and show its notifications on the machine's desktop.
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(dir.file("no-session-bus"))"
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(dir.file("no-system-bus"))"
        for (k, v) in environment { env[k] = v }
        return env
    }

    public var arguments: [String] { ["--data-dir", dataDir, "--socket", socketPath, "--log-level", "debug"] + extraArguments }

    /// Starts the daemon and waits until its socket accepts connections.
    @discardableResult
    public func start(timeout: Double = 30) throws -> DaemonProcess {
        let p = try launch()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !p.isRunning {
                throw HarnessError("tnotesd exited with status \(p.terminationStatus) before it was ready:\n\(log)")
            }
            if SocketProbe.accepts(socketPath) { return self }
            usleep(20_000)
        }
        throw HarnessError("tnotesd did not accept connections within \(timeout) s:\n\(log)")
    }

    /// Starts the daemon without waiting (for tests of start-up failures).
    @discardableResult
    public func launch() throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Binaries.path("tnotesd"))
        p.arguments = arguments
        p.environment = fullEnvironment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)!
        log.seekToEndOfFile()
        p.standardOutput = log
        p.standardError = log
        p.standardInput = FileHandle.nullDevice
        try p.run()
        process = p
        return p
    }

    /// Waits for the process to end; nil when it is still running after `timeout`.
    public func waitForExit(timeout: Double = 30) -> Int32? {
        guard let p = process else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { return nil }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// SIGTERM, then the exit status (nil: it did not stop within `timeout`).
    @discardableResult
    public func stop(timeout: Double = 30) -> Int32? {
        guard let p = process, p.isRunning else { return process?.terminationStatus }
        kill(p.processIdentifier, SIGTERM)
        return waitForExit(timeout: timeout)
    }

    /// kill -9: no chance to clean up.
    public func kill9() {
        guard let p = process, p.isRunning else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    public var pid: Int32 { process?.processIdentifier ?? 0 }
    public var isRunning: Bool { process?.isRunning ?? false }
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    public func client() throws -> RPCClient { try RPCClient(path: socketPath) }

    /// `body`'s result; an error it throws comes back with the daemon's log (a call that found the daemon
    /// gone says little on its own).
    public func withLog<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw HarnessError("\(error)\ntnotesd's log:\n\(log)")
        }
    }

    deinit {
        if let p = process, p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
    }
}

public enum SocketProbe {
    /// True when a connect to `path` succeeds.
    public static func accepts(_ path: String) -> Bool {
        (try? RPCConnection(path: path)) != nil
    }
}
