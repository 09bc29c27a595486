import TNotesCore

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
    /// `transcriber = "pocketsphinx"` is `.builtin` here.
    public var transcriber: Engine = .builtin
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
    public var modelDirectory = PocketSphinxEngine.defaultModelDirectory
    /// Retry delays: the sync backoff policy (capped, jittered).
    public var backoff = BackoffPolicy(base: 1, factor: 2, max: 300)
    /// Finished jobs are listed this long.
    public var keepFinishedDays = 30

    public init() {}
}
