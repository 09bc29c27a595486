import CPulseAudio
import Synchronization
import TNotesLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// What one recording captures, from where, into which file, and when it stops by itself.
public struct RecorderSettings: Sendable {
    public var server: SoundServer
    /// A PulseAudio source name; nil: the server's default source.
    public var source: String?
    /// The Ogg Opus file to write (created; it must not exist).
    public var path: String
    /// Tags in the file's comment header.
    public var title: String
    public var artist: String?
    /// Seconds of audio (pauses excluded) after which the recording stops by itself.
    public var maxDuration: Double
    /// Free bytes on the file's filesystem below which the recording stops by itself.
    public var minFreeBytes: Int64
    /// 16 kHz: wideband speech, what the recognisers take, and Opus's "wideband" mode needs no more.
    public var sampleRate: Int32 = 16_000

    public init(server: SoundServer, source: String?, path: String, title: String, artist: String?,
                maxDuration: Double, minFreeBytes: Int64) {
        self.server = server
        self.source = source
        self.path = path
        self.title = title
        self.artist = artist
        self.maxDuration = maxDuration
        self.minFreeBytes = minFreeBytes
    }
}

public enum RecorderState: String, Sendable {
    case recording, paused, stopped
}

/// Why a recording ended.
public enum StopReason: Sendable, Equatable, CustomStringConvertible {
    case requested
    case maxDuration(seconds: Double)
    case diskLow(freeBytes: Int64)
    /// The source went away (a microphone unplugged) or the sound server died.
    case sourceLost(String)
    case writeFailed(String)

    public var description: String {
        switch self {
        case .requested: "stopped"
        case .maxDuration(let s): "the maximum duration (\(Int(s.rounded(.down))) s) was reached"
        case .diskLow(let free): "the disk is nearly full (\(free / 1_000_000) MB free)"
        case .sourceLost(let why): "the audio source went away: \(why)"
        case .writeFailed(let why): why
        }
    }

    /// Short name for events and logs.
    public var code: String {
        switch self {
        case .requested: "requested"
        case .maxDuration: "max_duration"
        case .diskLow: "disk_low"
        case .sourceLost: "source_lost"
        case .writeFailed: "write_failed"
        }
    }
}

/// A recording as it is now.
public struct RecorderStatus: Sendable {
    public var state: RecorderState
    /// Seconds of audio written (pauses excluded): the recording's clock, which note times are taken from.
    public var elapsed: Double
    /// dBFS of the last 100 ms read (-120 for digital silence).
    public var level: Double
    /// Audio the sound server has captured and the recorder not yet read (seconds): what is heard now lies
    /// this far past `elapsed`.
    public var latency: Double = 0
    /// Bytes of the file so far.
    public var bytes: Int64
    /// Set once stopped.
    public var stopReason: StopReason?
}

/// What the capture thread reports as it goes. Called on that thread: keep it short, never block.
public enum RecorderEvent: Sendable {
    /// About ten a second while recording or paused.
    case level(dBFS: Double, elapsed: Double)
    /// 100 ms of the audio just written, and where it starts on the recording's clock (for live recognition).
    case audio(samples: [Int16], start: Double)
    case stopped(RecorderStatus)
}

/// Captures one recording: a thread of its own reads 100 ms fragments from PulseAudio (the simple API's
/// blocking read), encodes them into the Ogg Opus file, and every second makes the file durable (fdatasync)
/// and checks the limits. Pages go out at least every 500 ms of audio, so a crash loses at most about 1.5 s.
/// Paused, the thread keeps reading and drops what it reads: the stream stays open and the source's level
/// still shows, and the recording resumes with the present, not with audio the server buffered.
public final class Recorder: Sendable {
    private struct Shared {
        var status: RecorderStatus
        var pauseRequested = false
        var stopRequested = false
        var waiters: [CheckedContinuation<RecorderStatus, Never>] = []
    }

    private let shared: Mutex<Shared>
    public let settings: RecorderSettings

