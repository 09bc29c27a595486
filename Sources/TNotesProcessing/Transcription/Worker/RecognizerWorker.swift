import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// The recognizer's worker process (`tnotesd --recognizer-worker DIR --recognizer-engine E [--recognizer-live]`,
/// `WorkerSpec`): what `RecognizerProcess` starts for a transcription or a live recording, for either engine.
///
/// Why a process of its own: sherpa-onnx holds about 700 MB while it recognises, and PocketSphinx left about
/// 380 MB in the daemon's heap after a job when it ran there; neither may stay in the daemon's resident set
/// once a job is done (freed memory stays in the allocator's arenas; an exited process gives all of it back).
/// A damaged model or an ONNX Runtime fault ends the process it is in, which must not be the daemon. And a
/// recognizer that hangs can be killed.
///
/// Protocol: standard input is the audio, 16 kHz mono signed 16-bit little-endian, to its end. Standard output
/// is JSON lines: first `{"engine", "version", "model"}` once the models are loaded, then one
/// `{"start", "end", "text"}` for each stretch of speech, as soon as the pause after it is heard. Errors go to
/// standard error; exit 0 when all the audio was recognised, 2 when the installation is missing or damaged, 1
/// otherwise.
public enum RecognizerWorker {
    public static let damagedExitCode: Int32 = 2

    public static func run(_ spec: WorkerSpec) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let recognizer: any StreamingRecognizer
        switch spec.engine {
        case .sherpaOnnx:
            guard let installation = RecognizerInstallation.find(in: spec.directory) else {
                return fail("no recognizer is installed in \(spec.directory) (install it: tnotes models install)", code: damagedExitCode)
            }
            do { try installation.verify() } catch { return fail(error.description, code: damagedExitCode) }
            do { recognizer = try MoonshineRecognizer(installation: installation, live: spec.live) } catch {
                return fail(error.description, code: damagedExitCode)
            }
            guard emit(["engine": .string(RecognizerInstallation.engineName), "version": .string(MoonshineRecognizer.libraryVersion),
                        "model": .string(RecognizerInstallation.modelName)])
            else { return 1 }
        case .pocketsphinx:
            do { recognizer = try PocketSphinxRecognizer(modelDirectory: spec.directory, live: spec.live) } catch {
                return fail("\(error)", code: damagedExitCode)
            }
            guard emit(["engine": .string(PocketSphinxEngine.name), "version": "5prealpha", "model": .string(spec.directory)]) else { return 1 }
        }
        var bytes = [UInt8](repeating: 0, count: 16_000)  // half a second
        var samples = [Int16](repeating: 0, count: bytes.count / 2)
        var carry: UInt8?
        while true {
            var have = 0
            if let c = carry { bytes[0] = c; have = 1; carry = nil }
            let n = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress! + have, $0.count - have) }
            if n < 0 {
                if errno == EINTR { continue }
                return fail("reading the audio: \(String(cString: strerror(errno)))", code: 1)
            }
            if n == 0 { break }
            have += n
            let count = have / 2
            for i in 0..<count { samples[i] = Int16(bitPattern: UInt16(bytes[2 * i]) | UInt16(bytes[2 * i + 1]) << 8) }
            if have % 2 == 1 { carry = bytes[have - 1] }
            let segments = samples.withUnsafeBufferPointer { recognizer.feed(UnsafeBufferPointer(rebasing: $0[0..<count])) }
            for s in segments where !emit(segment: s) { return 1 }
        }
        for s in recognizer.finish() where !emit(segment: s) { return 1 }
        return 0
    }

    private static func emit(segment s: TimedSegment) -> Bool {
        emit(["start": .double(s.start), "end": .double(s.end), "text": .string(s.text)])
    }

    /// One line, written whole (a reader never sees half a segment of a worker still running).
    private static func emit(_ object: JSONObject) -> Bool {
        let line = Array((JSON.object(object).text + "\n").utf8)
        var offset = 0
        while offset < line.count {
            let n = line.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue } else { return false } }
            offset += n
        }
        return true
    }

    private static func fail(_ message: String, code: Int32) -> Int32 {
        let line = Array("tnotesd recognizer: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        return code
    }
}
