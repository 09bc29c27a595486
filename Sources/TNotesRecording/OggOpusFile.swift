import COggOpus

/// An encoding or file failure of the recording.
public struct RecordingFileError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// An interrupted recording's file is missing or holds no intact page: nothing of it can be recovered,
    /// now or later (a daemon killed before its first page reached the disk).
    public var nothingRecorded = false
}

/// Mono speech as Ogg Opus into an open file (libopusenc, COggOpus.h says why), pages at most
/// `maxPageMilliseconds` of audio apart. Used by one thread at a time (the recorder's).
final class OggOpusFile {
    private let writer: OpaquePointer

    /// 24 kbit/s, as contract §8.2 asks: wideband (16 kHz) mono speech is clear at this rate, and an hour
    /// takes about 11 MB to store and to sync.
    static let bitrate: Int32 = 24_000

    init(fd: Int32, sampleRate: Int32, maxPageMilliseconds: Int32, title: String, artist: String?) throws(RecordingFileError) {
        guard tn_oggopus_load() == 1 else {
            throw RecordingFileError(description: "libopusenc is not installed (\(String(cString: tn_oggopus_load_error())))")
        }
        var error: Int32 = 0
        guard let w = tn_opus_writer_open(fd, sampleRate, Self.bitrate, maxPageMilliseconds, title, artist, &error) else {
            throw RecordingFileError(description: "cannot start the Opus encoder: \(String(cString: tn_opus_strerror(error)))")
        }
        writer = w
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws(RecordingFileError) {
        let rc = tn_opus_writer_write(writer, samples.baseAddress, Int32(samples.count))
        guard rc == 0 else { throw RecordingFileError(description: "cannot write the recording: \(String(cString: tn_opus_strerror(rc)))") }
    }

    /// The last samples and the end-of-stream page.
    func finish() throws(RecordingFileError) {
        let rc = tn_opus_writer_finish(writer)
        guard rc == 0 else { throw RecordingFileError(description: "cannot finish the recording: \(String(cString: tn_opus_strerror(rc)))") }
    }

    deinit { tn_opus_writer_free(writer) }

    /// Closes a file whose recorder died (kill -9, power loss): cut after its last intact page, which becomes
    /// the stream's last. Returns the bytes kept and the audio's duration in seconds (Opus granule positions
    /// count 48 kHz samples; the header's pre-skip, 312 at most here, is under 7 ms and ignored).
    static func closeTruncated(path: String) throws(RecordingFileError) -> (bytes: Int64, seconds: Double) {
        guard tn_oggopus_load() == 1 else {
            throw RecordingFileError(description: "libogg is not installed (\(String(cString: tn_oggopus_load_error())))")
        }
        var kept: Int64 = 0, granule: Int64 = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = tn_ogg_close_truncated(path, &kept, &granule, &message, message.count)
        guard rc == 0 else {
            throw RecordingFileError(description: text(message), nothingRecorded: rc == -2 || rc == -3)
        }
        return (kept, granule > 0 ? Double(granule) / 48_000 : 0)
    }
}
