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

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
