/// PocketSphinx as a stream: 16 kHz samples in, in order, and each utterance's segments out once a pause ends
/// it. The recognizer worker (`RecognizerWorker`) runs it, for a file's transcription and for a recording's
/// live transcript; the daemon itself never loads PocketSphinx (its language model left ~380 MB in the daemon's
/// heap after a job when it ran there).
///
/// For a recording (`live`), utterances are cut earlier than in a file's transcription (a pause of 0.4 s after
/// 1.5 s of audio, any utterance at 8 s): a segment shows a few seconds after its words were spoken, at some
/// cost in accuracy at the cuts, which the transcription after the recording does not pay.
///
/// Not thread-safe: one thread feeds it.
public final class PocketSphinxRecognizer {
    private let decoder: PocketSphinxDecoder
    private var splitter: UtteranceSplitter
    private var consumed = 0
    private var utteranceStart = 0
    private var finished = false

    static let liveSplitter: UtteranceSplitter = {
        var s = UtteranceSplitter()
        s.pauseFrames = 40
        s.minimumFrames = 150
        s.longFrames = 500
        s.maximumFrames = 800
        return s
    }()

    /// Loads libpocketsphinx and the model: about a second. Throws when either is missing.
    public init(modelDirectory: String = PocketSphinxEngine.defaultModelDirectory, live: Bool = true) throws {
        decoder = try PocketSphinxDecoder(modelDirectory: modelDirectory)
        splitter = live ? Self.liveSplitter : UtteranceSplitter()
        decoder.startUtterance()
    }

    deinit {
        if !finished { decoder.endUtterance() }
        decoder.release()
    }

    /// The next samples; the segments of the utterances they ended (times on the recording's clock).
    public func feed(_ samples: UnsafeBufferPointer<Int16>) -> [TimedSegment] {
        guard !finished else { return [] }
        var out: [TimedSegment] = []
        var fed = 0, frame = 0
        while frame < samples.count {
            let end = min(samples.count, frame + UtteranceSplitter.frameSamples)
            if splitter.frameEnds(samples[frame..<end]) {
                decoder.feed(samples, fed, end)
                fed = end
                decoder.endUtterance()
                out += decoder.collect(startSample: utteranceStart)
                utteranceStart = consumed + end
                decoder.startUtterance()
            }
            frame = end
        }
        decoder.feed(samples, fed, samples.count)
        consumed += samples.count
        return out
    }

    public func feed(_ samples: [Int16]) -> [TimedSegment] {
        samples.withUnsafeBufferPointer { feed($0) }
    }

    /// The end of the audio: the last utterance's segments.
    public func finish() -> [TimedSegment] {
        guard !finished else { return [] }
        finished = true
        decoder.endUtterance()
        return decoder.collect(startSample: utteranceStart)
    }
}
