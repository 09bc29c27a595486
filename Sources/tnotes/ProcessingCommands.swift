import ArgumentParser
import TNotesCLIRender
import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

struct TranscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Transcribe a sermon's audio on this device (offline, PocketSphinx unless configured otherwise).",
        discussion: """
            Queues a job on the device that holds the audio; other devices receive the transcript by sync. \
            With --wait, shows the percent of audio decoded (on a terminal) and exits 1 if the job failed.

            Example:
              tnotes transcribe $SERMON --wait
              tnotes jobs
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
    @Flag(name: .long, help: "Wait until the transcript is done.") var wait = false

    func run() throws {
        let session = Session(global)
        let result = try session.call(TranscriptGenerate.self, SermonIdParams(sermonId: sermonId))
        guard let jobId = LenientRecord<QueuedJob>(result).jobId else { throw Failure.message("the daemon answered no job id") }
        guard wait else {
            Output.line(global.json ? result.text : "queued transcription job \(jobId)")
            return
        }
        let job = LenientRecord<Job>(try JobWaiter(session: session, jobId: jobId, label: "transcribing").wait())
        let sermon = try session.call(SermonGet.self, IdParams(id: sermonId))
        if global.json {
            Output.line(LenientRecord<SermonDetail>(sermon).json(at: \.transcript)?.text ?? "null")
        } else {
            let segments = SermonDetail(lenient: sermon).transcript?.list(\.segments)?.count ?? 0
            Output.line("transcribed (\(segments) segments, job \(job.id ?? jobId))")
        }
    }
}

struct SummarizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summarize",
        abstract: "Write a summary of a sermon from its transcript and your notes (replaces the current summary).",
        discussion: """
            Types: bullet (key points), devotional (a short paragraph), theological (key points with the \
            scripture they cite). Sentences near your notes count most: your notes mark what mattered to you.

            Example:
              tnotes summarize $SERMON --type devotional
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
    @Option(name: .long, help: "bullet, devotional or theological.") var type = "bullet"
    @Flag(name: .long, help: "Queue the job and return at once.") var noWait = false

    func validate() throws {
        guard StatusValues.summaryTypes.contains(type) else {
            throw ValidationError("--type must be one of \(StatusValues.summaryTypes.joined(separator: ", "))")
        }
    }

    func run() throws {
        let session = Session(global)
        let result = try session.call(SummaryGenerate.self, .init(sermonId: sermonId, type: Summary.Kind(rawValue: type) ?? .bullet))
        guard let jobId = LenientRecord<QueuedJob>(result).jobId else { throw Failure.message("the daemon answered no job id") }
        if noWait {
            Output.line(global.json ? result.text : "queued summary job \(jobId)")
            return
        }
        _ = try JobWaiter(session: session, jobId: jobId, label: "summarising").wait()
        let sermon = try session.call(SermonGet.self, IdParams(id: sermonId))
        let summary = SermonDetail(lenient: sermon).summary
        Output.line(global.json ? (LenientRecord<SermonDetail>(sermon).json(at: \.summary) ?? .null).text
                                : "\(summary?.title ?? "")\n\n\(summary?.text ?? "")")
    }
}

struct AskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Ask the sermon assistant a question; it answers with quotes from the transcript and your notes.",
        discussion: """
            The question and the answer are kept in the sermon's chat and sync to your other devices.

            Example:
              tnotes ask $SERMON what did he say about forgiveness
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
    @Argument(parsing: .remaining, help: "The question.") var words: [String] = []

    func validate() throws {
        if words.joined().allSatisfy(\.isWhitespace) { throw ValidationError("give a question") }
    }

    func run() throws {
        let session = Session(global)
        let result = try session.call(ChatAsk.self, .init(sermonId: sermonId, question: words.joined(separator: " ")))
        guard let jobId = LenientRecord<QueuedJob>(result).jobId else { throw Failure.message("the daemon answered no job id") }
        _ = try JobWaiter(session: session, jobId: jobId, label: "thinking").wait()
        // The daemon derives the answer's id from the job's, so exactly this job's answer is shown.
        let answerId = Identifier.derived(from: jobId, kind: "answer")
        let messages = try session.call(ChatList.self, SermonIdParams(sermonId: sermonId)).arrayValue ?? []
        guard let answer = messages.first(where: { LenientRecord<ChatMessage>($0).id == answerId }) else {
            throw Failure.message("the answer is missing from the chat")
        }
        Output.line(global.json ? answer.text : LenientRecord<ChatMessage>(answer).content ?? "")
    }
}

struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Transcriptions, summaries and questions: queued, running (with progress), done and failed.",
        discussion: """
            Example:
              tnotes jobs
              tnotes jobs --state failed
              tnotes jobs retry $JOB
            """,
        subcommands: [List.self, Retry.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List jobs, newest first.")
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "queued, running, done or failed.") var state: String?

        func validate() throws {
            if let state, !["queued", "running", "done", "failed"].contains(state) {
                throw ValidationError("--state must be one of queued, running, done, failed")
            }
        }

        func run() throws {
            var params = JobsList.Params()
            params.state = state
            try Session(global).run(JobsList.self, params) { Render.jobs($0) }
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run a failed job again.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The job's id.", valueName: "job-id"), transform: Values.id) var id: String

        func run() throws {
            try Session(global).run(JobsRetry.self, IdParams(id: id)) { r in "queued again: \(Render.job(r))" }
        }
    }
}

/// Waits for a job to finish, following `job.changed` events, with a progress line on a terminal.
struct JobWaiter {
    let session: Session
    let jobId: String
    let label: String

    /// The finished job; throws when it failed.
    func wait() throws -> JSON {
        _ = try session.call(EventsSubscribe.self, .init(topics: [.jobChanged]))
        let progress = ProgressLine(enabled: !session.json)
        defer { progress.clear() }
        // Asked after subscribing, so a finish between the two is not missed.
        var json = try session.call(JobsGet.self, IdParams(id: jobId))
        while true {
            let job = LenientRecord<Job>(json)
            switch job.state {
            case "done": return json
            case "failed":
                throw Failure.message("job \(jobId) failed: \(job.lastError ?? "no reason given")")
            case "running":
                progress.show(ProgressText.job(label: label, progress: job.json(at: \.progress)))
            default:
                progress.show("\(label): queued")
            }
            let params = LenientRecord<RPCNotification>(try session.nextNotification()).json(at: \.params)
            let event = LenientRecord<JobChangedEvent>(params)
            guard event.id == jobId else { continue }
            if event.state == "running", event.kind == nil {
                // A progress event carries only id, state and progress: it is the job's state as it is.
                json = params ?? .null
            } else {
                json = try session.call(JobsGet.self, IdParams(id: jobId))
            }
        }
    }
}

/// One self-overwriting status line on standard error, only on a terminal and never with NO_COLOR or TERM=dumb.
struct ProgressLine {
    let enabled: Bool

    init(enabled: Bool) {
        let env = currentEnvironment()
        self.enabled = enabled && isatty(2) == 1 && env["NO_COLOR"] == nil && env["TERM"] != "dumb"
    }

    func show(_ text: String) {
        guard enabled else { return }
        Output.write(2, "\r\u{1B}[K" + text)
    }

    func clear() {
        guard enabled else { return }
        Output.write(2, "\r\u{1B}[K")
    }
}
