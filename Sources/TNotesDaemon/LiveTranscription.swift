import Dispatch
import Logging
import Synchronization
import TNotesCore
import TNotesLifecycle
import TNotesProcessing
import TNotesStore

/// The live transcript of one recording (contract §8.2): audio from the capture thread goes into a queue
/// (never waiting: the capture thread only appends), and a thread of its own recognises it, publishes each
/// utterance's segments as a `transcript.partial` event, and keeps the transcript so far in the store with
/// status `processing`, so `sermon.get` shows it.
///
/// When recognition falls behind (a slow machine, a busy one) the queue grows and the thread catches up,
/// also after the recording stopped; the transcription job queued at stop replaces what this wrote (this
/// never writes over a transcript that is not `processing`, so a job that finished first keeps its result; but
/// the one the sermon had when the recording started, about the audio this one replaces, gives way).
/// With `[recording] transcribe = false` no job follows: the last save, once the recogniser has heard the
/// end, says `complete` (or `failed` when it stopped early or skipped audio), so the sermon does not show a
/// transcription in progress for ever.
final class LiveTranscription: Sendable {
    private struct Queue {
        var chunks: [[Int16]] = []
        var queuedSamples = 0
        var ended = false
        var droppedSamples = 0
    }

    /// Ten minutes of audio (19 MB) at most waits for the recogniser; beyond that the oldest goes (the
    /// transcription after stop still hears all of it).
    static let maxQueuedSamples = 16_000 * 600
    /// The store gets the transcript so far at most this often (each write is a version that syncs).
    static let storeInterval: Double = 15

    private let queue = Mutex(Queue())
    /// Set once the recording's audio has its sermon, or has none to go to (`audioSettled`): see `save`.
    private let attached = Atomic<Bool>(false)
    /// Whether the last save failed (logged): a marker of this transcript then stays for the next start.
    private let saveFailed = Atomic<Bool>(false)
    /// Whether a save of this transcript was made.
    private let savedAny = Atomic<Bool>(false)
    /// The recording did not start (`abandon`).
    private let abandoned = Atomic<Bool>(false)
    /// It stopped recognising, superseded, before its last save (a marker of it stays: see `whenFinished`).
    private let gaveUp = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    /// Left once the thread has ended: everything queued heard and the last save made (`waitFinished`).
    private let running = DispatchGroup()
    /// Whether the thread has ended, what runs then (`whenFinished`), whether a later recording of the sermon
    /// took over (`supersede`), and the transcript this one replaces (`replaces`).
    private struct Life {
        var done = false
        var actions: [@Sendable (Bool) -> Void] = []
        var superseded = false
        var before: String?
    }
    private let life = Mutex(Life())
    private let sermonId: String
    /// The recording's file name: what the sermon its audio goes to is derived from, when `sermonId` is deleted.
    private let fileName: String
    private let store: Store
    private let publish: @Sendable (String, JSONObject) -> Void
    private let logger: Logger
    /// A transcription job is queued at the stop (`[recording] transcribe`): it replaces this transcript, which
    /// stays `processing` until then.
    private let jobFollows: Bool

    init(sermonId: String, fileName: String, store: Store, processing: ProcessingSettings, jobFollows: Bool,
         logger: Logger, publish: @escaping @Sendable (String, JSONObject) -> Void) {
        self.sermonId = sermonId
        self.fileName = fileName
        self.jobFollows = jobFollows
        self.store = store
        self.publish = publish
        self.logger = logger
        running.enter()
        DedicatedThread.start { [self] in
            run(processing: processing)
            if !jobFollows && !savedAny.load(ordering: .acquiring) && !abandoned.load(ordering: .acquiring) { _ = settleUnsaved() }
            let actions = life.withLock { l in
                l.done = true
                defer { l.actions = [] }
                return l.actions
            }
            let saved = !lastSaveFailed
            for action in actions { action(saved) }
            running.leave()
        }
    }

