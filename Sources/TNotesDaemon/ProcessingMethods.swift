import TNotesCore
import TNotesLifecycle
import TNotesProcessing
import TNotesRPC
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// Contract §6.1: transcription, summaries and the sermon assistant, as jobs of the processing queue.
struct ProcessingMethods {
    let store: Store
    /// nil in a daemon without a worker (the fuzz target): jobs are queued and stay queued.
    let worker: ProcessingWorker?
    let settings: ProcessingSettings

    static let jobResult: JSON = ["type": "object", "properties": ["jobId": ["type": "string", "format": "uuid"]]]
    static let jobKinds = FieldType.enumeration(JobRecord.Kind.allCases.map(\.rawValue))

    func register(into table: inout MethodTable) {
        let store = self.store, worker = self.worker
        @Sendable func view(_ job: JobRecord) -> JSON { worker?.view(job) ?? job.json }

        table.add(MethodSpec(TranscriptGenerate.self, summary: "Queue a transcription of the sermon's audio (on the device that holds it).",
                             result: Self.jobResult) { p, _ in
            let sermonId = p.sermonId
            let canFetch = worker?.canFetchAudio ?? false
            let job = try await store.write { s in
                try Self.queueTranscription(sermonId: sermonId, in: s, requireAudio: true, byHand: true, canFetch: canFetch)
            }
            // An automatic transcription already under way is the one asked for now: it moves to the priority
            // of a job asked for by hand.
            worker?.promote(jobId: job.id)
            worker?.jobQueued()
            return QueuedJob(jobId: job.id).fieldJSON
        })

        table.add(MethodSpec(SummaryGenerate.self, summary: "Queue a summary of the sermon (replaces any summary, even one set by hand).",
                             result: Self.jobResult) { p, _ in
            let sermonId = p.sermonId
            let type = p.type.rawValue
            let job = try await store.write { s in
                _ = try s.liveRecord(.sermons, sermonId)
                let params: JSONObject = ["type": .string(type), "explicit": true]
                if let existing = try s.unfinishedJob(kind: .summarize, sermonId: sermonId, matching: params) { return existing }
                var byHand = params
                byHand[JobRecord.byHandKey] = true
                let job = try s.enqueueJob(kind: .summarize, sermonId: sermonId, params: byHand)
                try s.setProcessingStatus(sermonId: sermonId, key: "summaryStatus", status: "pending")
                return job
            }
            worker?.jobQueued()
            return QueuedJob(jobId: job.id).fieldJSON
        })

        table.add(MethodSpec(ChatAsk.self, summary: "Ask the sermon assistant; the question and its answer are appended as chat messages.",
                             result: ["type": "object", "properties": ["jobId": ["type": "string"], "questionId": ["type": "string"]]]) { p, _ in
            let sermonId = p.sermonId
            let question = p.question
            let (job, questionId) = try await store.write { s in
                _ = try s.liveRecord(.sermons, sermonId)
                let questionId = Identifier.make()
                let now = s.stamp()
                try s.commitLocal(.chatMessages, record: [
                    "id": .string(questionId), "sermonId": .string(sermonId), "role": "user", "content": .string(question),
                    "createdAt": .string(now), "deviceId": .string(s.deviceId),
                ], op: .upsert)
                let job = try s.enqueueJob(kind: .chat, sermonId: sermonId,
                                           params: ["question": .string(question), "questionId": .string(questionId),
                                                    JobRecord.byHandKey: true])
                return (job, questionId)
            }
            worker?.jobQueued()
            return ["jobId": .string(job.id), "questionId": .string(questionId)]
        })

        table.add(MethodSpec(JobsList.self, summary: "Processing jobs, newest first (finished ones are kept 30 days).",
                             notes: [\.limit: "default 100"], result: ["type": "array"], readOnly: true) { p, _ in
            let state = p.state.flatMap(JobRecord.State.init(rawValue:))
            let sermonId = p.sermonId
            let limit = Int(p.limit ?? 100)
            let jobs = try await store.read { s in
                try s.jobs(state: state, limit: sermonId == nil ? limit : 1000).filter { sermonId == nil || $0.sermonId == sermonId }
            }
            return .array(jobs.prefix(limit).map(view))
        })

        let settings = self.settings
        table.add(MethodSpec(ModelsList.self, summary: "The speech-to-text engines, whether each is installed, and the one a transcription uses now.",
                             result: ["type": "object"], readOnly: true) { _, _ in
            try await BlockingWork.run { Self.models(settings).fieldJSON }
        })

        table.add(MethodSpec(JobsGet.self, summary: "One processing job, with the progress of a running one.",
                             result: ["type": "object"], readOnly: true) { p, _ in
            let id = p.id
            guard let job = try await store.read({ s in try s.job(id: id) }) else { throw RPCError.notFound("job", id: id) }
            return view(job)
        })

        table.add(MethodSpec(JobsRetry.self, summary: "Run a failed (or finished) job again, with a fresh budget of attempts.",
                             result: ["type": "object"]) { p, _ in
            let id = p.id
            let job = try await store.write { s -> JobRecord in
                guard let job = try s.job(id: id) else { throw RPCError.notFound("job", id: id) }
                guard job.state == .failed || job.state == .done else {
                    throw RPCError.conflict("job \(id) is \(job.state.rawValue); only a failed or finished job can be retried")
                }
                if job.kind == .chat { throw RPCError.conflict("a question is not asked again; use chat.ask") }
                guard let retried = try s.retryJob(id: id) else { throw RPCError.notFound("job", id: id) }
                if let key = ProcessingWorker.statusKey(job.kind), try s.record(.sermons, id: job.sermonId).map({ !$0.isDeleted }) ?? false {
                    try s.setProcessingStatus(sermonId: job.sermonId, key: key, status: "pending")
                }
                return retried
            }
            worker?.jobQueued()
            return view(job)
        })
    }

