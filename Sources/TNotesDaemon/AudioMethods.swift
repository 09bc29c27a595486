import TNotesCore
import TNotesLifecycle
import TNotesProcessing
import TNotesRPC
import TNotesStore
import TNotesSync

#if canImport(Glibc)
import Glibc
#endif

/// `audio.import`, `audio.path`, and audio on demand (contract §8.7): `audio.fetch`, `audio.evict`.
struct AudioMethods {
    let store: Store
    let importer: AudioImporter
    /// The sync engine's audio queue and cache, once there is an engine.
    let sync: SyncSlot
    /// `[processing] auto_transcribe`: an import queues a transcription in the same transaction.
    var autoTranscribe = false
    var worker: ProcessingWorker?

    /// Attaches a file in the data dir to a sermon, in one transaction: the record's `audio` (so it syncs), this
    /// device's copy (path, uploaded: false, so the upload queue takes it), and, with `transcribe`, a new
    /// transcription job (any transcript of older audio is outdated). `audio.import` and a stopped recording
    /// both end here. Returns the sermon as `sermon.get` shows it.
    /// `byHand`: the job counts as one a person asked for (nice 10, not `SCHED_IDLE`): a recording's, because
    /// the person who just stopped it waits for its transcript; an import's (`auto_transcribe`) does not.
    static func attach(_ file: AudioImporter.Imported, to sermonId: String, store: Store, transcribe: Bool,
                       byHand: Bool = false, worker: ProcessingWorker?) async throws -> JSON {
        try await attach(file, store: store, transcribe: transcribe, byHand: byHand, worker: worker) { _ in sermonId }
    }

    /// As `attach(_:to:…)`, to the sermon `target` names in the same transaction (a recording whose sermon was
    /// deleted makes the sermon that takes its audio there, so that the two commit together or not at all).
    static func attach(_ file: AudioImporter.Imported, store: Store, transcribe: Bool, byHand: Bool, worker: ProcessingWorker?,
                       target: @escaping @Sendable (StoreSession) throws -> String) async throws -> JSON {
        defer { if transcribe { worker?.jobQueued() } }
        let (view, replaced) = try await store.write { s -> (JSON, String?) in
            let sermonId = try target(s)
            var body = try RecordMethods.live(.sermons, sermonId, in: s).body
            body[field: \Sermon.audio] = ["fileName": .string(file.fileName), "sizeBytes": .int(file.sizeBytes), "sha256": .string(file.sha256)]
            body[field: \Sermon.updatedAt] = .string(s.stamp())
            let saved = try s.commitLocal(.sermons, record: body, op: .upsert)
            // The very file the server already holds (`tnotes import --audio` on a device that evicted it) is not
            // uploaded again.
            let known = try s.audioFile(sermonId: sermonId)
            try s.setAudioFile(AudioFileState(sermonId: sermonId, path: file.path, sha256: file.sha256,
                                              sizeBytes: file.sizeBytes, localAvailable: true,
                                              uploaded: known?.uploaded == true && known?.sha256 == file.sha256))
            // The copy this one replaces, under another name: no row claims it now.
            let replaced = known?.path.flatMap { $0 != file.path ? $0 : nil }
            if transcribe {
                _ = try ProcessingMethods.queueTranscription(sermonId: sermonId, in: s, requireAudio: false, byHand: byHand)
                return (try RecordViews.sermon(try s.liveRecord(.sermons, sermonId), in: s, withChildren: true), replaced)
            }
            return (try RecordViews.sermon(saved, in: s, withChildren: true), replaced)
        }
        if let replaced { _ = try? await BlockingWork.run { unlink(replaced) } }
        return view
    }

    /// How a transcription fetches audio this device does not hold: through the engine, when there is one.
    static func audioAccess(sync: SyncSlot, pins: AudioPins) -> AudioAccess {
        AudioAccess(pins: pins, canFetch: { sync.engine?.audio.map { $0.settings.mode != .never } ?? false }) { sermonId, byHand in
            // No engine: nothing to fetch with; the job finds whether the copy is here itself.
            guard let audio = sync.engine?.audio else { return }
            do {
                try await audio.fetch(sermonId: sermonId, byHand: byHand)
            } catch let e as AudioCacheError {
                // Metered: the fetch waits, and the job with it, without using up its attempts.
                if case .metered = e { throw JobDeferred(e.description) }
                throw PermanentJobError(e.description)
            }
        }
    }

    /// The engine's audio queue, or -32005 on a device with no sync.
    static func transfers(_ slot: SyncSlot) throws -> AudioTransfers {
        guard let audio = slot.engine?.audio else {
            throw RPCError.unavailable("sync is disabled (no sync.server_url in the config): audio comes only by audio.import here")
        }
        return audio
    }