    /// From the capture thread: 100 ms of audio, in order. Never blocks.
    func accept(_ samples: [Int16]) {
        queue.withLock { q in
            q.chunks.append(samples)
            q.queuedSamples += samples.count
            while q.queuedSamples > Self.maxQueuedSamples, !q.chunks.isEmpty {
                let old = q.chunks.removeFirst()
                q.queuedSamples -= old.count
                q.droppedSamples += old.count
            }
        }
        wake.signal()
    }

    /// The stop attached the recording's audio to its sermon (or to the one made for it), or a failed start
    /// removed it: no save makes a sermon for it from now on.
    func audioSettled() { attached.store(true, ordering: .releasing) }

    /// Blocks until the thread has heard everything queued and made its last save, or until `deadline`;
    /// whether it had.
    func waitFinished(until deadline: DispatchTime) -> Bool {
        running.wait(timeout: deadline) == .success
    }

    /// Runs `action` once the thread has ended (on it), or now when it has, with whether its last save was made
    /// (false: it failed, logged). `action` may block.
    func whenFinished(_ action: @escaping @Sendable (_ saved: Bool) -> Void) {
        let now = life.withLock { l -> Bool in
            if l.done { return true }
            l.actions.append(action)
            return false
        }
        if now { action(!lastSaveFailed) }
    }

    /// A later recording of the same sermon started: from now on its live transcript is the sermon's, and this
    /// one, perhaps still catching up, saves nothing more. Its last save is then not made: a marker of it stays
    /// (`whenFinished`), and the later one settles the transcript if it saves none of its own.
    func supersede() { life.withLock { $0.superseded = true } }

    /// Set by `recording.start` once the recording runs: the `updatedAt` of the transcript the recorded sermon had
    /// then (an earlier recording's, a person's). It is about the audio this recording's replaces at the stop, so
    /// the live transcript takes its place; one written after it (a job's, a person's) is kept (see `save`).
    func replaces(transcriptUpdatedAt before: String?) { life.withLock { $0.before = before } }

    var isSuperseded: Bool { life.withLock { $0.superseded } }

    /// Whether the last save failed (logged), or was not made for a later recording took over.
    var lastSaveFailed: Bool { saveFailed.load(ordering: .acquiring) || gaveUp.load(ordering: .acquiring) }

    /// Whether the last save failed (logged); not counting one skipped for a later recording.
    var lastSaveFailedItself: Bool { saveFailed.load(ordering: .acquiring) }

    /// The recording did not start (no sound server, no marker): no audio goes anywhere, so no save makes a
    /// sermon for it, and nothing of the sermon's is settled when the thread ends.
    func abandon() {
        abandoned.store(true, ordering: .releasing)
        audioSettled()
        end()
    }

    /// The recording stopped: what is queued is still recognised, then the thread ends.
    func end() {
        queue.withLock { $0.ended = true }
        wake.signal()
    }

    // MARK: the recognition thread

