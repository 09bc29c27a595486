import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of one recognizer worker (`RecognizerWorker`): audio goes to its stdin, timed segments
/// come back on its stdout. Used from one thread (a job's, or a recording's recognition thread), which it
/// blocks while it waits; both pipes are non-blocking and served by one poll(2) loop, so neither side can
/// wait on the other with a full pipe.
///
/// A worker that stops making progress is killed (`Stalled`): no audio taken and no segment given for
/// `stallSeconds`, while it either sleeps or is stopped (a deadlock, SIGSTOP) or spends `stallSeconds` of CPU
/// (a loop). A worker that is only waiting for the CPU (a SCHED_IDLE job on a busy machine) is runnable and
/// spends nothing, so it is left to wait.
final class RecognizerProcess {
    private let child: PipedChild
    private let stallSeconds: Double
    private let isCancelled: () -> Bool
    private var pendingLine: [UInt8] = []
    private var outputEnded = false
    private var segments: [TimedSegment] = []
    /// The worker's first line: engine, version, model.
    private(set) var identity: (engine: String, version: String, model: String)?
    private var lastProgress = RecognizerProcess.now()
    private var cpuAtProgress = 0.0

    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// The installation is missing or damaged: trying again cannot help.
        let damaged: Bool
    }

    var pid: pid_t { child.pid }

    /// Starts `executable` (the daemon's own) as the worker `spec` says.
    init(executable: String, spec: WorkerSpec, stallSeconds: Double, isCancelled: @escaping () -> Bool = { false }) throws {
        guard !executable.isEmpty else { throw Failure(description: "no recognizer executable", damaged: true) }
        child = try PipedChild(executable: executable, arguments: spec.arguments, stdinPipe: true)
        self.stallSeconds = stallSeconds
        self.isCancelled = isCancelled
        if let fd = child.stdinFD { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        _ = fcntl(child.stdoutFD, F_SETFL, fcntl(child.stdoutFD, F_GETFL) | O_NONBLOCK)
    }

    deinit { child.terminate() }

    /// Sends samples; the segments that came back meanwhile.
    func feed(_ samples: ArraySlice<Int16>) throws -> [TimedSegment] {
        var bytes = [UInt8](repeating: 0, count: samples.count * 2)
        var i = 0
        for s in samples {
            let u = UInt16(bitPattern: s)
            bytes[i] = UInt8(u & 0xff); bytes[i + 1] = UInt8(u >> 8)
            i += 2
        }
        try pump(bytes)
        return takeSegments()
    }

    /// The end of the audio: waits for the last segments and for the worker to exit.
    func finish() throws -> [TimedSegment] {
        child.closeStdin()
        try pump([])
        let (status, message) = child.finish()
        guard status == 0 else { throw failure(status: status, message: message) }
        return takeSegments()
    }

    /// Stops the worker now (cancellation); nothing more is read.
    func kill() { child.terminate() }

    private func takeSegments() -> [TimedSegment] {
        defer { segments.removeAll() }
        return segments
    }

    /// Writes `bytes` (all of them), reading what the worker says meanwhile; with no bytes, reads to the end
    /// of its output.
    private func pump(_ bytes: [UInt8]) throws {
        var offset = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        // The stall clock starts when something is asked of the worker: between two calls it waits for us.
        progressed()
        while bytes.isEmpty ? !outputEnded : offset < bytes.count {
            if isCancelled() { child.terminate(); throw JobInterrupted() }
            var fds = [pollfd(fd: child.stdoutFD, events: Int16(POLLIN), revents: 0)]
            if offset < bytes.count, let input = child.stdinFD { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), 250)
            if ready < 0 && errno != EINTR { throw Failure(description: "poll: \(String(cString: strerror(errno)))", damaged: false) }
            if ready > 0 {
                if fds[0].revents != 0 {
                    let n = buffer.withUnsafeMutableBytes { read(child.stdoutFD, $0.baseAddress, $0.count) }
                    if n > 0 {
                        try take(buffer[0..<n])
                        progressed()
                    } else if n == 0 {
                        outputEnded = true
                        // The worker closed its output before its input ended: it died.
                        if !bytes.isEmpty { return try died() }
                    }
                }
                if fds.count > 1, fds[1].revents != 0, let input = child.stdinFD {
                    let n = bytes.withUnsafeBytes { write(input, $0.baseAddress! + offset, $0.count - offset) }
                    if n > 0 {
                        offset += n
                        progressed()
                    } else if n < 0 && errno != EAGAIN && errno != EINTR {
                        return try died()  // EPIPE: the worker is gone
                    }
                }
            }
            try checkStall()
        }
    }

    private func died() throws {
        let (status, message) = child.finish()
        throw failure(status: status, message: message)
    }

    private func failure(status: Int32, message: String) -> Failure {
        let detail = message.isEmpty ? "" : ": " + String(message.suffix(2000))
        if status == RecognizerWorker.damagedExitCode { return Failure(description: String(detail.dropFirst(2)), damaged: true) }
        let how = status > 128 ? "was killed by signal \(status - 128)" : "exited with status \(status)"
        return Failure(description: "the recognizer \(how)\(detail)", damaged: false)
    }

    /// Complete lines become segments (or the identity line); a partial line waits for the rest.
    private func take(_ chunk: ArraySlice<UInt8>) throws {
        pendingLine += chunk
        while let newline = pendingLine.firstIndex(of: 0x0A) {
            let line = String(decoding: pendingLine[..<newline], as: UTF8.self)
            pendingLine.removeSubrange(...newline)
            guard case .object(let o)? = try? JSON.parse(line) else {
                throw Failure(description: "the recognizer printed something that is not a JSON line: \(line.prefix(200))", damaged: false)
            }
            if identity == nil, let engine = o["engine"]?.stringValue {
                identity = (engine, o["version"]?.stringValue ?? "", o["model"]?.stringValue ?? "")
            } else if let start = o["start"]?.doubleValue, let end = o["end"]?.doubleValue, let text = o["text"]?.stringValue,
                      start.isFinite, end.isFinite, start >= 0, end >= start
            {
                segments.append(TimedSegment(start: start, end: end, text: text))
            } else {
                throw Failure(description: "the recognizer printed an unexpected line: \(line.prefix(200))", damaged: false)
            }
        }
    }

    private func progressed() {
        lastProgress = Self.now()
        cpuAtProgress = Self.cpuSeconds(of: child.pid) ?? cpuAtProgress
    }

    struct Stalled: Error, CustomStringConvertible {
        let seconds: Double
        var description: String { "the recognizer made no progress for \(CommandRunner.seconds(seconds)) and was killed" }
    }

    private func checkStall() throws {
        guard Self.now() - lastProgress >= stallSeconds else { return }
        let cpu = Self.cpuSeconds(of: child.pid)
        // A thread runnable (R) or in uninterruptible I/O (D) without spending CPU: waiting for the machine, not
        // hung. Every thread counts: ONNX Runtime computes on threads of its own while the main one sleeps.
        let spinning = (cpu ?? 0) - cpuAtProgress >= stallSeconds
        let waiting = Self.threadStates(of: child.pid).contains { $0 == "R" || $0 == "D" }
        if spinning || !waiting {
            child.terminate()
            throw Stalled(seconds: stallSeconds)
        }
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func cpuSeconds(of pid: pid_t) -> Double? { state(of: pid).cpu }

    /// The state letter of each of the process's threads.
    static func threadStates(of pid: pid_t) -> [Character] {
        guard let dir = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(dir) }
        var states: [Character] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard let tid = pid_t(name) else { continue }
            if let s = state(of: pid, task: tid).state { states.append(s) }
        }
        return states
    }

    /// The process's state letter and its CPU seconds (user + system, all threads), from /proc/PID/stat.
    static func state(of pid: pid_t, task: pid_t? = nil) -> (state: Character?, cpu: Double?) {
        let path = task.map { "/proc/\(pid)/task/\($0)/stat" } ?? "/proc/\(pid)/stat"
        guard let bytes = RecognizerInstallation.readAll(path) else { return (nil, nil) }
        let text = String(decoding: bytes, as: UTF8.self)
        // The command name in parentheses may hold spaces: the fields start after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return (nil, nil) }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3); utime and stime are fields 14 and 15.
        guard fields.count > 12, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return (fields.first?.first, nil) }
        return (fields[0].first, (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }
}
