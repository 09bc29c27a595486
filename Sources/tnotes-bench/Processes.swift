import Foundation
import TNotesClient
import TNotesTestSupport

/// Children of the benchmark: real tnotesd / tnotes-server processes in temp dirs.
final class Child {
    let process: Process
    let log: String

    init(_ executable: String, _ args: [String], env extra: [String: String] = [:], log: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        var env = ProcessInfo.processInfo.environment
        for k in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "WATCHDOG_USEC", "TNOTES_CONFIG"] { env[k] = nil }
        for (k, v) in extra { env[k] = v }
        process.environment = env
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = FileHandle(forWritingAtPath: log)!
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        self.log = log
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Resident memory in KiB (VmRSS).
    var rssKiB: Int { Self.status("VmRSS", pid: pid) }

    /// The highest resident memory the process has had (VmHWM), in KiB.
    var peakRSSKiB: Int { Self.peakRSSKiB(pid: pid) }

    static func peakRSSKiB(pid: Int32) -> Int { status("VmHWM", pid: pid) }

    /// A KiB figure of /proc/PID/status; 0 when the process is gone.
    static func status(_ key: String, pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    /// CPU time used so far, user + system, in seconds (`/proc/PID/stat` fields 14 and 15, in clock ticks).
    /// Less noisy than wall time on a shared machine: what a change saves shows here first.
    var cpuSeconds: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU time of the process and of its children it has waited for (fields 16 and 17, cutime and cstime): the
    /// daemon's and its recognizer workers', which end with each job.
    var cpuSecondsWithChildren: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14 else { return 0 }
        let ticks = fields[11...14].compactMap { Double($0) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The daemon's child running the recognizer worker, if one runs now.
    var recognizerWorker: Int32? { ProcessTree.recognizerWorker(of: pid) }

    func stop() {
        if process.isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
    }
}

enum Wait {
    static func forSocket(_ path: String, timeout: Double = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? RPCConnection(path: path)) != nil { return }
            usleep(1000)
        }
        throw BenchError("socket \(path) did not accept within \(timeout) s")
    }

    static func forLine(in file: String, containing text: String, timeout: Double = 60) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let content = try? String(contentsOfFile: file, encoding: .utf8),
               let line = content.split(separator: "\n").first(where: { $0.contains(text) }) {
                return String(line)
            }
            usleep(10_000)
        }
        throw BenchError("no '\(text)' in \(file) within \(timeout) s")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func run(_ exe: String, _ args: [String]) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw BenchError("\(exe) \(args) exited \(p.terminationStatus)") }
    return String(decoding: data, as: UTF8.self)
}
