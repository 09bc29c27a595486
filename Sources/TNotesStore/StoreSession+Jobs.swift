import TNotesCore
import TNotesSQLite

/// One row of the processing queue (contract §6.1), as `jobs.list` shows it.
public struct JobRecord: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case transcribe, summarize, chat }
    public enum State: String, Sendable, CaseIterable { case queued, running, done, failed }

    public let id: String
    public let kind: Kind
    public let sermonId: String
    /// Kind-specific input: `type` and `explicit` of a summary, `question` and `questionId` of a chat; and
    /// `byHand` (`byHandKey`) of every job.
    public let params: JSONObject
    public let state: State
    public let attempts: Int
    public let lastError: String?
    /// Unix milliseconds before which a queued job waits (its retry backoff).
    public let notBefore: Int64
    public let createdAt: String
    public let updatedAt: String
    /// The engine of its last attempt ("sherpa-onnx", "pocketsphinx", "command", "builtin") and its model; nil
    /// before it first ran.
    public var engine: String? = nil
    public var model: String? = nil

    /// The params key that says whether a person asked for the job (`transcript.generate`, `summary.generate`,
    /// `chat.ask`, `jobs.retry`: true) or the daemon queued it on its own (auto-transcribe after an import,
    /// auto-summarize after a transcript: false). It sets the priority the job runs at (`JobPriority` in
    /// TNotesProcessing), and lives in the job's row so that a job resumed after a restart keeps it. Distinct
    /// from a summary's `explicit`, which says whether it may replace a summary a person wrote: retrying an
    /// automatic summary by hand makes it run sooner, not replace a person's summary.
    public static let byHandKey = "byHand"

    /// Whether a person asked for this job (see `byHandKey`). A job queued before the key existed: a chat was
    /// always asked for, a summary was when `explicit`, and a transcription is taken as automatic (the
    /// priority every job had then).
    public var isHandRequested: Bool {
        if let byHand = params[Self.byHandKey]?.boolValue { return byHand }
        switch kind {
        case .chat: return true
        case .summarize: return params["explicit"]?.boolValue ?? false
        case .transcribe: return false
        }
    }

    public var json: JSON {
        [
            "id": .string(id), "kind": .string(kind.rawValue), "sermonId": .string(sermonId), "state": .string(state.rawValue),
            "attempts": .int(Int64(attempts)), "lastError": JSON(lastError), "params": .object(params),
            "createdAt": .string(createdAt), "updatedAt": .string(updatedAt),
            "nextAttemptAt": state == .queued && notBefore > 0 ? .string(Timestamp.format(millis: notBefore)) : .null,
            "engine": JSON(engine), "model": JSON(model),
        ]
    }
}

extension StoreSession {
    private static let jobColumns = "id, kind, sermon_id, params, state, attempts, last_error, not_before, created_at, updated_at, engine, model"

    private func decodeJob(_ r: Row) throws -> JobRecord {
        guard let kind = JobRecord.Kind(rawValue: r[1].string ?? ""), let state = JobRecord.State(rawValue: r[4].string ?? ""),
              case .object(let params) = try JSON.parse(r[3].string ?? "{}")
        else { throw StoreError.corruptRow("job \(r[0].string ?? "?")") }
        return JobRecord(id: r[0].string ?? "", kind: kind, sermonId: r[2].string ?? "", params: params, state: state,
                         attempts: Int(r[5].int ?? 0), lastError: r[6].string, notBefore: r[7].int ?? 0,
                         createdAt: r[8].string ?? "", updatedAt: r[9].string ?? "", engine: r[10].string, model: r[11].string)
    }

    public func job(id: String) throws -> JobRecord? {
        try db.query("SELECT \(Self.jobColumns) FROM jobs WHERE id = ?", [.text(id)]).first.map(decodeJob)
    }

    /// Jobs newest first, optionally of one state.
    public func jobs(state: JobRecord.State? = nil, limit: Int = 1000) throws -> [JobRecord] {
        if let state {
            return try db.query("SELECT \(Self.jobColumns) FROM jobs WHERE state = ? ORDER BY created_at DESC, id LIMIT ?",
                                [.text(state.rawValue), .int(Int64(limit))]).map(decodeJob)
        }
        return try db.query("SELECT \(Self.jobColumns) FROM jobs ORDER BY created_at DESC, id LIMIT ?",
                            [.int(Int64(limit))]).map(decodeJob)
    }

    /// The unfinished (queued or running) job of this kind for this sermon whose params match `sameAs`'s keys.
    public func unfinishedJob(kind: JobRecord.Kind, sermonId: String, matching: JSONObject = [:]) throws -> JobRecord? {
        try db.query("""
            SELECT \(Self.jobColumns) FROM jobs INDEXED BY jobs_by_sermon
            WHERE sermon_id = ? AND kind = ? AND state IN ('queued','running') ORDER BY created_at
            """, [.text(sermonId), .text(kind.rawValue)]
        ).map(decodeJob).first { job in matching.allSatisfy { job.params[$0.key] == $0.value } }
    }

