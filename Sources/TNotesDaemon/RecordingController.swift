import Dispatch
import Logging
import ServiceLifecycle
import Synchronization
import SystemPackage
import TNotesCore
import TNotesLifecycle
import TNotesProcessing
import TNotesRecording
import TNotesRPC
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// The one recording of this daemon (contract §8.2): starts it for a new or existing sermon, pauses, resumes,
/// and when it stops (asked to, or by itself: the duration limit, a full disk, a vanished source) attaches
/// its audio to the sermon as `audio.import` does and queues its transcription.
///
/// Crash safety: while a recording runs, `recording.json` in the data dir names its sermon and file. A daemon
/// that finds it at start (`recover`) was killed mid-recording: it closes the file after its last intact page
/// and attaches it.
actor RecordingController {
    struct Settings: Sendable {
        var server: SoundServer
        var audioDirectory: String
        var markerPath: String
        /// With `transcribe = false`: a file per live transcript still catching up after its stop, named after
        /// the recording's file and holding the id of the sermon it goes to, until its last save
        /// (`recoverLiveTranscripts` settles those a crash left).
        var liveMarkerDirectory: String
        var config: DaemonConfig.RecordingConfig
        /// The engine settings of the live transcript (`EngineChoice`); nil: no live transcript.
        var liveProcessing: ProcessingSettings?
    }

    /// What `recording.json` holds.
    struct Marker: Sendable {
        let sermonId: String
        let path: String
        let startedAt: String
        let source: String?
    }

    private struct Current {
        let recorder: Recorder
        let marker: Marker
        /// The attach that runs once the recorder stops; `recording.stop` awaits it.
        var completion: Task<JSON, Never>?
    }

    private let settings: Settings
    private let store: Store
    private let hub: EventHub
    private let worker: ProcessingWorker?
    private let logger: Logger
    private var current: Current?
    /// With `transcribe = false`: the live transcripts of stopped recordings, perhaps still catching up, and the
    /// sermons their audio went to (`stopForShutdown` says what becomes of them).
    private var catchingUp: [(live: LiveTranscription, sermonId: String, marker: String)] = []
    /// The live transcript of each sermon's last recording, while its thread runs: a new recording of the sermon
    /// supersedes it, so the two never write over each other.
    private var liveBySermon: [String: LiveTranscription] = [:]
    /// The running recording's sermon and recorder, for `note.add` (synchronous, from any thread).
    let clock = RecordingClock()

    init(settings: Settings, store: Store, hub: EventHub, worker: ProcessingWorker?, logger: Logger) {
        self.settings = settings
        self.store = store
        self.hub = hub
        self.worker = worker
        self.logger = logger
    }

    // MARK: methods

    func start(sermonId: String?, title: String?, speaker: JSON?, serviceType: String?, source: String?) async throws -> JSON {
        if let current, current.recorder.status.state != .stopped {
            throw RPCError.conflict("a recording is running (sermon \(current.marker.sermonId)); stop it first")
        }
        if let sermonId {
            _ = try await store.read { s in try RecordMethods.live(.sermons, sermonId, in: s) }
        }
        let id = sermonId ?? Identifier.make()
        let startedAt = Timestamp.format(millis: Timestamp.nowMillis())
        let path = "\(settings.audioDirectory)/\(id)-\(Timestamp.nowMillis()).opus"
        let recorderSettings = RecorderSettings(
            server: settings.server, source: source, path: path, title: title ?? "Recording \(startedAt.prefix(10))",
            artist: speaker?.stringValue, maxDuration: Double(settings.config.maxDuration), minFreeBytes: settings.config.minFreeBytes)
        let audioDirectory = settings.audioDirectory
        let hub = self.hub
        let live = settings.liveProcessing.map {
            LiveTranscription(sermonId: id, fileName: Self.fileName(path), store: store, processing: $0,
                              jobFollows: settings.config.transcribe, logger: logger) { topic, fields in
                hub.publish(topic: topic, fields)
            }
        }
        let recorder: Recorder
        do {
            recorder = try await BlockingWork.run {
                try DaemonPaths.makeDirectory(audioDirectory)
                return try Recorder.start(recorderSettings) { event in
                    switch event {
                    case .level(let dBFS, let elapsed):
                        hub.publish(topic: "recording.level", ["sermonId": .string(id), "level": .double(Self.rounded(dBFS)),
                                                               "elapsed": .double(Self.rounded(elapsed))])
                    case .audio(let samples, _):
                        live?.accept(samples)
                    case .stopped:
                        live?.end()
                    }
                }
            }
        } catch let e as SoundServerError {
            live?.abandon()
            throw RPCError.unavailable("\(e)")
        } catch let e as RecordingSourceError {
            live?.abandon()
            throw RPCError.invalidParams(field: "source", reason: "\(e)")
        } catch {
            live?.abandon()
            throw error
        }
        let marker = Marker(sermonId: id, path: path, startedAt: startedAt, source: source)
        do {
            if sermonId == nil {
                let date = startedAt
                _ = try await store.write { s in
                    let now = s.stamp()
                    var sermon = Sermon()
                    sermon.id = id
                    sermon.title = recorderSettings.title
                    sermon.date = date
                    if let serviceType { sermon.serviceType = serviceType }
                    sermon.speaker = speaker?.stringValue
                    sermon.createdAt = now
                    sermon.updatedAt = now
                    return try s.commitLocal(.sermons, record: sermon.record, op: .upsert)
                }
            }
            try await BlockingWork.run { try Self.writeMarker(marker, to: self.settings.markerPath) }
        } catch {
            // No audio to attach: the live transcript makes no sermon for it either.
            live?.abandon()
            _ = await recorder.stop()
            unlink(path)
            throw error
        }
        // Started: nothing fails after this. The transcript the sermon has now gives way to this recording's live
        // one, and an earlier recording's live transcript of it, still catching up, saves nothing from here on
        // (its saves check on the store's queue, where this read runs after any of them already under way).
        liveBySermon = liveBySermon.filter { !$0.value.waitFinished(until: .now()) }
        if sermonId != nil {
            let earlier = liveBySermon[id]
            // Handed over on the queue too, so that no save of the new one runs between the read and the hand-over.
            _ = try? await store.readOnQueue { s in
                earlier?.supersede()
                live?.replaces(transcriptUpdatedAt: try? s.newestChild(.transcripts, sermonId: id).flatMap { $0.body["updatedAt"]?.stringValue })
            }
        }
        liveBySermon[id] = live
        var started = Current(recorder: recorder, marker: marker)
        started.completion = Task { await self.complete(recorder: recorder, marker: marker, live: live) }
        current = started
        clock.set(sermonId: id, recorder: recorder)
        logger.info("recording started", metadata: ["sermonId": "\(id)", "source": "\(source ?? "default")", "file": "\(path)"])
        publishState(recorder.status, marker: marker)
        return view(recorder.status, marker: marker)
    }

    func pause() throws -> JSON { try change(pause: true) }
    func resume() throws -> JSON { try change(pause: false) }

    private func change(pause: Bool) throws -> JSON {
        guard let current, current.recorder.status.state != .stopped else { throw Self.nothingRecording }
        if pause { current.recorder.pause() } else { current.recorder.resume() }
        let status = current.recorder.status
        publishState(status, marker: current.marker)
        return view(status, marker: current.marker)
    }

    func stop() async throws -> JSON {
        guard let current, let completion = current.completion else { throw Self.nothingRecording }
        _ = await current.recorder.stop()
        return await completion.value
    }

    func status() -> JSON {
        guard let current else { return RecordingStatus().fieldJSON }
        return view(current.recorder.status, marker: current.marker)
    }

    /// The daemon is stopping: a running recording stops and is attached. With `transcribe = false`, a live
    /// transcript still catching up gets `shutdownCatchUpWait` to finish (it ends `complete`); one that does not
    /// is marked `failed`, cut short, instead of staying `processing` with nothing left to finish it.
    func stopForShutdown() async {
        if current != nil { _ = try? await stop() }
        let pending = catchingUp
        catchingUp = []
        let deadline = DispatchTime.now() + Self.shutdownCatchUpWait
        for (live, sermonId, marker) in pending where !live.isSuperseded {
            let finished = (try? await BlockingWork.run { live.waitFinished(until: deadline) }) ?? false
            guard !finished else { continue }
            logger.warning("the daemon stopped before the live transcript had heard the whole recording: it is marked failed",
                           metadata: ["sermonId": "\(sermonId)"])
            // Settled, the next start has nothing to do for it; not settled, the marker stays for it to try again.
            if await settleLiveTranscript(sermonId: sermonId) != nil {
                _ = try? await BlockingWork.run { unlink(marker) }
            }
        }
    }

    /// How long a stop waits, in all, for live transcripts catching up (see `stopForShutdown`).
    static let shutdownCatchUpWait = 3.0

    static let nothingRecording = RPCError(code: -32001, message: "Not found: no recording is running",
                                           data: ["kind": "recording"])

    // MARK: completion

    /// Runs once per recording, when its thread has closed the file: attach, forget the marker, say so.
    private func complete(recorder: Recorder, marker: Marker, live: LiveTranscription?) async -> JSON {
        let status = await recorder.finished()
        clock.clear()
        var result = fields(status, marker: marker)
        // The sermon that has the audio: another one when the recorded one was deleted meanwhile (`attach`).
        var attachedTo = marker
        do {
            let sermon = try await attach(path: marker.path, sermonId: marker.sermonId)
            // From now on the live transcript, still catching up perhaps, makes no sermon for the audio (see there).
            live?.audioSettled()
            result.sermon = sermon
            if let id = sermon["id"]?.stringValue {
                result.sermonId = id
                attachedTo = Marker(sermonId: id, path: marker.path, startedAt: marker.startedAt, source: marker.source)
            }
            // No job replaces this one's transcript: neither a stop of the daemon nor a crash may leave it
            // `processing`. Its marker is written before the recording's goes, so a crash leaves one of them.
            // Also under the sermon the audio went to (another when the recorded one was deleted): a recording of
            // that one supersedes this live transcript too.
            if let live, attachedTo.sermonId != marker.sermonId { liveBySermon[attachedTo.sermonId] = live }
            if let live, !settings.config.transcribe, live.waitFinished(until: .now()) {
                // Ended already: had its last save failed, nothing would mark it; settled here instead.
                if live.lastSaveFailedItself { _ = await settleLiveTranscript(sermonId: attachedTo.sermonId) }
            } else if let live, !settings.config.transcribe {
                // Named after the recording's file: two recordings of one sermon never share one.
                let liveMarker = "\(settings.liveMarkerDirectory)/\(Self.fileName(marker.path))"
                catchingUp.removeAll { $0.live.waitFinished(until: .now()) }
                catchingUp.append((live, attachedTo.sermonId, liveMarker))
                await markCatchingUp(live, sermonId: attachedTo.sermonId, at: liveMarker)
            }
            _ = try? await BlockingWork.run { unlink(self.settings.markerPath) }
            logger.info("recording stopped", metadata: [
                "sermonId": "\(attachedTo.sermonId)", "reason": "\(status.stopReason?.code ?? "requested")",
                "seconds": "\(Self.rounded(status.elapsed))", "bytes": "\(status.bytes)",
            ])
        } catch {
            // The file and the marker stay: the next start attaches them.
            logger.error("recording stopped but not attached", metadata: ["sermonId": "\(marker.sermonId)", "error": "\(error)"])
            result.error = "\(error)"
        }
        publishState(status, marker: attachedTo)
        if current?.recorder === recorder { current = nil }
        return result.fieldJSON
    }

    private func attach(path: String, sermonId: String) async throws -> JSON {
        let name = Self.fileName(path)
        let file = try await BlockingWork.run { try AudioImporter.describe(path: path, fileName: name) }
        do {
            return try await AudioMethods.attach(file, to: sermonId, store: store, transcribe: settings.config.transcribe,
                                                byHand: true, worker: worker)
        } catch StoreError.gone(let collection, _) where collection == RecordCollection.sermons.rawValue {
            // The sermon was deleted while it was being recorded (here, or on another device and pulled): the
            // audio is not lost with it. Kept, the file and the marker would fail the same way at every start.
            let view = try await AudioMethods.attach(file, store: store, transcribe: settings.config.transcribe, byHand: true,
                                                     worker: worker) { s in
                try Self.sermonForRecording(name, ofDeleted: sermonId, in: s)
            }
            logger.warning("the recorded sermon was deleted while it recorded: its audio goes to the sermon made for it", metadata: [
                "deletedSermonId": "\(sermonId)", "sermonId": "\(view["id"]?.stringValue ?? "")",
            ])
            return view
        }
    }

    /// A recording's file name, as its audio record names it (and `sermonForRecording` derives from it).
    static func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? "recording.opus" }

    /// The sermon for the audio of one deleted while it was recorded: the deleted one's title (marked as this
    /// recording's), speaker, date and service type, each within its bound (a tombstone may hold a value stored
    /// before the bounds). Made by the first of a `note.add` for the deleted sermon while it records, a save of
    /// the live transcript, and the stop (or the recovery after a crash); the others find it. Its id is derived
    /// from the deleted sermon and the recording's file, so a second try (a crash before the marker went) finds
    /// the same sermon instead of making another. Should that sermon be deleted too (it exists from the first
    /// note after the delete, so it can be), the next id of the chain (`recordingSermonSlot`) is made: the audio
    /// is attached somewhere, not kept for a retry at every start. Returns its id.
    static func sermonForRecording(_ fileName: String, ofDeleted deletedId: String, in s: StoreSession) throws -> String {
        guard let slot = try recordingSermonSlot(fileName, ofDeleted: deletedId, in: s) else {
            throw StoreError.gone(collection: RecordCollection.sermons.rawValue, id: deletedId)
        }
        if slot.made { return slot.id }
        let deleted = LenientRecord<Sermon>(object: try s.record(.sermons, id: deletedId)?.body ?? [:])
        let bound = ValueBounds.maxLabelCharacters, suffix = " (recording)"
        let now = s.stamp()
        var sermon = Sermon()
        sermon.id = slot.id
        sermon.title = String((deleted.title ?? "Recording").prefix(bound - suffix.count)) + suffix
        sermon.date = deleted.date ?? now
        sermon.serviceType = String((deleted.serviceType ?? sermon.serviceType).prefix(bound))
        sermon.speaker = deleted.speaker.map { String($0.prefix(bound)) }
        sermon.createdAt = now
        sermon.updatedAt = now
        _ = try s.commitLocal(.sermons, record: sermon.record, op: .upsert)
        return slot.id
    }

    /// The live sermon `sermonForRecording` made, without making one: nil when there is none yet (or it was
    /// deleted and no other followed it).
    static func existingSermonForRecording(_ fileName: String, ofDeleted deletedId: String, in s: StoreSession) throws -> String? {
        guard let slot = try recordingSermonSlot(fileName, ofDeleted: deletedId, in: s), slot.made else { return nil }
        return slot.id
    }

    /// The first id of the chain that is not a deleted sermon, and whether a sermon has it (`made`) or it is
    /// free. The ids are derived from the deleted sermon and the file: the first as it always was (a file left
    /// by an older daemon finds its sermon), then numbered, each only when the one before is a deleted sermon.
    /// Nil past 64 deleted in turn under one recording, which is past any person's doing.
    private static func recordingSermonSlot(_ fileName: String, ofDeleted deletedId: String, in s: StoreSession) throws
        -> (id: String, made: Bool)?
    {
        for n in 0..<64 {
            let id = Identifier.derivedInOrder(from: deletedId, kind: n == 0 ? "recording:\(fileName)" : "recording:\(fileName):\(n)")
            guard let found = try s.record(.sermons, id: id) else { return (id, false) }
            if !found.isDeleted { return (id, true) }
        }
        return nil
    }

    /// At start: a marker left by a daemon that died mid-recording. Its file is cut after the last intact
    /// page and attached to its sermon; the log says how much was kept. Then the live transcripts a crash cut
    /// short while they caught up (`recoverLiveTranscripts`).
    func recover() async {
        await recoverRecording()
        await recoverLiveTranscripts()
    }

    private func recoverRecording() async {
        let markerPath = settings.markerPath
        guard let marker = try? await BlockingWork.run({ try Self.readMarker(markerPath) }) else { return }
        do {
            let kept = try await BlockingWork.run { try Recorder.closeInterrupted(path: marker.path) }
            let sermon = try await attach(path: marker.path, sermonId: marker.sermonId)
            // Before the marker goes: a crash in between settles it at the next start.
            if !settings.config.transcribe, let id = sermon["id"]?.stringValue { _ = await settleLiveTranscript(sermonId: id) }
            _ = try? await BlockingWork.run { unlink(markerPath) }
            logger.notice("recording recovered after an unclean stop", metadata: [
                "sermonId": "\(marker.sermonId)", "file": "\(marker.path)", "seconds": "\(Self.rounded(kept.seconds))",
                "bytes": "\(kept.bytes)",
            ])
        } catch let error as RecordingFileError where error.nothingRecorded {
            // The file is gone, or empty or garbage (a power loss before its first pages, written at the start,
            // reached the disk): there is nothing to attach, now or at any later start, so the marker goes (kept,
            // every start would try again and log the same failure). A file of the daemon's own with no intact
            // page in it goes too; the sermon stays, without audio.
            // The sermon stays, and so does a live transcript saved before the crash.
            if !settings.config.transcribe { _ = await settleLiveTranscript(sermonId: marker.sermonId) }
            let audioDirectory = settings.audioDirectory
            _ = try? await BlockingWork.run {
                if marker.path.hasPrefix(audioDirectory + "/") { unlink(marker.path) }
                unlink(markerPath)
            }
            logger.warning("recording interrupted before any of it was written: nothing to recover", metadata: [
                "sermonId": "\(marker.sermonId)", "file": "\(marker.path)", "error": "\(error)",
            ])
        } catch {
            logger.error("recording could not be recovered", metadata: ["sermonId": "\(marker.sermonId)", "file": "\(marker.path)",
                                                                         "error": "\(error)"])
        }
    }

    /// With `[recording] transcribe = false`, after a crash or a stop of the daemon that cut the live transcript
    /// short: no job replaces the live transcript saved so far, which misses what the recogniser had not heard
    /// yet. It says so (`failed`, its text kept) rather than `processing` for ever. A transcript that is not
    /// `processing` (a person's, a finished job's, the live one's last save) stays as it is.
    /// A transcription job not finished yet (asked for by hand) will replace it: it stays `processing` then. A
    /// sermon deleted meanwhile has nothing to show: it is left alone, quietly. Returns whether it changed the
    /// transcript; nil when the write failed (logged), so that its marker stays for a later try.
    private func settleLiveTranscript(sermonId: String) async -> Bool? {
        do {
            return try await store.write { s -> Bool in
                guard let live = try s.newestChild(.transcripts, sermonId: sermonId),
                      live.body["status"]?.stringValue == ProcessingStatus.processing.rawValue,
                      try s.unfinishedJob(kind: .transcribe, sermonId: sermonId) == nil else { return false }
                _ = try s.setTranscript(sermonId: sermonId, text: live.body["text"] ?? .string(""),
                                        status: .string(ProcessingStatus.failed.rawValue), segments: live.body["segments"] ?? .array([]))
                return true
            }
        } catch StoreError.gone, StoreError.notFound {
            return false
        } catch {
            logger.warning("the recovered recording's live transcript still says processing", metadata: [
                "sermonId": "\(sermonId)", "error": "\(error)",
            ])
            return nil
        }
    }

    /// Writes the marker of a live transcript still catching up (durably: a crash must find it), removed by
    /// the transcript's thread once it has made its last save.
    private func markCatchingUp(_ live: LiveTranscription, sermonId: String, at path: String) async {
        let directory = settings.liveMarkerDirectory
        do {
            try await BlockingWork.run {
                try DaemonPaths.makeDirectory(directory)
                try DurableFile.write(Array(sermonId.utf8), to: path)
                // On the transcript's own thread, or here at once when it has ended meanwhile.
                // Kept when its last save failed: the next start settles it.
                live.whenFinished { saved in if saved { unlink(path) } }
            }
        } catch {
            logger.warning("the live transcript's marker could not be written: a crash before it ends leaves it processing",
                           metadata: ["sermonId": "\(sermonId)", "error": "\(error)"])
        }
    }

    /// At start: the live transcripts (`transcribe = false`) that were still catching up when the daemon died.
    /// Each is marked `failed`, cut short (`settleLiveTranscript`), and its marker goes once that is done. A
    /// marker that names no sermon (a write a crash cut, `DurableFile`'s temporary) just goes.
    private func recoverLiveTranscripts() async {
        let directory = settings.liveMarkerDirectory
        let names = (try? await BlockingWork.run { () -> [String] in
            guard let dir = opendir(directory) else { return [] }
            defer { closedir(dir) }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            return names
        }) ?? []
        for name in names {
            let path = "\(directory)/\(name)"
            let sermonId = (try? await BlockingWork.run { FileBytes.read(path).map { String(decoding: $0, as: UTF8.self) } }) ?? nil
            if let sermonId, Identifier.isUUID(sermonId) {
                guard let changed = await settleLiveTranscript(sermonId: sermonId) else { continue }
                if changed {
                    logger.notice("a live transcript cut short by an unclean stop is marked failed", metadata: ["sermonId": "\(sermonId)"])
                }
            }
            _ = try? await BlockingWork.run { unlink(path) }
        }
    }

    // MARK: views and events

    private func fields(_ s: RecorderStatus, marker: Marker) -> RecordingStatus {
        var o = RecordingStatus()
        o.state = s.state.rawValue
        o.sermonId = marker.sermonId
        o.source = .some(marker.source)
        o.startedAt = marker.startedAt
        o.elapsed = Self.rounded(s.elapsed)
        o.level = Self.rounded(s.level)
        o.bytes = s.bytes
        o.reason = s.stopReason?.code
        o.message = s.stopReason?.description
        return o
    }

    private func view(_ s: RecorderStatus, marker: Marker) -> JSON { fields(s, marker: marker).fieldJSON }

    private func publishState(_ s: RecorderStatus, marker: Marker) {
        hub.publish(topic: EventTopic.recordingState.rawValue, fields(s, marker: marker).record)
    }

    static func rounded(_ d: Double) -> Double { (d * 1000).rounded() / 1000 }

    // MARK: the marker file

    static func writeMarker(_ marker: Marker, to path: String) throws {
        let body: JSON = ["sermonId": .string(marker.sermonId), "path": .string(marker.path),
                          "startedAt": .string(marker.startedAt), "source": JSON(marker.source)]
        // Whole or absent after a crash.
        try DurableFile.write(Array(body.text.utf8), to: path)
    }

    static func readMarker(_ path: String) throws -> Marker? {
        guard case .success(let text) = Daemon.readFile(path) else { return nil }
        let o = try JSON.parse(text)
        guard let id = o["sermonId"]?.stringValue, let file = o["path"]?.stringValue else { return nil }
        return Marker(sermonId: id, path: file, startedAt: o["startedAt"]?.stringValue ?? "", source: o["source"]?.stringValue)
    }
}

