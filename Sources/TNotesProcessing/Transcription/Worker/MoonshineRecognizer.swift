import CSherpaOnnx

#if canImport(Glibc)
import Glibc
#endif

/// Moonshine through sherpa-onnx, on speech the Silero VAD cut at pauses: 16 kHz samples in, in order, and a
/// timed segment out for each stretch of speech once the pause after it is heard.
///
/// Runs only in the recognizer's worker process (`RecognizerWorker`): it holds about 700 MB while it lives, and
/// a damaged model ends the process it is in.
///
/// Segment times come from the VAD (Moonshine gives none): the first sample of a stretch of speech, which the VAD
/// places about 0.3 s before the speech is loud enough to count (its pre-roll), to its last sample, which is
/// `minimumSilence` after the last speech window. Not thread-safe: one thread feeds it.
final class MoonshineRecognizer {
    static let sampleRate = 16_000
    /// Speech longer than this is cut even without a pause. Moonshine's memory and time grow faster than the
    /// length of what it is given (one unsplit 62 s passage took 23.8 GB), and its decoder stops at about 15
    /// tokens a second of audio; 15 s keeps a chunk to what the model was trained on.
    static let longestChunkSeconds = 15.0
    /// While recording, segments should show a few seconds after their words: shorter pauses end them, and
    /// none is longer than 8 s. The transcription after the recording hears it again with the settings above.
    static let liveLongestChunkSeconds = 8.0
    static let liveMinimumSilence: Float = 0.25
    /// Silero settings: sherpa-onnx's own example values for Moonshine. `maxSpeech` is the VAD's soft limit:
    /// past it the VAD takes shorter pauses as ends (our hard cut is `longestChunkSeconds`).
    static let threshold: Float = 0.3
    static let minimumSilence: Float = 0.4
    static let minimumSpeech: Float = 0.25
    static let softMaximumSpeech: Float = 10

    private let recognizer: OpaquePointer
    private let vad: OpaquePointer
    /// Samples fed since the VAD last was inside speech (to time the hard cut).
    private var speechRun = 0
    private var pending: [Float] = []
    private let longestChunk: Double
    private let live: Bool

    struct LoadError: Error, CustomStringConvertible { let description: String }

    /// Loads the library and both models (under a second). `installation` must be verified first.
    init(installation: RecognizerInstallation, live: Bool = false) throws(LoadError) {
        guard tn_sherpa_load(installation.library) != 0 else {
            throw LoadError(description: "cannot load \(installation.library): \(tn_sherpa_load_error().map { String(cString: $0) } ?? "unknown error")")
        }
        guard let r = tn_sherpa_recognizer_create(installation.encoder, installation.decoder, installation.tokens, 1) else {
            throw LoadError(description: "sherpa-onnx refused the Moonshine model in \(installation.directory)")
        }
        guard let v = tn_sherpa_vad_create(installation.voiceActivityModel, Self.threshold, live ? Self.liveMinimumSilence : Self.minimumSilence,
                                           Self.minimumSpeech, Self.softMaximumSpeech)
        else {
            tn_sherpa_recognizer_free(r)
            throw LoadError(description: "sherpa-onnx refused the Silero VAD model \(installation.voiceActivityModel)")
        }
        recognizer = r
        vad = v
        longestChunk = live ? Self.liveLongestChunkSeconds : Self.longestChunkSeconds
        self.live = live
    }

    deinit {
        tn_sherpa_vad_free(vad)
        tn_sherpa_recognizer_free(recognizer)
    }

    static var libraryVersion: String { tn_sherpa_version().map { String(cString: $0) } ?? "?" }

