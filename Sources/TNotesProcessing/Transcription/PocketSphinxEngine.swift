import CPocketSphinx

#if canImport(Glibc)
import Glibc
#endif

/// CMU PocketSphinx from Debian, with the US English model of `pocketsphinx-en-us`: the engine when sherpa-onnx
/// is not installed. Offline; nothing is downloaded. It runs in the recognizer worker (`PocketSphinxRecognizer`).
public enum PocketSphinxEngine {
    public static let defaultModelDirectory = "/usr/share/pocketsphinx/model/en-us"
    public static let name = "pocketsphinx"
}

/// One decoder instance (not thread-safe; used by one job on one thread).
final class PocketSphinxDecoder {
    private let config: OpaquePointer
    private let ps: OpaquePointer
    /// Words of this length or fewer in a row form one segment at most; a pause of `segmentPause` seconds
    /// between words starts a new one. Speech has no punctuation here, so pauses stand in for sentences.
    static let segmentWords = 24
    static let segmentPause = 0.3
    /// PocketSphinx's default frame rate (`-frate 100`).
    static let framesPerSecond = 100.0

    /// sphinxbase logs to stderr by default; the daemon's log is swift-log's alone.
    private static let quiet: Void = { tn_ps_quiet() }()

    init(modelDirectory: String) throws {
        // Loaded on the first transcription, not at start (CPocketSphinx.h says why).
        guard tn_pocketsphinx_load() != 0 else {
            let why = tn_pocketsphinx_load_error().map { String(cString: $0) } ?? "unknown error"
            throw PermanentJobError("PocketSphinx is not installed (\(why)); install it: apt-get install libpocketsphinx3")
        }
        _ = Self.quiet
        let hmm = "\(modelDirectory)/en-us", lm = "\(modelDirectory)/en-us.lm.bin", dict = "\(modelDirectory)/cmudict-en-us.dict"
        for file in [hmm + "/mdef", lm, dict] where access(file, R_OK) != 0 {
            throw PermanentJobError("the PocketSphinx model is missing (\(file)); install it: apt-get install pocketsphinx-en-us")
        }
        let args = ["tnotesd", "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null", "-remove_silence", "no"]
        var argv = args.map { strdup($0) }
        defer { for p in argv { free(p) } }
        guard let config = argv.withUnsafeMutableBufferPointer({ tn_ps_config_parse(Int32(args.count), $0.baseAddress) })
        else { throw PermanentJobError("PocketSphinx refused its configuration") }
        guard let ps = tn_ps_init(config) else {
            tn_ps_config_free(config)
            throw PermanentJobError("PocketSphinx could not load the model in \(modelDirectory)")
        }
        self.config = config
        self.ps = ps
    }

    func startUtterance() { tn_ps_start_utt(ps) }
    func endUtterance() { tn_ps_end_utt(ps) }

    func release() {
        tn_ps_free(ps)
        tn_ps_config_free(config)
    }

    func feed(_ buffer: UnsafeBufferPointer<Int16>, _ from: Int, _ to: Int) {
        guard to > from else { return }
        _ = tn_ps_process_raw(ps, buffer.baseAddress! + from, to - from)
    }

    /// The finished utterance's words, grouped into sentence-like segments at pauses.
    func collect(startSample: Int) -> [TimedSegment] {
        let offset = Double(startSample) / Double(AudioInput.sampleRate)
        var out: [TimedSegment] = []
        var words: [String] = []
        var start = 0.0, end = 0.0
        func close() {
            guard !words.isEmpty else { return }
            var text = words.joined(separator: " ")
            text = text.prefix(1).uppercased() + text.dropFirst() + "."
            out.append(TimedSegment(start: start, end: end, text: text))
            words.removeAll()
        }
        var seg = tn_ps_seg_iter(ps)
        // Debian's PocketSphinx (5prealpha) numbers frames from the decoder's start, not the utterance's (the
        // second utterance of a test began at frame 487, after 79,520 samples): times are taken from the
        // utterance's first frame, which is `startSample`, so either numbering gives the same times.
        var firstFrame: Int32?
        while let s = seg {
            var sf: Int32 = 0, ef: Int32 = 0
            tn_ps_seg_frames(s, &sf, &ef)
            if firstFrame == nil { firstFrame = sf }
            let base = firstFrame ?? 0
            let wStart = offset + Double(sf - base) / Self.framesPerSecond
            let wEnd = offset + Double(ef + 1 - base) / Self.framesPerSecond
            let token = tn_ps_seg_word(s).map { String(cString: $0) } ?? ""
            if let word = Self.spoken(token) {
                if words.count >= Self.segmentWords { close() }
                if words.isEmpty { start = wStart }
                words.append(word)
                end = wEnd
            } else if token == "<sil>" && wEnd - wStart >= Self.segmentPause {
                close()
            }
            seg = tn_ps_seg_next(s)
        }
        close()
        return out
    }

    /// A recognised word without its pronunciation variant ("read(2)" → "read"); nil for silence, sentence
    /// markers and fillers ("<s>", "<sil>", "[NOISE]", "++UM++").
    static func spoken(_ token: String) -> String? {
        guard let first = token.first, first != "<", first != "[", first != "+" else { return nil }
        if let paren = token.firstIndex(of: "("), token.hasSuffix(")") { return String(token[..<paren]) }
        return token
    }
}