    /// Queues a job. Returns the new job's record.
    public func enqueueJob(kind: JobRecord.Kind, sermonId: String, params: JSONObject = [:]) throws -> JobRecord {
        let now = Timestamp.now()
        let id = Identifier.make()
        try db.run("""
            INSERT INTO jobs(id, kind, sermon_id, params, state, attempts, not_before, created_at, updated_at)
            VALUES (?, ?, ?, ?, 'queued', 0, 0, ?, ?)
            """, [.text(id), .text(kind.rawValue), .text(sermonId), .text(JSON.object(params).text), .text(now), .text(now)])
        guard let job = try job(id: id) else { throw StoreError.notFound(collection: "jobs", id: id) }
        return job
    }

    /// Takes the oldest queued job that is due: it becomes `running` and its attempt is counted. Without
    /// `automaticTranscriptions` (on battery, contract §8.4), a transcription nobody asked for by hand waits.
    public func claimNextJob(nowMillis: Int64, automaticTranscriptions: Bool = true) throws -> JobRecord? {
        guard let id = try db.scalar("""
            SELECT id FROM jobs INDEXED BY jobs_runnable WHERE state = 'queued' AND not_before <= ?\(automaticTranscriptions ? "" : Self.handRequestedOnly)
            ORDER BY not_before, created_at, id LIMIT 1
            """, [.int(nowMillis)]).string
        else { return nil }
        try db.run("UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = ? WHERE id = ?",
                   [.text(Timestamp.now()), .text(id)])
        return try job(id: id)
    }

    /// Leaves out automatic transcriptions: `JobRecord.isHandRequested` in SQL (a transcription without the
    /// key is automatic; params that are not JSON, only written by hand, count as automatic too).
    static let handRequestedOnly = """
         AND NOT (kind = 'transcribe' AND coalesce(CASE WHEN json_valid(params) THEN json_extract(params, '$.\(JobRecord.byHandKey)') END, 0) = 0)
        """

    /// Names the engine (and model) a running job's attempt uses, for `jobs.get`.
    public func setJobEngine(id: String, engine: String, model: String?) throws {
        try db.run("UPDATE jobs SET engine = ?, model = ? WHERE id = ?", [.text(engine), SQLValue(model), .text(id)])
    }

    /// When the next queued job is due (Unix ms), or nil when nothing is queued (see `claimNextJob`).
    public func nextJobDue(automaticTranscriptions: Bool = true) throws -> Int64? {
        try db.scalar("""
            SELECT min(not_before) FROM jobs INDEXED BY jobs_runnable WHERE state = 'queued'\(automaticTranscriptions ? "" : Self.handRequestedOnly)
            """).int
    }

    /// Ends a running job's attempt: `done`, `failed` (for good), or back to `queued` until `notBefore`.
    public func settleJob(id: String, state: JobRecord.State, error: String?, notBefore: Int64 = 0,
                          refundAttempt: Bool = false) throws {
        try db.run("""
            UPDATE jobs SET state = ?, last_error = ?, not_before = ?, attempts = attempts - ?, updated_at = ? WHERE id = ?
            """, [.text(state.rawValue), SQLValue(error), .int(notBefore), .int(refundAttempt ? 1 : 0), .text(Timestamp.now()),
                  .text(id)])
    }

    /// Queues a finished or failed job again, with a fresh budget of attempts (`jobs.retry`). A person asked for
    /// it, so it runs as a job asked for by hand (`byHandKey`).
    public func retryJob(id: String) throws -> JobRecord? {
        try db.run("""
            UPDATE jobs SET state = 'queued', attempts = 0, not_before = 0, updated_at = ?,
              params = json_set(params, '$.\(JobRecord.byHandKey)', json('true'))
            WHERE id = ? AND state IN ('failed','done')
            """, [.text(Timestamp.now()), .text(id)])
        return try job(id: id)
    }

    /// A person asked for a job the daemon had queued on its own (`transcript.generate` while an automatic
    /// transcription is queued or running): from now on it is a job asked for by hand. Returns the job.
    public func markJobHandRequested(id: String) throws -> JobRecord? {
        try db.run("""
            UPDATE jobs SET params = json_set(params, '$.\(JobRecord.byHandKey)', json('true')), updated_at = ?
            WHERE id = ? AND state IN ('queued','running')
            """, [.text(Timestamp.now()), .text(id)])
        return try job(id: id)
    }

    /// At start: jobs a previous process was running when it died go back to the queue (their attempt stays
    /// counted, so a job that crashes the daemon every time still ends `failed`). Returns how many.
    public func requeueInterruptedJobs() throws -> Int {
        try db.run("UPDATE jobs SET state = 'queued', not_before = 0, updated_at = ? WHERE state = 'running'",
                   [.text(Timestamp.now())])
        return db.changes
    }

    /// Finished jobs older than `before` go (contract §6.1 keeps them 30 days).
    public func pruneJobs(before: String) throws -> Int {
        try db.run("DELETE FROM jobs WHERE state IN ('done','failed') AND updated_at < ?", [.text(before)])
        return db.changes
    }
}
