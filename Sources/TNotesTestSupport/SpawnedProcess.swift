import Foundation

/// A background process a fixture starts and stops itself (a sound server, a bus, a mock service): posix_spawn
/// with stdio on a log file, reaped with waitpid. Foundation's Process is not used because it waits for whatever
/// inherits its exit pipe (a daemon's own children).
public final class SpawnedProcess: @unchecked Sendable {
    public private(set) var pid: pid_t = 0
    public let logFile: String

    /// Starts `executable` with `arguments` and exactly `environment`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], logFile: String) throws {
        self.logFile = logFile
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        // The test runner's signal mask and ignored signals would be inherited: a child that has SIGTERM blocked
        // only stops at the SIGKILL, 5 s later. It starts with none blocked and the default actions.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
        guard rc == 0 else { throw HarnessError("posix_spawn \(executable): \(rc)") }
    }

    public var isRunning: Bool {
        guard pid > 0 else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            pid = 0
            return false
        }
        return true
    }

    /// The log's text so far.
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// Waits for it to end; its exit status (128 + the signal when a signal ended it).
    public func wait() -> Int32 {
        guard pid > 0 else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = 0
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// SIGTERM, then SIGKILL after 5 s; waits until it is gone.
    public func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<500 {
            if waitpid(pid, &status, WNOHANG) != 0 { pid = 0; return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        pid = 0
    }

    deinit { stop() }
}