    private init(settings: RecorderSettings) {
        self.settings = settings
        shared = Mutex(Shared(status: RecorderStatus(state: .recording, elapsed: 0, level: -120, bytes: 0, stopReason: nil)))
    }

    /// Connects to the sound server, creates the file and starts the capture thread. Blocks (a server
    /// round trip, a file create): call it off the cooperative pool.
    public static func start(_ settings: RecorderSettings,
                             events: @escaping @Sendable (RecorderEvent) -> Void) throws -> Recorder {
        try settings.server.load()
        let fragmentSamples = Int(settings.sampleRate / 10)
        var error: Int32 = 0
        guard let capture = tn_pulse_capture_open(settings.server.address, "tnotesd", settings.source, UInt32(settings.sampleRate),
                                                  UInt32(fragmentSamples * 2), &error) else {
            let reason = String(cString: tn_pulse_strerror(error))
            // "No such entity": the server is there, the source is not.
            if let source = settings.source, error == 5 /* PA_ERR_NOENTITY */ {
                throw RecordingSourceError(source: source, reason: reason)
            }
            throw SoundServerError(server: settings.server.name, reason: reason)
        }
        let fd = open(settings.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let why = String(cString: strerror(errno))
            tn_pulse_capture_free(capture)
            throw RecordingFileError(description: "cannot create \(settings.path): \(why)")
        }
        let file: OggOpusFile
        do {
            file = try OggOpusFile(fd: fd, sampleRate: settings.sampleRate, maxPageMilliseconds: 500,
                                   title: settings.title, artist: settings.artist)
        } catch {
            tn_pulse_capture_free(capture)
            close(fd)
            unlink(settings.path)
            throw error
        }
        // The file's name in its directory is durable before any audio is: a crash finds the file.
        _ = fsync(fd)
        let directory = settings.path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let dirFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 { _ = fsync(dirFD); close(dirFD) }

        let recorder = Recorder(settings: settings)
        let loop = CaptureLoop(capture: capture, file: file, fd: fd, fragmentSamples: fragmentSamples)
        DedicatedThread.start { recorder.run(loop, events: events) }
        return recorder
    }

    public var status: RecorderStatus { shared.withLock { $0.status } }

    /// Pauses (no-op when paused); false when already stopped.
    @discardableResult
    public func pause() -> Bool { request(pause: true) }

    /// Resumes (no-op when recording); false when already stopped.
    @discardableResult
    public func resume() -> Bool { request(pause: false) }

    private func request(pause: Bool) -> Bool {
        shared.withLock { s in
            guard s.status.state != .stopped else { return false }
            s.pauseRequested = pause
            s.status.state = pause ? .paused : .recording
            return true
        }
    }

    /// Asks the thread to stop and waits until the file is complete (at most one fragment, 100 ms, later).
    public func stop() async -> RecorderStatus {
        shared.withLock { $0.stopRequested = true }
        return await finished()
    }

    /// Waits until the recording has stopped, by request or by itself.
    /// Where in the recording the sound heard now will be (`elapsed` plus what the server holds): what a note
    /// typed now is stamped with.
    public var now: Double {
        shared.withLock { s in s.status.state == .recording ? s.status.elapsed + s.status.latency : s.status.elapsed }
    }

