import Foundation

/// A real `tnotes-server` on loopback, in a temp dir, on a port the kernel picks (its stdout names it).
/// Unchecked because: a test owns it and drives it from its own thread; the process handle is only read
/// after `start` has set it, and Foundation's `Process` is itself thread-safe for `isRunning`/terminate.
public final class ServerProcess: @unchecked Sendable {
    public let dir: TempDirectory
    public let dataDir: String
    public let database: String
    public let logPath: String
    public private(set) var process: Process?
    public private(set) var port: Int = 0
    public var extraArguments: [String] = []

    /// A server with the embedded SQLite backend (`database` nil) or the given database URL.
    public init(database: String? = nil, dir: TempDirectory = TempDirectory("tns")) {
        self.dir = dir
        self.dataDir = dir.file("data")
        self.database = database ?? "sqlite://\(dir.file("data"))/tnotes-server.sqlite"
        self.logPath = dir.file("server.log")
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var storageArguments: [String] { ["--data-dir", dataDir, "--database", database] }

    /// Adds a user through the CLI (`user add --token`), returning the device token printed on the last line.
    public func addUser(_ name: String) throws -> String {
        let r = try ProcessRunner.run(Binaries.path("tnotes-server"), ["user", "add", "--token"] + storageArguments + [name])
        guard r.status == 0, let token = r.stdout.split(separator: "\n").last.map(String.init), !token.isEmpty else {
            throw HarnessError("user add \(name) failed (\(r.status)): \(r.stderr)")
        }
        return token
    }

    /// Starts the server (on `port`, or a free one) and waits until it listens.
    @discardableResult
    public func start(port requested: Int = 0, timeout: Double = 60) throws -> ServerProcess {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Binaries.path("tnotes-server"))
        // No rate limit unless a test asks for one: tests drive many devices and loops from one address and token.
        let rate = extraArguments.contains("--rate-limit") ? [] : ["--rate-limit", "0"]
        p.arguments = ["serve"] + storageArguments + ["--host", "127.0.0.1", "--port", String(requested)] + rate + extraArguments
        let out = Pipe()
        p.standardOutput = out
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)!
        log.seekToEndOfFile()
        p.standardError = log
        p.standardInput = FileHandle.nullDevice
        try p.run()
        process = p
        let reader = LineReader(out.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = reader.nextLine(timeout: 0.2) {
                if let r = line.range(of: "127.0.0.1:") {
                    let digits = line[r.upperBound...].prefix { $0.isNumber }
                    port = Int(digits) ?? 0
                    if port > 0 {
                        reader.drainInBackground()
                        return self
                    }
                }
            }
            if !p.isRunning { throw HarnessError("tnotes-server exited (\(p.terminationStatus)):\n\(self.log)") }
        }
        throw HarnessError("tnotes-server did not start within \(timeout) s:\n\(self.log)")
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    public var isRunning: Bool { process?.isRunning ?? false }

    @discardableResult
    public func stop(timeout: Double = 30) -> Int32? {
        guard let p = process else { return nil }
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { return nil }
        return p.terminationStatus
    }

    public func kill9() {
        guard let p = process, p.isRunning else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    deinit {
        if let p = process, p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
    }
}

/// Reads lines from a pipe with a timeout, then keeps draining it so the child never blocks on a full pipe.
/// Unchecked because: `buffer` is touched only by `nextLine` and the drain, which the owning ServerProcess
/// runs one after the other (the drain starts only after the last `nextLine`).
final class LineReader: @unchecked Sendable {
    let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func nextLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            var pfd = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32(left * 1000) + 1) > 0 {
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }
    }

    func drainInBackground() {
        let h = handle
        Thread.detachNewThread { while !h.availableData.isEmpty {} }
    }
}