    private func run(processing: ProcessingSettings) {
        // Beside the capture and the desktop, not ahead of them (JobPriority says why nice 10). The recognizer's
        // worker process, started from this thread, inherits it.
        JobPriority.handRequested.apply()
        let recognizer: LiveRecognition
        let choice = EngineChoice.choose(processing)
        do {
            recognizer = try LiveRecognition(choice, settings: processing)
        } catch {
            logger.warning("no live transcript for this recording", metadata: ["sermonId": "\(sermonId)", "error": "\(error)"])
            drainWithoutRecognizing()
            return
        }
        logger.debug("live transcript started", metadata: ["sermonId": "\(sermonId)", "engine": "\(choice.summary)"])
        var segments: [TimedSegment] = []
        // The first segments are stored at once (`sermon.get` shows the transcript as soon as there is one),
        // later ones at most every `storeInterval` seconds of audio.
        var lastStore = -Double.infinity, clock = 0.0
        var unsaved = false
        // Where the last save went when not to the recorded sermon (see `save`).
        var movedTo: String?
        while true {
            wake.wait()
            // A later recording of the sermon took over: what is left is not worth the CPU its recogniser needs.
            if isSuperseded { return giveUp() }
            let (chunks, ended) = queue.withLock { q -> ([[Int16]], Bool) in
                defer { q.chunks = []; q.queuedSamples = 0 }
                return (q.chunks, q.ended)
            }
            var new: [TimedSegment] = []
            do {
                for c in chunks {
                    // Checked per chunk too: after the stop, the whole backlog is one batch.
                    if isSuperseded { return giveUp() }
                    new += try recognizer.feed(c)
                    clock += Double(c.count) / 16_000
                }
                if isSuperseded { return giveUp() }
                if ended { new += try recognizer.finish() }
            } catch {
                // The recognizer died or hung: what it gave is kept, and the transcription queued at stop (when
                // one is) hears the whole recording.
                logger.warning("live transcript stopped", metadata: ["sermonId": "\(sermonId)", "error": "\(error)"])
                if !new.isEmpty { segments += new; publish("transcript.partial", ["sermonId": .string(sermonId), "segments": .array(new.map(Self.json))]) }
                // Without a job to follow, this is all the transcript there will be, and it is not whole.
                if !segments.isEmpty { _ = save(segments, status: jobFollows ? .processing : .failed, movedTo: movedTo) }
                if !ended { drainWithoutRecognizing() }
                return
            }
            if !new.isEmpty {
                segments += new
                unsaved = true
                publish("transcript.partial", ["sermonId": .string(sermonId), "segments": .array(new.map(Self.json))])
            }
            // The last save: the transcript is final when no job follows, even with nothing new since the save before.
            let final = ended && !jobFollows && !segments.isEmpty
            if (unsaved || final) && (ended || clock - lastStore >= Self.storeInterval) {
                let status = final ? finalStatus() : ProcessingStatus.processing
                if let savedTo = save(segments, status: status, movedTo: movedTo) { movedTo = savedTo == sermonId ? nil : savedTo }
                lastStore = clock
                unsaved = false
            }
            if ended { break }
        }
        let dropped = queue.withLock { $0.droppedSamples }
        if dropped > 0 {
            logger.warning("live transcript fell behind and skipped audio", metadata: ["sermonId": "\(sermonId)", "seconds": "\(dropped / 16_000)"])
        }
    }

    /// With no job to follow, the status the transcript ends with: `complete` when the recogniser heard all of
    /// the recording, `failed` when it fell behind and skipped some (said in the log).
    private func finalStatus() -> ProcessingStatus {
        let dropped = queue.withLock { $0.droppedSamples }
        return dropped > 0 ? .failed : .complete
    }

    /// Stops recognising for good, its last save not made (superseded): waits for the recording's end.
    private func giveUp() {
        gaveUp.store(true, ordering: .releasing)
        if !queue.withLock({ $0.ended }) { drainWithoutRecognizing() }
    }

    private func drainWithoutRecognizing() {
        while true {
            wake.wait()
            if queue.withLock({ q in defer { q.chunks = []; q.queuedSamples = 0 }; return q.ended }) { return }
        }
    }