    public func finished() async -> RecorderStatus {
        await withCheckedContinuation { c in
            let done: RecorderStatus? = shared.withLock { s in
                if s.status.state == .stopped { return s.status }
                s.waiters.append(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
    }

    // MARK: the capture thread

    private func run(_ loop: CaptureLoop, events: @Sendable (RecorderEvent) -> Void) {
        let rate = Double(settings.sampleRate)
        var samplesWritten = 0
        var buffer = [Int16](repeating: 0, count: loop.fragmentSamples)
        var lastSync = 0
        var reason = StopReason.requested
        loop: while true {
            let (paused, stop) = shared.withLock { ($0.pauseRequested, $0.stopRequested) }
            if stop { break }
            var error: Int32 = 0
            let ok = buffer.withUnsafeMutableBytes { tn_pulse_capture_read(loop.capture, $0.baseAddress, $0.count, &error) == 0 }
            guard ok else {
                reason = .sourceLost(String(cString: tn_pulse_strerror(error)))
                break
            }
            let level = Self.dBFS(buffer)
            if !paused {
                do {
                    try buffer.withUnsafeBufferPointer { b throws(RecordingFileError) in try loop.file.write(b) }
                } catch {
                    reason = .writeFailed(error.description)
                    break
                }
                events(.audio(samples: buffer, start: Double(samplesWritten) / rate))
                samplesWritten += buffer.count
            }
            let elapsed = Double(samplesWritten) / rate
            let bytes = Int64(lseek(loop.fd, 0, SEEK_CUR))
            let latency = tn_pulse_capture_latency_usec(loop.capture, &error)
            shared.withLock { s in
                s.status.elapsed = elapsed
                s.status.level = level
                s.status.bytes = max(bytes, 0)
                if latency >= 0 { s.status.latency = min(Double(latency) / 1_000_000, 10) }
            }
            events(.level(dBFS: level, elapsed: elapsed))
            // Once a second of audio: durable, and the limits.
            if samplesWritten - lastSync >= Int(rate) {
                lastSync = samplesWritten
                _ = fdatasync(loop.fd)
                if elapsed >= settings.maxDuration {
                    reason = .maxDuration(seconds: settings.maxDuration)
                    break loop
                }
                var fs = statvfs()
                if fstatvfs(loop.fd, &fs) == 0 {
                    let free = Int64(fs.f_bavail) * Int64(fs.f_frsize)
                    if free < settings.minFreeBytes {
                        reason = .diskLow(freeBytes: free)
                        break loop
                    }
                }
            }
        }
        tn_pulse_capture_free(loop.capture)
        // Whatever stopped it, what was recorded is kept: the encoder's last samples and the end page.
        var finalReason = reason
        do {
            try loop.file.finish()
        } catch {
            if reason == .requested { finalReason = .writeFailed(error.description) }
        }
        _ = fsync(loop.fd)
        let bytes = Int64(lseek(loop.fd, 0, SEEK_END))
        close(loop.fd)
        let (status, waiters) = shared.withLock { s in
            s.status.state = .stopped
            s.status.elapsed = Double(samplesWritten) / rate
            s.status.bytes = max(bytes, 0)
            s.status.stopReason = finalReason
            defer { s.waiters = [] }
            return (s.status, s.waiters)
        }
        events(.stopped(status))
        for w in waiters { w.resume(returning: status) }
    }

    /// Closes the file of a recording whose daemon died mid-recording (kill -9, power loss): cut after its
    /// last intact page, which becomes the stream's end. The bytes kept and the seconds of audio in them.
    public static func closeInterrupted(path: String) throws -> (bytes: Int64, seconds: Double) {
        try OggOpusFile.closeTruncated(path: path)
    }

    /// dBFS of the RMS of 16-bit samples; -120 for digital silence.
    static func dBFS(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return -120 }
        var sum = 0.0
        for s in samples { let d = Double(s); sum += d * d }
        let rms = (sum / Double(samples.count)).squareRoot()
        guard rms > 0 else { return -120 }
        return max(-120, min(0, 20 * log10(rms / 32768)))
    }
}

/// A source that the sound server does not have.
public struct RecordingSourceError: Error, Sendable, CustomStringConvertible {
    public let source: String
    public let reason: String
    public var description: String { "no audio source \(source): \(reason)" }
}

/// The capture thread's handles: made on the thread that starts the recording, then used by the capture
/// thread alone. Unchecked because: ownership moves once, at thread start, and never comes back.
private final class CaptureLoop: @unchecked Sendable {
    let capture: OpaquePointer
    let file: OggOpusFile
    let fd: Int32
    let fragmentSamples: Int

    init(capture: OpaquePointer, file: OggOpusFile, fd: Int32, fragmentSamples: Int) {
        self.capture = capture
        self.file = file
        self.fd = fd
        self.fragmentSamples = fragmentSamples
    }
}
