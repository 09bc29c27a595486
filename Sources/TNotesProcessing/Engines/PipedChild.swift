import CSpawn
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// A child process whose stdout is a pipe this side reads, and whose stderr goes to an unlinked temp file
/// (read back for the error message; a pipe could fill and stall the child). Its stdin is /dev/null, or a pipe
/// this side writes (`stdinPipe`).
final class PipedChild {
    let pid: pid_t
    let stdoutFD: Int32
    /// The write end of the child's stdin, when it has one (`closeStdin` ends its input).
    private(set) var stdinFD: Int32?
    private let stderrFD: Int32
    private var exitStatus: Int32?
    private var finished: (Int32, String)?

    struct SpawnError: Error, CustomStringConvertible { let description: String }

    init(executable: String, arguments: [String], stdinPipe: Bool = false) throws {
        var pipeFDs: [Int32] = [0, 0]
        // Close-on-exec, so other children the daemon starts meanwhile do not inherit them (dup2 onto 1 and
        // 2 in the child clears the flag on those).
        guard pipe(&pipeFDs) == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        var inFDs: [Int32] = [-1, -1]
        if stdinPipe {
            guard pipe(&inFDs) == 0 else {
                Glibc.close(pipeFDs[0]); Glibc.close(pipeFDs[1])
                throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
            }
            _ = fcntl(inFDs[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(inFDs[1], F_SETFD, FD_CLOEXEC)
        }
        func closeInput() { if stdinPipe { Glibc.close(inFDs[0]); Glibc.close(inFDs[1]) } }
        var template = Array("/tmp/tnotes-child-XXXXXX".utf8CString)
        let errFD = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if errFD >= 0 { _ = fcntl(errFD, F_SETFD, FD_CLOEXEC) }
        guard errFD >= 0 else {
            Glibc.close(pipeFDs[0]); Glibc.close(pipeFDs[1]); closeInput()
            throw SpawnError(description: "temp file: \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if stdinPipe {
            posix_spawn_file_actions_adddup2(&actions, inFDs[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errFD, 2)
        // Nothing else crosses into the child. SwiftNIO opens its listening and accepted sockets without
        // close-on-exec, so a child used to hold the daemon's socket: after a kill -9, the orphaned recogniser
        // kept it accepting until it ended, so the restarted daemon refused to start ("already listening") and a
        // client's call reached the orphan's copy ("closed the connection", a CI run). Closing every other
        // descriptor here covers NIO's and any library's.
        let closing = tn_spawn_actions_closefrom(&actions, 3)
        guard closing == 0 else {
            Glibc.close(pipeFDs[0]); Glibc.close(pipeFDs[1]); Glibc.close(errFD); closeInput()
            throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(closing)))")
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, environ)
        Glibc.close(pipeFDs[1])
        if stdinPipe { Glibc.close(inFDs[0]) }
        guard rc == 0 else {
            Glibc.close(pipeFDs[0]); Glibc.close(errFD)
            if stdinPipe { Glibc.close(inFDs[1]) }
            throw SpawnError(description: "\(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = pipeFDs[0]
        stderrFD = errFD
        stdinFD = stdinPipe ? inFDs[1] : nil
    }

    /// Ends the child's input (it reads end of file).
    func closeStdin() {
        if let fd = stdinFD { Glibc.close(fd) }
        stdinFD = nil
    }

    /// read(2) from the child's stdout into `buf[offset..<offset + count]`; 0 at its end.
    func read(into buf: inout [UInt8], offset: Int, count: Int) throws -> Int {
        try buf.withUnsafeMutableBytes { p in
            try FileDescriptor(rawValue: stdoutFD).read(into: UnsafeMutableRawBufferPointer(rebasing: p[offset..<offset + count]))
        }
    }

    /// Waits for the child; its exit status (128+signal when killed) and the end of its stderr.
    func finish() -> (Int32, String) {
        if let finished { return finished }
        let status = reap()
        var text = [UInt8](repeating: 0, count: 4096)
        let size = lseek(stderrFD, 0, SEEK_END)
        _ = lseek(stderrFD, max(0, size - off_t(text.count)), SEEK_SET)
        let n = (try? text.withUnsafeMutableBytes { try FileDescriptor(rawValue: stderrFD).read(into: $0) }) ?? 0
        closeStdin()
        Glibc.close(stdoutFD)
        Glibc.close(stderrFD)
        let message = String(decoding: text[0..<max(0, n)], as: UTF8.self)
        finished = (status, message.trimmingWhitespace())
        return finished!
    }

    /// Stops the child early (a cancelled job) and reaps it.
    func terminate() {
        if exitStatus == nil { kill(pid, SIGKILL) }
        _ = finish()
    }

    private func reap() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }
}
