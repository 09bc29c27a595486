import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// `[processing]` in tnotesd.toml (contract §6.1), as the worker uses it.
public struct ProcessingSettings: Sendable, Equatable {
    public enum Engine: String, Sendable, CaseIterable { case builtin, command }

    /// Importing audio queues a transcription. Off by default: decoding costs about a quarter of the audio's
    /// length in CPU time, which a laptop user should opt into.
    public var autoTranscribe = false
    /// A transcript finished by a job queues a summary (never replacing one a person wrote).
    public var autoSummarize = true
    /// The type of an automatic summary.
    public var autoSummaryType = "bullet"
    public var transcriber: Transcriber = .auto
    public var transcribeCommand: [String] = []
    public var summarizer: Engine = .builtin
    public var summarizeCommand: [String] = []
    /// The assistant's engine: a command when set (it gets a JSON file of the question and the sermon).
    public var chatCommand: [String] = []
    /// Seconds a command engine may run.
    public var timeout: Double = 3600
    public var maxAttempts = 3
    /// Jobs run at once (each on a low-priority thread).
    public var workers = 1
    /// `model_dir` as configured: where `tnotes models install` put the recognizer, or a PocketSphinx model
    /// (a directory holding `en-us/mdef`, as before issue #52). Nil: the default places.
    public var configuredModelDirectory: String?
    /// `<data_dir>/models`: where the recognizer is looked for when `model_dir` is not set (the daemon sets it).
    public var dataModelDirectory = ""
    /// The recognizer worker's executable: the daemon's own (`RecognizerWorker`).
    public var recognizerExecutable = ""
    /// A recognizer that makes no progress this long is killed, and the job retried (`RecognizerProcess`). More
    /// than the CPU time of one 15 s chunk (about 4 s here), or a long chunk counts as a hang.
    public var stallSeconds: Double = 120
    /// Retry delays: the sync backoff policy (capped, jittered).
    public var backoff = BackoffPolicy(base: 1, factor: 2, max: 300)
    /// Finished jobs are listed this long.
    public var keepFinishedDays = 30
    /// Automatic transcriptions run on battery too (`[processing] on_battery`, contract §8.4); by default they
    /// wait for mains power, while a job asked for by hand runs at once.
    public var runOnBattery = false

    public init() {}

    /// `[processing] transcriber`.
    public enum Transcriber: String, Sendable, CaseIterable {
        /// sherpa-onnx when it is installed, PocketSphinx otherwise (the default).
        case auto
        case pocketsphinx
        case sherpaOnnx = "sherpa-onnx"
        case command
    }

    /// Where the sherpa-onnx recognizer is (or would be) installed.
    public var recognizerDirectory: String { configuredModelDirectory ?? dataModelDirectory }

    /// PocketSphinx's model: `model_dir` when it holds one, else Debian's.
    public var pocketSphinxDirectory: String {
        if let dir = configuredModelDirectory, access("\(dir)/en-us/mdef", R_OK) == 0 { return dir }
        return PocketSphinxEngine.defaultModelDirectory
    }
}
