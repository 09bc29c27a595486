/// Recognition of audio as it is recorded (contract §8.2's live transcript): 16 kHz samples in, in order, and
/// the segments of each utterance out as soon as a pause ends it. PocketSphinx, as the file transcription
/// uses, until the engine of issue #52 takes its place.
///
/// Utterances are cut earlier than in a file's transcription (a pause of 0.4 s after 1.5 s of audio, any
/// utterance at 8 s): a segment shows a few seconds after its words were spoken, at some cost in accuracy
/// at the cuts, which the transcription after the recording does not pay.
///
/// Not thread-safe: one thread feeds it (the daemon's recognition thread).
public final class LiveRecognizer {
    private let decoder: PocketSphinxDecoder
    private var splitter: UtteranceSplitter = {
        var s = UtteranceSplitter()
        s.pauseFrames = 40
        s.minimumFrames = 150
        s.longFrames = 500
        s.maximumFrames = 800
        return s
    }()
    private var consumed = 0
    private var utteranceStart = 0
    private var finished = false

    /// Loads libpocketsphinx and the model: about a second. Throws when either is missing.
    public init(modelDirectory: String = PocketSphinxEngine.defaultModelDirectory) throws {
        decoder = try PocketSphinxDecoder(modelDirectory: modelDirectory)
        decoder.startUtterance()
    }

    deinit {
        if !finished { decoder.endUtterance() }
        decoder.release()
    }

    /// The next samples; the segments of the utterances they ended (times on the recording's clock).
    public func feed(_ samples: [Int16]) -> [TimedSegment] {
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

    /// The end of the audio: the last utterance's segments.
    public func finish() -> [TimedSegment] {
        guard !finished else { return [] }
        finished = true
        decoder.endUtterance()
        return decoder.collect(startSample: utteranceStart)
    }
}