    /// Queues a transcription of the sermon's audio unless one is queued or running (then that one is returned).
    /// `requireAudio`: refuse when this device does not hold the audio and cannot fetch it (`canFetch`: audio
    /// on demand, contract §8.7; without it only that device transcribes).
    /// `byHand`: a person asked for it (`transcript.generate`), not an import (`JobRecord.byHandKey`); an
    /// automatic job found unfinished becomes one asked for by hand.
    static func queueTranscription(sermonId: String, in s: StoreSession, requireAudio: Bool, byHand: Bool,
                                   canFetch: Bool = false) throws -> JobRecord {
        let sermon = try s.liveRecord(.sermons, sermonId)
        if let existing = try s.unfinishedJob(kind: .transcribe, sermonId: sermonId) {
            if byHand && !existing.isHandRequested { return try s.markJobHandRequested(id: existing.id) ?? existing }
            return existing
        }
        if requireAudio {
            guard let wanted = sermon.body["audio"]?["sha256"]?.stringValue else {
                throw RPCError.unavailable("sermon \(sermonId) has no audio to transcribe; import it with audio.import")
            }
            let file = try s.audioFile(sermonId: sermonId)
            guard canFetch || (file?.localAvailable == true && file?.sha256 == wanted) else {
                throw RPCError.unavailable("""
                    the audio of sermon \(sermonId) is not on this device, and sync cannot fetch it ([sync] audio = "never", \
                    or no sync server); transcribe it on the device that imported it
                    """)
            }
        }
        let job = try s.enqueueJob(kind: .transcribe, sermonId: sermonId, params: [JobRecord.byHandKey: .bool(byHand)])
        try s.setProcessingStatus(sermonId: sermonId, key: "transcriptionStatus", status: "pending")
        return job
    }

    /// `models.list`: looks at the files (a few access(2) calls), off the event loop.
    static func models(_ settings: ProcessingSettings) -> ModelsStatus {
        let choice = EngineChoice.choose(settings)
        var m = ModelsStatus()
        m.transcriber = settings.transcriber.rawValue
        m.directory = settings.recognizerDirectory
        m.engine = choice.engine
        m.model = choice.model
        m.fallbackReason = choice.fallbackReason
        let sphinx = settings.pocketSphinxDirectory
        m.engines = [
            EngineStatus(engine: RecognizerInstallation.engineName, model: RecognizerInstallation.modelName,
                         installed: RecognizerInstallation.find(in: settings.recognizerDirectory) != nil,
                         location: settings.recognizerDirectory),
            EngineStatus(engine: "pocketsphinx", model: "en-us", installed: access("\(sphinx)/en-us/mdef", R_OK) == 0, location: sphinx),
        ]
        if settings.transcriber == .command {
            m.engines.append(EngineStatus(engine: "command", model: choice.model, installed: true, location: choice.model))
        }
        return m
    }
}
