/// What a recognizer worker runs (`RecognizerWorker`), and the arguments that say so to `tnotesd`.
public struct WorkerSpec: Sendable, Equatable {
    public enum Engine: String, Sendable, CaseIterable {
        case sherpaOnnx = "sherpa-onnx"
        case pocketsphinx
    }

    public static let flag = "--recognizer-worker"
    public static let engineFlag = "--recognizer-engine"
    public static let liveFlag = "--recognizer-live"

    public var engine: Engine
    /// The model directory: the sherpa-onnx installation, or PocketSphinx's model.
    public var directory: String
    /// A recording's live transcript (PocketSphinx cuts utterances sooner), not a file's.
    public var live: Bool

    public init(engine: Engine, directory: String, live: Bool) {
        self.engine = engine
        self.directory = directory
        self.live = live
    }

    /// The worker's arguments after the executable.
    public var arguments: [String] { [Self.flag, directory, Self.engineFlag, engine.rawValue] + (live ? [Self.liveFlag] : []) }
}

/// A recognizer fed in order, as the worker runs it.
protocol StreamingRecognizer: AnyObject {
    func feed(_ samples: UnsafeBufferPointer<Int16>) -> [TimedSegment]
    func finish() -> [TimedSegment]
}

extension MoonshineRecognizer: StreamingRecognizer {}
extension PocketSphinxRecognizer: StreamingRecognizer {}
