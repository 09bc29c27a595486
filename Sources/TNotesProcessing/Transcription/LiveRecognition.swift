/// Recognition of audio as it is recorded (contract §8.2's live transcript): 16 kHz samples in, in order, and
/// each utterance's segments out once a pause ends it, from the same recognizer worker a transcription uses
/// (`RecognizerWorker`), fed as the audio comes. Not thread-safe: one thread feeds it.
public final class LiveRecognition {
    private let process: RecognizerProcess

    /// Starts the worker of `choice`'s engine (a command engine has no live form: PocketSphinx stands in for it
    /// while recording). The models load in the worker meanwhile; throws when it cannot start.
    public init(_ choice: EngineChoice, settings: ProcessingSettings) throws {
        process = try RecognizerProcess(executable: settings.recognizerExecutable, spec: try choice.workerSpec(settings, live: true),
                                        stallSeconds: settings.stallSeconds)
    }

    /// The next samples; the segments of the utterances they ended (times on the recording's clock).
    public func feed(_ samples: [Int16]) throws -> [TimedSegment] { try process.feed(samples[...]) }

    /// The end of the audio: the last utterance's segments.
    public func finish() throws -> [TimedSegment] { try process.finish() }
}