    /// A fetch or an eviction that did not happen, as a socket error.
    static func rpcError(_ error: any Error, sermonId: String) -> any Error {
        switch error {
        case let e as AudioCacheError:
            switch e {
            case .notUploaded, .inUse, .otherAudioNotUploaded: return RPCError.conflict(e.description)
            default: return RPCError.unavailable(e.description)
            }
        case SyncFailure.client(status: 404, _):
            return RPCError.unavailable("the server does not hold the audio of sermon \(sermonId) yet: the device that has it uploads it after its next sync")
        case let e as SyncFailure:
            return RPCError.unavailable("the audio could not be fetched: \(e)")
        case is CancellationError:
            return RPCError.unavailable("the fetch was stopped (the daemon is stopping)")
        default:
            return error
        }
    }

    func register(into table: inout MethodTable) {
        let store = self.store, importer = self.importer, autoTranscribe = self.autoTranscribe, worker = self.worker
        let slot = self.sync

        table.add(MethodSpec(AudioImport.self, summary: "Copy an audio file into the data dir and attach it to a sermon.",
                             notes: [\.path: "a readable file on this machine"], result: RecordMethods.sermonResult) { p, _ in
            let sermonId = p.sermonId
            // Refuse early for an unknown sermon, before copying a possibly large file.
            _ = try await store.read { s in try RecordMethods.live(.sermons, sermonId, in: s) }
            let imported = try await importer.importFile(from: p.path, sermonId: sermonId)
            do {
                return try await Self.attach(imported, to: sermonId, store: store, transcribe: autoTranscribe, worker: worker)
            } catch {
                unlink(imported.path)
                throw error
            }
        })

        table.add(MethodSpec(AudioPath.self, summary: "Where this device keeps a sermon's audio, if it has it.",
                             result: ["type": "object", "properties": ["path": ["type": ["string", "null"]],
                                                                        "localAvailable": ["type": "boolean"]]], readOnly: true) { p, _ in
            try await store.read { s -> JSON in
                let id = p.sermonId
                guard let sermon = try s.record(.sermons, id: id) else { throw StoreError.notFound(collection: "sermons", id: id) }
                let file = try s.audioFile(sermonId: id)
                let wanted = sermon.body[field: \Sermon.audio]?["sha256"]?.stringValue
                if let file, file.localAvailable, let path = file.path, file.sha256 == wanted, access(path, R_OK) == 0 {
                    return AudioPath.Result(path: path).fieldJSON
                }
                return AudioPath.Result(path: nil).fieldJSON
            }
        })

        table.add(MethodSpec(AudioFetch.self, summary: """
            Bring a sermon's audio to this device from the sync server (audio on demand): resumed after an \
            interruption, verified by sha256; audio.progress events tell how far it is. Answers when the file is here.
            """,
                             result: ["type": "object", "properties": ["path": ["type": "string"], "localAvailable": ["type": "boolean"],
                                                                        "fetched": ["type": "boolean"], "sizeBytes": ["type": "integer"]]]) { p, _ in
            let sermonId = p.sermonId
            _ = try await store.read { s in try RecordMethods.live(.sermons, sermonId, in: s) }
            let audio = try Self.transfers(slot)
            let fetched: Bool
            do {
                fetched = try await audio.fetch(sermonId: sermonId, byHand: true)
            } catch {
                throw Self.rpcError(error, sermonId: sermonId)
            }
            return try await store.read { s in
                guard let file = try s.audioFile(sermonId: sermonId), file.localAvailable, let path = file.path else {
                    throw RPCError.unavailable("the audio of sermon \(sermonId) was evicted again at once: see [sync] audio_cache_bytes")
                }
                var result = AudioFetch.Result()
                result.path = path
                result.fetched = fetched
                result.sizeBytes = max(0, file.sizeBytes ?? 0)
                return result.fieldJSON
            }
        })

        table.add(MethodSpec(AudioEvict.self, summary: """
            Drop this device's copy of a sermon's audio that the server holds (audio.fetch brings it back). The only \
            copy (not uploaded yet) and a copy a transcription reads are -32002.
            """, result: ["type": "object", "properties": ["evicted": ["type": "boolean"]]]) { p, _ in
            let sermonId = p.sermonId
            _ = try await store.read { s in try RecordMethods.live(.sermons, sermonId, in: s) }
            let audio = try Self.transfers(slot)
            var result = AudioEvict.Result()
            do {
                result.evicted = try await audio.evict(sermonId: sermonId)
            } catch {
                throw Self.rpcError(error, sermonId: sermonId)
            }
            return result.fieldJSON
        })
    }
}
