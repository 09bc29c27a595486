/// Which speech-to-text engine a transcription uses (`[processing] transcriber`), and what `jobs.get` and the
/// log call it. Chosen for each job, so a recognizer installed while the daemon runs is used from the next job.
public struct EngineChoice: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case pocketsphinx, sherpaOnnx(RecognizerInstallation), command }

    public let kind: Kind
    /// "sherpa-onnx", "pocketsphinx" or "command".
    public let engine: String
    /// "moonshine-base-en", PocketSphinx's model directory, or the command's program.
    public let model: String
    /// Why `auto` did not pick sherpa-onnx (for the log), nil otherwise.
    public let fallbackReason: String?

    public static func choose(_ settings: ProcessingSettings) -> EngineChoice {
        switch settings.transcriber {
        case .command:
            return EngineChoice(kind: .command, engine: "command", model: settings.transcribeCommand.first ?? "", fallbackReason: nil)
        case .pocketsphinx:
            return pocketsphinx(settings, reason: nil)
        case .sherpaOnnx, .auto:
            let directory = settings.recognizerDirectory
            if let installation = RecognizerInstallation.find(in: directory) {
                return EngineChoice(kind: .sherpaOnnx(installation), engine: RecognizerInstallation.engineName,
                                    model: RecognizerInstallation.modelName, fallbackReason: nil)
            }
            // Asked for by name but not installed: the job fails and says how to install it (`engine(...)`).
            if settings.transcriber == .sherpaOnnx {
                return EngineChoice(kind: .sherpaOnnx(RecognizerInstallation(directory: directory)), engine: RecognizerInstallation.engineName,
                                    model: RecognizerInstallation.modelName, fallbackReason: nil)
            }
            return pocketsphinx(settings, reason: "no sherpa-onnx recognizer in \(directory) (tnotes models install)")
        }
    }

    static func pocketsphinx(_ settings: ProcessingSettings, reason: String?) -> EngineChoice {
        EngineChoice(kind: .pocketsphinx, engine: "pocketsphinx", model: settings.pocketSphinxDirectory, fallbackReason: reason)
    }

    /// The engine itself. Throws when sherpa-onnx was asked for by name and is not installed.
    public func engine(_ settings: ProcessingSettings) throws -> any TranscriptionEngine {
        if case .command = kind {
            return CommandTranscriptionEngine(runner: CommandRunner(argv: settings.transcribeCommand, timeout: settings.timeout))
        }
        return WorkerEngine(spec: try workerSpec(settings, live: false), executable: settings.recognizerExecutable, stallSeconds: settings.stallSeconds)
    }

    /// What the recognizer worker runs for this choice (a command engine has no worker: PocketSphinx stands in
    /// for it in a recording's live transcript).
    public func workerSpec(_ settings: ProcessingSettings, live: Bool) throws -> WorkerSpec {
        switch kind {
        case .pocketsphinx, .command:
            return WorkerSpec(engine: .pocketsphinx, directory: settings.pocketSphinxDirectory, live: live)
        case .sherpaOnnx(let installation):
            guard RecognizerInstallation.find(in: installation.directory) != nil else {
                throw PermanentJobError("transcriber = \"sherpa-onnx\", but no recognizer is installed in \(installation.directory); "
                                        + "install it: tnotes models install")
            }
            return WorkerSpec(engine: .sherpaOnnx, directory: installation.directory, live: live)
        }
    }

    /// One log line's worth: "sherpa-onnx (moonshine-base-en)".
    public var summary: String { "\(engine) (\(model))" }
}
