import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Reads a RIFF/WAVE file a block at a time: integer PCM of 8, 16, 24 or 32 bits and 32/64-bit float, any
/// channel count and sample rate (mixed down and resampled to 16 kHz mono here). 16 kHz mono 16-bit, what
/// recorders for speech usually write, is passed through without conversion.
final class WAVReader: PCMSource {
    struct Format: Equatable {
        var encoding: Encoding
        var channels: Int
        var sampleRate: Int
        var bitsPerSample: Int
        var blockAlign: Int { channels * bitsPerSample / 8 }
    }
    enum Encoding { case integer, float }

    private let fd: Int32
    let format: Format
    private var remaining: Int
    let dataBytes: Int
    private let resampler: Resampler?
    private var raw: [UInt8]
    private var mixed: [Float] = []
    /// Converted samples not yet handed out.
    private var pending: [Int16] = []
    private var pendingStart = 0

    var durationSeconds: Double? { Double(dataBytes / max(1, format.blockAlign)) / Double(format.sampleRate) }

    /// nil when the file is not RIFF/WAVE (the caller tries ffmpeg); an error when it is but cannot be read.
    static func openIfWAV(path: String) throws(AudioInputError) -> WAVReader? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AudioInputError("cannot open \(path): \(String(cString: strerror(errno)))") }
        var header = [UInt8](repeating: 0, count: 12)
        guard readFully(fd, &header, 12) == 12, header[0..<4] == [0x52, 0x49, 0x46, 0x46][...],
              header[8..<12] == [0x57, 0x41, 0x56, 0x45][...]
        else {
            Glibc.close(fd)
            return nil
        }
        do {
            return try WAVReader(fd: fd, path: path)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    private init(fd: Int32, path: String) throws(AudioInputError) {
        self.fd = fd
        var format: Format?
        var dataSize = 0
        // Chunks until "data" (its bytes are then read as a stream).
        scan: while true {
            var chunk = [UInt8](repeating: 0, count: 8)
            guard Self.readFully(fd, &chunk, 8) == 8 else { throw AudioInputError("\(path): WAV file has no data chunk") }
            let id = String(decoding: chunk[0..<4], as: UTF8.self)
            let size = Int(Self.le32(chunk, 4))
            if id == "fmt " {
                guard size >= 16, size <= 4096 else { throw AudioInputError("\(path): WAV fmt chunk of \(size) bytes") }
                var body = [UInt8](repeating: 0, count: size + (size & 1))
                guard Self.readFully(fd, &body, body.count) == body.count else { throw AudioInputError("\(path): WAV header is cut off") }
                var tag = Int(Self.le16(body, 0))
                if tag == 0xFFFE, size >= 26 { tag = Int(Self.le16(body, 24)) }  // WAVE_FORMAT_EXTENSIBLE: the sub-format
                let f = Format(encoding: tag == 3 ? .float : .integer, channels: Int(Self.le16(body, 2)),
                               sampleRate: Int(Self.le32(body, 4)), bitsPerSample: Int(Self.le16(body, 14)))
                guard tag == 1 || tag == 3 else {
                    throw AudioInputError("\(path): WAV encoding \(tag) is not PCM; convert it with ffmpeg (apt-get install ffmpeg)")
                }
                guard (1...32).contains(f.channels), (1000...384_000).contains(f.sampleRate),
                      f.encoding == .integer ? [8, 16, 24, 32].contains(f.bitsPerSample) : [32, 64].contains(f.bitsPerSample)
                else {
                    throw AudioInputError("\(path): unsupported WAV format (\(f.channels) channels, \(f.sampleRate) Hz, \(f.bitsPerSample) bits)")
                }
                format = f
            } else if id == "data" {
                guard format != nil else { throw AudioInputError("\(path): WAV data comes before its fmt chunk") }
                // A streamed WAV may say 0 or 0xFFFFFFFF: then read to the end of the file.
                var st = stat()
                let fileLeft = fstat(fd, &st) == 0 ? Int(st.st_size) - Int(lseek(fd, 0, SEEK_CUR)) : Int.max
                dataSize = size == 0 || size == 0xFFFF_FFFF ? fileLeft : min(size, fileLeft)
                break scan
            } else {
                // Skip LIST, fact and the like (chunks are padded to an even size).
                guard lseek(fd, off_t(size + (size & 1)), SEEK_CUR) >= 0 else { throw AudioInputError("\(path): WAV chunk is cut off") }
            }
        }
        guard let format else { throw AudioInputError("\(path): WAV file has no fmt chunk") }
        self.format = format
        dataBytes = dataSize
        remaining = dataSize
        let direct = format == Format(encoding: .integer, channels: 1, sampleRate: AudioInput.sampleRate, bitsPerSample: 16)
        resampler = direct || self.format.sampleRate == AudioInput.sampleRate ? nil
            : Resampler(from: self.format.sampleRate, to: AudioInput.sampleRate)
        raw = [UInt8](repeating: 0, count: self.format.blockAlign * 4096)
    }

    func read(into buffer: inout [Int16]) throws(AudioInputError) -> Int {
        while pending.count - pendingStart < buffer.count && remaining > 0 {
            try fill()
        }
        let n = min(buffer.count, pending.count - pendingStart)
        for i in 0..<n { buffer[i] = pending[pendingStart + i] }
        pendingStart += n
        if pendingStart > 65536 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return n
    }

    /// Reads one block of frames and appends them, converted, to `pending`.
    private func fill() throws(AudioInputError) {
        let align = format.blockAlign
        let want = min(raw.count, remaining - remaining % align)
        guard want > 0 else { remaining = 0; return }
        let got = Self.readFully(fd, &raw, want)
        if got < 0 { throw AudioInputError("reading audio: \(String(cString: strerror(errno)))") }
        let frames = got / align
        if frames == 0 { remaining = 0; return }
        remaining -= got
        if resampler == nil && format.channels == 1 && format.bitsPerSample == 16 && format.encoding == .integer {
            for i in 0..<frames { pending.append(Int16(bitPattern: Self.le16(raw, i * 2))) }
            return
        }
        mixed.removeAll(keepingCapacity: true)
        let bytes = format.bitsPerSample / 8
        for f in 0..<frames {
            var sum: Float = 0
            for c in 0..<format.channels { sum += sample(at: f * align + c * bytes) }
            mixed.append(sum / Float(format.channels))
        }
        if let resampler {
            resampler.process(mixed[...], into: &pending)
        } else {
            for x in mixed { pending.append(Resampler.pcm16(x)) }
        }
    }

    /// One sample at a byte offset of `raw`, as a float in [-1, 1] (integer PCM) or as the file has it (float
    /// PCM: any bit pattern, NaN and infinities included, which `finite` makes silence).
    private func sample(at o: Int) -> Float {
        let x = rawSample(at: o)
        return x.isFinite ? x : 0
    }

    private func rawSample(at o: Int) -> Float {
        switch (format.encoding, format.bitsPerSample) {
        case (.integer, 8): return (Float(raw[o]) - 128) / 128
        case (.integer, 16): return Float(Int16(bitPattern: Self.le16(raw, o))) / 32768
        case (.integer, 24):
            let v = Int32(bitPattern: UInt32(raw[o]) << 8 | UInt32(raw[o + 1]) << 16 | UInt32(raw[o + 2]) << 24) >> 8
            return Float(v) / 8_388_608
        case (.integer, _): return Float(Int32(bitPattern: Self.le32(raw, o))) / 2_147_483_648
        case (.float, 32): return Float(bitPattern: Self.le32(raw, o))
        default:
            let lo = UInt64(Self.le32(raw, o)), hi = UInt64(Self.le32(raw, o + 4))
            return Float(Double(bitPattern: hi << 32 | lo))
        }
    }

    func close() { Glibc.close(fd) }

    static func le16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
    static func le32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }

    /// read(2) until `count` bytes or the end; -1 on an error.
    static func readFully(_ fd: Int32, _ buf: inout [UInt8], _ count: Int) -> Int {
        var done = 0
        while done < count {
            let range = done..<count
            guard let n = try? buf.withUnsafeMutableBytes({ p in
                try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(rebasing: p[range]))
            }) else { return -1 }
            if n == 0 { break }
            done += n
        }
        return done
    }
}
