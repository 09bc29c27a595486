import Foundation

/// The outcome of a process that ran to its end.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

public enum ProcessRunner {
    /// Runs a command that leaves a daemon behind (e.g. `pg_ctl start`) and waits for the command itself.
    /// posix_spawn + waitpid, with stdio on `logFile`: Foundation's Process would wait for the daemon too,
    /// since the daemon inherits what Process uses to notice the exit.
    public static func runDetached(_ executable: String, _ arguments: [String], logFile: String) throws -> Int32 {
        try SpawnedProcess(executable, arguments, environment: ProcessInfo.processInfo.environment, logFile: logFile).wait()
    }

    /// Runs `executable` to completion (killed after `timeout` seconds) and captures its output.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           stdin: String? = nil, timeout: Double = 60) throws -> ProcessResult
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        let outBox = DataBox(), errBox = DataBox()
        let group = DispatchGroup()
        for (pipe, box) in [(out, outBox), (err, errBox)] {
            group.enter()
            DispatchQueue.global().async {
                box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        group.wait()
        return ProcessResult(status: p.terminationStatus, stdout: String(decoding: outBox.data, as: UTF8.self),
                             stderr: String(decoding: errBox.data, as: UTF8.self))
    }
}

/// Unchecked because: one reader thread fills it between `group.enter()` and `group.leave()`, and the caller
/// reads it only after `group.wait()`; the group orders the two.
final class DataBox: @unchecked Sendable {
    var data = Data()
}