    /// The transcript so far, unless one that is not `processing` is already there (a finished job's; not the one
    /// from before the recording, `before`, which gives way). `status`: `processing`, or the final one. Once the
    /// recorded sermon is deleted (locally, or by a pulled change), it goes where the notes typed after the
    /// delete and the audio go: the sermon `RecordingController.sermonForRecording` makes (the first of a
    /// `note.add`, this, or the stop makes it; the others find it). A sermon restored meanwhile gets it again.
    /// Once the audio is attached (this thread may catch up for minutes after the stop), no sermon is made:
    /// only one made already is written, so a sermon deleted after the attach leaves no stray sermon behind.
    /// Before it, a sermon made here is the one the attach finds. `movedTo`: where the last save went, when
    /// not to the recorded sermon (the move is logged once). Returns where this one went: nil when it was not
    /// saved (a failure, logged, or no sermon).
    private func save(_ segments: [TimedSegment], status: ProcessingStatus, movedTo: String?) -> String? {
        let sermonId = self.sermonId, fileName = self.fileName
        do {
            let saved = try store.writeSync { s -> String? in
                // A later recording of the same sermon took over: its transcript is the sermon's now. Checked on
                // the store's queue, where that recording reads the transcript it replaces.
                if isSuperseded {
                    gaveUp.store(true, ordering: .releasing)
                    return nil
                }
                var target = sermonId
                do {
                    try s.requireLive(.sermons, sermonId)
                } catch StoreError.gone {
                    // Read on the store's queue, where the attach writes: an attach that committed before this
                    // write is seen (the flag is set just after its commit; in between, the sermon it attached
                    // to is the one this finds).
                    let moved = attached.load(ordering: .acquiring)
                        ? try RecordingController.existingSermonForRecording(fileName, ofDeleted: sermonId, in: s)
                        : try RecordingController.sermonForRecording(fileName, ofDeleted: sermonId, in: s)
                    guard let moved else { return nil }
                    target = moved
                } catch StoreError.notFound {
                    // Not committed yet (the recording's start makes it), or gone without a trace: nothing to save to.
                    return nil
                }
                if let current = try s.newestChild(.transcripts, sermonId: target), current.body["status"]?.stringValue != "processing" {
                    // Only the recorded sermon's transcript from before the recording gives way (the sermon made for
                    // the audio of a deleted one is new: what it holds is this recording's).
                    let before = life.withLock { $0.before }
                    let earlier = target == sermonId && before != nil && current.body["updatedAt"]?.stringValue == before
                    if !earlier { return target }
                }
                // A job asked for meanwhile (by hand) replaces it: until then it is not final.
                var status = status
                if status != .processing, try s.unfinishedJob(kind: .transcribe, sermonId: target) != nil { status = .processing }
                _ = try s.setTranscript(sermonId: target, text: .string(segments.map(\.text).joined(separator: " ")),
                                        status: .string(status.rawValue), segments: .array(segments.map(Self.json)))
                return target
            }
            saveFailed.store(false, ordering: .releasing)
            if saved != nil { savedAny.store(true, ordering: .releasing) }
            if let saved, saved != sermonId, saved != movedTo {
                logger.info("the recorded sermon was deleted: its live transcript goes to the sermon its audio goes to",
                            metadata: ["deletedSermonId": "\(sermonId)", "sermonId": "\(saved)"])
            }
            return saved
        } catch {
            saveFailed.store(true, ordering: .releasing)
            logger.warning("live transcript not saved", metadata: ["sermonId": "\(sermonId)", "error": "\(error)"])
            return nil
        }
    }

    /// With no job to follow and no save of its own (nothing heard, no recogniser): a transcript the sermon
    /// holds still `processing` (an earlier recording's live one, superseded by this) is not finished by anyone
    /// now, and says `failed`.
    @discardableResult
    private func settleUnsaved() -> Bool {
        let sermonId = self.sermonId
        do {
            try store.writeSync { s in
                if isSuperseded { return }
                guard let t = try s.newestChild(.transcripts, sermonId: sermonId),
                      t.body["status"]?.stringValue == ProcessingStatus.processing.rawValue,
                      try s.unfinishedJob(kind: .transcribe, sermonId: sermonId) == nil else { return }
                _ = try s.setTranscript(sermonId: sermonId, text: t.body["text"] ?? .string(""),
                                        status: .string(ProcessingStatus.failed.rawValue), segments: t.body["segments"] ?? .array([]))
            }
            return true
        } catch StoreError.gone, StoreError.notFound {
            return true
        } catch {
            saveFailed.store(true, ordering: .releasing)
            logger.warning("live transcript not saved", metadata: ["sermonId": "\(sermonId)", "error": "\(error)"])
            return false
        }
    }

    static func json(_ s: TimedSegment) -> JSON {
        ["start": .double((s.start * 1000).rounded() / 1000), "end": .double((s.end * 1000).rounded() / 1000), "text": .string(s.text)]
    }
}