    /// The next samples; the segments of the stretches of speech they ended.
    func feed(_ samples: UnsafeBufferPointer<Int16>) -> [TimedSegment] {
        pending.removeAll(keepingCapacity: true)
        pending.reserveCapacity(samples.count)
        for s in samples { pending.append(Float(s) / 32768) }
        var out: [TimedSegment] = []
        // Fed a window at a time, so that a long stretch of speech is cut within one window of the limit.
        let window = 512
        var i = 0
        while i < pending.count {
            let n = min(window, pending.count - i)
            pending.withUnsafeBufferPointer { tn_sherpa_vad_accept(vad, $0.baseAddress! + i, Int32(n)) }
            i += n
            if tn_sherpa_vad_detected(vad) != 0 {
                speechRun += n
                if Double(speechRun) >= longestChunk * Double(Self.sampleRate) {
                    tn_sherpa_vad_flush(vad)
                    speechRun = 0
                }
            } else {
                speechRun = 0
            }
            out += drain()
        }
        return out
    }

    /// The end of the audio: the last stretch's segment.
    func finish() -> [TimedSegment] {
        tn_sherpa_vad_flush(vad)
        speechRun = 0
        return drain() + flushHeld()
    }

    /// Stretches of speech waiting to be recognised together (a file's transcription): Moonshine given one short
    /// sentence at a time misheard more of its words than given a few sentences at once, with the pauses between
    /// them, as the speaker said them (measured on our espeak-ng passages: 13.0 % and 6.8 % of words wrong one
    /// sentence at a time).
    private var held: (start: Int64, end: Int64, samples: [Float])?
    private var mergeLimit: Int { live ? 0 : Int(Self.longestChunkSeconds * Double(Self.sampleRate)) }

    private func drain() -> [TimedSegment] {
        var out: [TimedSegment] = []
        var start: Int64 = 0
        var samples: UnsafeMutablePointer<Float>?
        var count: Int32 = 0
        while tn_sherpa_vad_pop(vad, &start, &samples, &count) != 0 {
            defer { free(samples) }
            guard let samples, count > 0 else { continue }
            let end = start + Int64(count)
            if var h = held, end - h.start <= mergeLimit {
                // The pause between them, as silence, at most a second (the VAD keeps only speech).
                h.samples += [Float](repeating: 0, count: Int(min(start - h.end, Int64(Self.sampleRate))))
                h.samples += UnsafeBufferPointer(start: samples, count: Int(count))
                h.end = end
                held = h
                continue
            }
            out += flushHeld()
            held = (start, end, Array(UnsafeBufferPointer(start: samples, count: Int(count))))
            if live { out += flushHeld() }
        }
        return out
    }

    private func flushHeld() -> [TimedSegment] {
        guard let h = held else { return [] }
        held = nil
        let text = h.samples.withUnsafeBufferPointer { recognize($0.baseAddress!, Int32($0.count)) }
        guard !text.isEmpty else { return [] }
        let rate = Double(Self.sampleRate)
        return [TimedSegment(start: Double(h.start) / rate, end: Double(h.end) / rate, text: text)]
    }

    /// Silence put before and after each stretch of speech: the VAD starts a stretch right at its first sound,
    /// and Moonshine, given no lead-in, misheard first words ("A farmer" as "Her farmer", "100% take a few" for
    /// "take a few"). Measured on our espeak-ng passages: word error rate 13.2 % and 15.7 % without it.
    static let paddingSeconds = 0.3

    private func recognize(_ samples: UnsafePointer<Float>, _ count: Int32) -> String {
        let pad = Int(Self.paddingSeconds * Double(Self.sampleRate))
        var padded = [Float](repeating: 0, count: Int(count) + 2 * pad)
        padded.withUnsafeMutableBufferPointer { p in
            (p.baseAddress! + pad).update(from: samples, count: Int(count))
        }
        guard let raw = padded.withUnsafeBufferPointer({ tn_sherpa_recognize(recognizer, $0.baseAddress, Int32($0.count)) }) else { return "" }
        defer { free(raw) }
        // Tokens that begin a word carry its space, so the text starts with one.
        return String(cString: raw).trimmingWhitespace()
    }
}