/// The running recording's clock, read by `note.add` without awaiting the controller.
final class RecordingClock: Sendable {
    private let state = Mutex<(sermonId: String, recorder: Recorder)?>(nil)

    func set(sermonId: String, recorder: Recorder) { state.withLock { $0 = (sermonId, recorder) } }
    func clear() { state.withLock { $0 = nil } }

    /// The file name of the recording of `sermonId`, when one is running for it: a `note.add` for it after it
    /// was deleted goes to the sermon its audio will go to (`RecordingController.sermonForRecording`).
    func fileName(sermonId: String) -> String? {
        state.withLock { s in
            guard let s, s.sermonId == sermonId, s.recorder.status.state != .stopped else { return nil }
            return RecordingController.fileName(s.recorder.settings.path)
        }
    }

    /// Seconds into the recording of `sermonId`, when one is running for it.
    func elapsed(sermonId: String) -> Double? {
        state.withLock { s in
            guard let s, s.sermonId == sermonId, s.recorder.status.state != .stopped else { return nil }
            return RecordingController.rounded(s.recorder.now)
        }
    }
}

/// Stops a running recording when the daemon stops (SIGTERM): its audio is attached, not left for recovery.
struct RecordingService: Service {
    let controller: RecordingController

    func run() async throws {
        // Cancellation (the group failing) also ends the wait; the recording is stopped either way.
        try? await gracefulShutdown()
        await controller.stopForShutdown()
    }
}
