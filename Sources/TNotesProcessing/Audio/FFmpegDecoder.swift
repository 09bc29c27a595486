import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Any format ffmpeg reads (MP3, M4A, Opus, FLAC, video soundtracks), streamed to 16 kHz mono PCM through a
/// pipe: ffmpeg decodes as fast as the recogniser reads, so memory stays at one pipe buffer.
///
/// Hand-written on posix_spawn rather than swift-subprocess: the recogniser pulls samples synchronously on
/// its own low-priority thread, and swift-subprocess only offers async streams, which would put a bridge
/// (and the decode loop's pacing) on Swift's cooperative pool.
final class FFmpegDecoder: PCMSource {
    private let process: PipedChild
    private var bytes = [UInt8](repeating: 0, count: 8192)
    private var carry: UInt8?
    let durationSeconds: Double?
    private let job: JobContext?

    /// ffmpeg is spawned from the job's thread and so starts at its policy and nice value (a child inherits
    /// the spawning thread's); `job` also moves it when the job is raised.
    init(ffmpeg: String, path: String, job: JobContext? = nil) throws(AudioInputError) {
        durationSeconds = Self.probeDuration(ffmpeg: ffmpeg, path: path)
        self.job = job
        do {
            process = try PipedChild(executable: ffmpeg, arguments: [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-i", path, "-vn", "-f", "s16le", "-acodec", "pcm_s16le",
                "-ac", "1", "-ar", String(AudioInput.sampleRate), "-",
            ])
        } catch {
            throw AudioInputError("cannot run ffmpeg: \(error)")
        }
        job?.adopt(child: process.pid)
    }

    func read(into buffer: inout [Int16]) throws(AudioInputError) -> Int {
        let want = min(bytes.count, buffer.count * 2)
        var have = 0
        if let c = carry { bytes[0] = c; have = 1; carry = nil }
        while have < 2 {
            let n: Int
            do { n = try process.read(into: &bytes, offset: have, count: want - have) } catch {
                throw AudioInputError("reading from ffmpeg: \(error)")
            }
            if n == 0 {
                // Released before it is reaped: a pid once reaped may be given to another process.
                job?.release(child: process.pid)
                let (status, message) = process.finish()
                if status != 0 {
                    throw AudioInputError("ffmpeg could not decode the audio (exit \(status)): \(message.isEmpty ? "no message" : message)")
                }
                return 0
            }
            have += n
        }
        let samples = have / 2
        for i in 0..<samples { buffer[i] = Int16(bitPattern: UInt16(bytes[2 * i]) | UInt16(bytes[2 * i + 1]) << 8) }
        if have % 2 == 1 { carry = bytes[have - 1] }
        return samples
    }

    func close() {
        job?.release(child: process.pid)
        process.terminate()
    }

    /// The length ffprobe reports (ffprobe ships beside ffmpeg), for progress; nil when unknown.
    private static func probeDuration(ffmpeg: String, path: String) -> Double? {
        let dir = ffmpeg.contains("/") ? String(ffmpeg[..<ffmpeg.lastIndex(of: "/")!]) : ""
        guard let ffprobe = ExecutableSearch.find(dir.isEmpty ? "ffprobe" : "\(dir)/ffprobe"),
              let child = try? PipedChild(executable: ffprobe, arguments: [
                "-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", path,
              ])
        else { return nil }
        var out = [UInt8](repeating: 0, count: 256)
        var have = 0
        while have < out.count {
            guard let n = try? child.read(into: &out, offset: have, count: out.count - have), n > 0 else { break }
            have += n
        }
        _ = child.finish()
        let text = String(decoding: out[0..<have], as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
        return text.flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    }
}

/// A child process whose stdout is a pipe this side reads, and whose stderr goes to an unlinked temp file
/// (read back for the error message; a pipe could fill and stall the child).
final class PipedChild {
    let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32
    private var exitStatus: Int32?
    private var finished: (Int32, String)?

    struct SpawnError: Error, CustomStringConvertible { let description: String }

    init(executable: String, arguments: [String]) throws {
        var pipeFDs: [Int32] = [0, 0]
        // Close-on-exec, so other children the daemon starts meanwhile do not inherit them (dup2 onto 1 and
        // 2 in the child clears the flag on those).
        guard pipe(&pipeFDs) == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        var template = Array("/tmp/tnotes-child-XXXXXX".utf8CString)
        let errFD = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if errFD >= 0 { _ = fcntl(errFD, F_SETFD, FD_CLOEXEC) }
        guard errFD >= 0 else {
            Glibc.close(pipeFDs[0]); Glibc.close(pipeFDs[1])
            throw SpawnError(description: "temp file: \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errFD, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, nil, argv, environ)
        Glibc.close(pipeFDs[1])
        guard rc == 0 else {
            Glibc.close(pipeFDs[0]); Glibc.close(errFD)
            throw SpawnError(description: "\(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = pipeFDs[0]
        stderrFD = errFD
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

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
