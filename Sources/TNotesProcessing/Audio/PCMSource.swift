#if canImport(Glibc)
import Glibc
#endif

/// Speech audio as the recogniser wants it: 16 kHz mono signed 16-bit samples, read a chunk at a time so a
/// one-hour sermon never sits in memory (the recogniser keeps only the current utterance).
public protocol PCMSource: AnyObject {
    /// Fills `buffer` from the start with up to `buffer.count` samples; returns how many (0 at the end).
    func read(into buffer: inout [Int16]) throws(AudioInputError) -> Int
    /// Length in seconds when known beforehand (for progress), nil otherwise.
    var durationSeconds: Double? { get }
    func close()
}

public struct AudioInputError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

public enum AudioInput {
    public static let sampleRate = 16_000

    /// Opens a file for decoding: WAV is read directly (any PCM or float WAV, resampled and mixed down
    /// here); anything else goes through `ffmpeg`, which must then be installed.
    /// With a `job`, ffmpeg runs at the job's priority and moves with it (`JobContext.raise`).
    public static func open(path: String, ffmpeg: String? = ExecutableSearch.find("ffmpeg"),
                            job: JobContext? = nil) throws(AudioInputError) -> any PCMSource {
        if let wav = try WAVReader.openIfWAV(path: path) { return wav }
        guard let ffmpeg else {
            throw AudioInputError("\(path) is not a WAV file, and decoding other formats needs ffmpeg (apt-get install ffmpeg)")
        }
        return try FFmpegDecoder(ffmpeg: ffmpeg, path: path, job: job)
    }
}

/// Finds an executable on PATH (as a shell would), without running a shell.
public enum ExecutableSearch {
    public static func find(_ name: String, path: String? = nil) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let dirs = (path ?? (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin")).split(separator: ":")
        for d in dirs where !d.isEmpty {
            let candidate = "\(d)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
