import TNotesCore
import TNotesScripture
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// What each kind of job does. Every job ends in one transaction that writes its result and marks it done
/// (`finish`), so a crash before that commit leaves no trace but the job to run again.
struct JobExecutor: Sendable {
    let store: Store
    let settings: ProcessingSettings
    /// Where a command engine's input files go (the data dir's tmp).
    let scratchDirectory: String

    /// Called with each transcription's engine (the worker logs a change of engine once).
    var onEngineChosen: @Sendable (EngineChoice) -> Void = { _ in }
    /// Audio this device does not hold comes by sync (nil: only the device holding it transcribes).
    var audio: AudioAccess?

    static let summarizer = ExtractiveSummarizer(referencesIn: { text in
        ScriptureReferences.references(in: text).map(\.display)
    })

    /// Runs the job's work; returns the record writes to commit with `done` (run inside that transaction).
    func execute(_ job: JobRecord, context: JobContext) async throws -> @Sendable (StoreSession) throws -> Void {
        switch job.kind {
        case .transcribe: return try await transcribe(job, context: context)
        case .summarize: return try await summarize(job, context: context)
        case .chat: return try await answer(job, context: context)
        }
    }

    // MARK: transcribe

    private func transcribe(_ job: JobRecord, context: JobContext) async throws -> @Sendable (StoreSession) throws -> Void {
        let sermonId = job.sermonId
        // Pinned for the whole job: the audio cache never evicts a file the engine is reading.
        audio?.pins.pin(sermonId)
        defer { audio?.pins.unpin(sermonId) }
        if let audio {
            // Fetched first when this device does not hold it (on demand); a copy here counts as used. Errors
            // other than PermanentJobError (the network, a metered connection) retry with the job's backoff.
            try await audio.fetch(sermonId, job.isHandRequested)
        }
        let path: String = try await store.read { s in
            let sermon = try s.liveRecord(.sermons, sermonId)
            let wanted = sermon.body[field: \Sermon.audio]?["sha256"]?.stringValue
            guard wanted != nil else { throw PermanentJobError("the sermon has no audio") }
            // Without a way to fetch it, only the device holding the audio transcribes; the others get the
            // transcript by sync.
            guard let file = try s.audioFile(sermonId: sermonId), file.localAvailable, file.sha256 == wanted,
                  let path = file.path, access(path, R_OK) == 0
            else { throw PermanentJobError("the sermon's audio is not on this device") }
            return path
        }
        var choice = EngineChoice.choose(settings)
        onEngineChosen(choice)
        let result: TranscriptionResult
        do {
            result = try await transcribe(path, job: job, choice: choice, context: context)
        } catch let e as RecognizerUnusable {
            // A damaged sherpa-onnx installation under `auto`: PocketSphinx, as when none is installed.
            guard settings.transcriber == .auto else { throw PermanentJobError(e.description) }
            choice = EngineChoice.pocketsphinx(settings, reason: e.description)
            onEngineChosen(choice)
            result = try await transcribe(path, job: job, choice: choice, context: context)
        }
        guard !result.text.isEmpty else { throw PermanentJobError("no speech was recognised in the audio") }
        let segments = JSON.array(result.segments.map {
            ["start": .double(Self.rounded($0.start)), "end": .double(Self.rounded($0.end)), "text": .string($0.text)]
        })
        let settings = self.settings
        return { s in
            try s.setTranscript(sermonId: sermonId, text: .string(result.text), status: "complete", segments: segments)
            if settings.autoSummarize {
                try Self.queueAutomaticSummary(sermonId: sermonId, type: settings.autoSummaryType, in: s)
            }
        }
    }

    private func transcribe(_ path: String, job: JobRecord, choice: EngineChoice, context: JobContext) async throws -> TranscriptionResult {
        try await store.write { s in try s.setJobEngine(id: job.id, engine: choice.engine, model: choice.model) }
        return try await choice.engine(settings).transcribe(audioPath: path, job: context)
    }

    /// Milliseconds are plenty for a segment time, and keep the stored JSON short. A time so large that the
    /// product overflows (no engine's, but the engine is any program) is kept as it is: `inf` would be stored as
    /// null.
    static func rounded(_ seconds: Double) -> Double {
        let r = (seconds * 1000).rounded() / 1000
        return r.isFinite ? r : seconds
    }

    /// Queues the summary a finished transcript asks for, unless a person wrote the summary.
    static func queueAutomaticSummary(sermonId: String, type: String, in s: StoreSession) throws {
        if let existing = try s.newestChild(.summaries, sermonId: sermonId), existing.body[field: \Summary.generatedBy]?.isNull ?? true {
            return
        }
        guard try s.unfinishedJob(kind: .summarize, sermonId: sermonId) == nil else { return }
        // Queued by the daemon, not by a person: it runs at SCHED_IDLE (`JobPriority.idle`).
        _ = try s.enqueueJob(kind: .summarize, sermonId: sermonId, params: ["type": .string(type), "explicit": false,
                                                                           JobRecord.byHandKey: false])
        try s.setProcessingStatus(sermonId: sermonId, key: "summaryStatus", status: "pending")
    }

