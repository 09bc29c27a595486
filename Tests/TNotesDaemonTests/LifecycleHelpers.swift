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

// Helpers of the lifecycle tests (LifecycleTests, DataLocationTests).

/// A `tnotesd` started with exactly the given arguments and environment (no implicit flags), for tests
/// of path resolution. Output goes to a file; killed when the value goes away.
final class RawDaemon: @unchecked Sendable {
    let process = Process()
    let logPath: String

    init(arguments: [String], environment: [String: String], logPath: String) throws {
        self.logPath = logPath
        process.executableURL = URL(fileURLWithPath: Binaries.path("tnotesd"))
        process.arguments = arguments
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)!
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Waits until `socket` accepts connections; throws when the process exits first or time runs out.
    func waitUntilReady(socket: String, timeout: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !process.isRunning {
                throw HarnessError("tnotesd exited with status \(process.terminationStatus) before it was ready:\n\(log)")
            }
            if SocketProbe.accepts(socket) { return }
            usleep(20_000)
        }
        throw HarnessError("tnotesd did not accept connections on \(socket) within \(timeout) s:\n\(log)")
    }

    /// The exit status, or nil when it still runs after `timeout`.
    func waitForExit(timeout: Double = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func stop(timeout: Double = 30) -> Int32? {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        return waitForExit(timeout: timeout)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// The sanitized environment DaemonProcess would use for `dir` (no real user's files), plus `extra`.
func cleanEnvironment(_ dir: TempDirectory, _ extra: [String: String] = [:]) -> [String: String] {
    var env = DaemonProcess(dir: dir).fullEnvironment
    for (k, v) in extra { env[k] = v }
    return env
}

func tnotesd(_ args: [String], env: [String: String], timeout: Double = 60) throws -> ProcessResult {
    try ProcessRunner.run(Binaries.path("tnotesd"), args, environment: env, timeout: timeout)
}

/// Non-empty lines of a text.
func lines(_ s: String) -> [Substring] {
    s.split(separator: "\n", omittingEmptySubsequences: true).filter { !$0.allSatisfy(\.isWhitespace) }
}

func fileMode(_ path: String) -> mode_t? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return st.st_mode
}

func permissions(_ path: String) -> mode_t? { fileMode(path).map { $0 & 0o777 } }

func exists(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0
}

func mkdirs(_ path: String, mode: Int = 0o700) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: mode])
}

/// Leaves a Unix socket file at `path` with nothing listening: bind, then close without unlinking.
func makeStaleSocket(at path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
    defer { close(fd) }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw HarnessError("path too long") }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard rc == 0 else { throw HarnessError("bind \(path): errno \(errno)") }
}

func randomFileBytes(_ n: Int) -> Data {
    var g = SystemRandomNumberGenerator()
    return Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &g) })
}

/// A sermon with notes and a transcript; returns its id.
func makeSermon(_ c: RPCClient, notes: Int = 3, noteText: String = "note") throws -> String {
    let sermon = try c.call("sermon.create", ["title": "Grace upon grace", "speaker": "A. Preacher",
                                               "date": "2025-11-06T10:00:00.000Z"])
    let id = try #require(sermon["id"]?.stringValue)
    for i in 0..<notes {
        try c.call("note.add", ["sermonId": .string(id), "text": .string("\(noteText) \(i)"),
                                "timestamp": .double(Double(i) * 1.5 + 0.25)])
    }
    try c.call("transcript.set", ["sermonId": .string(id), "text": "In the beginning was the Word.",
                                  "segments": [["start": 0.0, "end": 4.5, "text": "In the beginning was the Word."]]])
    return id
}
