import Foundation

/// A process's children, from /proc (the tests and the bench look for the daemon's recognizer worker).
public enum ProcessTree {
    /// The pids of `parent`'s living children (every thread's `children` list).
    public static func children(of parent: Int32) -> [Int32] {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task") else { return [] }
        return tasks.flatMap { t in
            ((try? String(contentsOfFile: "/proc/\(parent)/task/\(t)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// The command line of `pid`, its arguments joined by spaces.
    public static func commandLine(_ pid: Int32) -> String {
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        return String(decoding: raw.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
    }

    /// The daemon's child running the recognizer worker (`tnotesd --recognizer-worker`), if one runs now.
    public static func recognizerWorker(of daemon: Int32) -> Int32? {
        children(of: daemon).first { commandLine($0).contains("--recognizer-worker") }
    }

    /// The descriptors of `pid` that are sockets ("3 → socket:[1234]"), from /proc/<pid>/fd; nil when they
    /// cannot be read (the process has gone), so that an empty list always means "none".
    public static func sockets(of pid: Int32) -> [String]? {
        let dir = "/proc/\(pid)/fd"
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: dir), !fds.isEmpty else { return nil }
        return fds.compactMap { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(dir)/\(fd)"),
                  target.hasPrefix("socket:") else { return nil }
            return "\(fd) → \(target)"
        }.sorted()
    }
}