    // MARK: summarize

    private func summarize(_ job: JobRecord, context: JobContext) async throws -> @Sendable (StoreSession) throws -> Void {
        let sermonId = job.sermonId
        guard let typeName = job.params["type"]?.stringValue, let type = SummaryType(rawValue: typeName) else {
            throw PermanentJobError("the job has no valid summary type")
        }
        let explicit = job.params["explicit"]?.boolValue ?? true
        let text = try await store.read { s in try SermonTextLoader.load(sermonId: sermonId, in: s) }
        guard ExtractiveSummarizer.hasContent(text) else {
            throw PermanentJobError("the sermon has no transcript or notes to summarise")
        }
        let summary: GeneratedSummary
        let engine: String
        let jobId = job.id
        try await store.write { [settings] s in
            try s.setJobEngine(id: jobId, engine: settings.summarizer.rawValue,
                               model: settings.summarizer == .command ? settings.summarizeCommand.first : nil)
        }
        switch settings.summarizer {
        case .builtin:
            // On a thread of the job's priority, like a transcription: a long sermon's summary is seconds of CPU.
            summary = try await LowPriorityThread.run("tnotes-text", job: context) { Self.summarizer.summarize(text, type: type) }
            engine = "builtin"
        case .command:
            let output = try await runCommand(settings.summarizeCommand, input: SermonTextLoader.json(text, extra: ["type": .string(typeName)]),
                                              context: context)
            summary = GeneratedSummary(title: "\(Self.typeTitle(type)): \(text.title)", text: output.text, type: type)
            engine = "command"
        }
        return { s in
            // Checked again at commit: a person may have written a summary while this one was made.
            if !explicit, let existing = try s.newestChild(.summaries, sermonId: sermonId),
               existing.body[field: \Summary.generatedBy]?.isNull ?? true
            {
                return
            }
            try s.setSummary(sermonId: sermonId, title: .string(summary.title), text: .string(summary.text),
                             type: .string(type.rawValue), status: "complete", generatedBy: engine)
        }
    }

    static func typeTitle(_ t: SummaryType) -> String {
        switch t {
        case .bullet: return "Key points"
        case .devotional: return "Devotional"
        case .theological: return "Theology"
        }
    }

    // MARK: chat

    private func answer(_ job: JobRecord, context: JobContext) async throws -> @Sendable (StoreSession) throws -> Void {
        let sermonId = job.sermonId
        guard let question = job.params["question"]?.stringValue else { throw PermanentJobError("the job has no question") }
        let text = try await store.read { s in try SermonTextLoader.load(sermonId: sermonId, in: s) }
        let content: String
        if settings.chatCommand.isEmpty {
            content = try await LowPriorityThread.run("tnotes-text", job: context) {
                SermonAssistant().answer(question: question, about: text).text
            }
        } else {
            content = try await runCommand(settings.chatCommand, input: SermonTextLoader.json(text, extra: ["question": .string(question)]),
                                           context: context).text
        }
        // The answer's id comes from the job: a retried commit can never append it twice.
        let answerId = Identifier.derived(from: job.id, kind: "answer")
        return { s in
            guard try s.record(.chatMessages, id: answerId) == nil else { return }
            let now = s.stamp()
            try s.commitLocal(.chatMessages, record: [
                "id": .string(answerId), "sermonId": .string(sermonId), "role": "assistant", "content": .string(content),
                "createdAt": .string(now), "deviceId": .string(s.deviceId),
            ], op: .upsert)
        }
    }

    /// Writes `input` to a private temp file, runs the command on it, and reads its answer.
    private func runCommand(_ argv: [String], input: JSON, context: JobContext) async throws -> TranscriptionResult {
        let runner = CommandRunner(argv: argv, timeout: settings.timeout)
        let path = "\(scratchDirectory)/job-\(Identifier.make()).json"
        let body = Array(input.text.utf8)
        let dir = scratchDirectory
        try await LowPriorityThread.run("tnotes-io", job: context) {
            mkdir(dir, 0o700)
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw PermanentJobError("cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            guard body.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == body.count else {
                throw PermanentJobError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        // The input file goes whether the command succeeded or not, removed off the cooperative pool too.
        let output: String
        do {
            output = try await runner.run(inputPath: path, priority: context.priority)
        } catch {
            _ = try? await LowPriorityThread.run("tnotes-io", job: context) { unlink(path) }
            throw error
        }
        _ = try? await LowPriorityThread.run("tnotes-io", job: context) { unlink(path) }
        return try CommandOutput.parse(output, program: argv.first ?? "command")
    }
}
