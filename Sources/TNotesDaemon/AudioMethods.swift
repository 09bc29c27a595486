import TNotesCore
import TNotesProcessing
import TNotesRPC
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// `audio.import` and `audio.path`.
struct AudioMethods {
    let store: Store
    let importer: AudioImporter
    /// `[processing] auto_transcribe`: an import queues a transcription in the same transaction.
    var autoTranscribe = false
    var worker: ProcessingWorker?

    /// Attaches a file in the data dir to a sermon, in one transaction: the record's `audio` (so it syncs), this
    /// device's copy (path, uploaded: false, so the upload queue takes it), and, with `transcribe`, a new
    /// transcription job (any transcript of older audio is outdated). `audio.import` and a stopped recording
    /// both end here. Returns the sermon as `sermon.get` shows it.
    static func attach(_ file: AudioImporter.Imported, to sermonId: String, store: Store, transcribe: Bool,
                       worker: ProcessingWorker?) async throws -> JSON {
        defer { if transcribe { worker?.jobQueued() } }
        return try await store.write { s in
            var body = try RecordMethods.live(.sermons, sermonId, in: s).body
            body[field: \Sermon.audio] = ["fileName": .string(file.fileName), "sizeBytes": .int(file.sizeBytes), "sha256": .string(file.sha256)]
            body[field: \Sermon.updatedAt] = .string(s.stamp())
            let saved = try s.commitLocal(.sermons, record: body, op: .upsert)
            try s.setAudioFile(AudioFileState(sermonId: sermonId, path: file.path, sha256: file.sha256,
                                              sizeBytes: file.sizeBytes, localAvailable: true, uploaded: false))
            if transcribe {
                _ = try ProcessingMethods.queueTranscription(sermonId: sermonId, in: s, requireAudio: false, byHand: false)
                return try RecordViews.sermon(try s.liveRecord(.sermons, sermonId), in: s, withChildren: true)
            }
            return try RecordViews.sermon(saved, in: s, withChildren: true)
        }
    }

    func register(into table: inout MethodTable) {
        let store = self.store, importer = self.importer, autoTranscribe = self.autoTranscribe, worker = self.worker

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
            try await store.read { s in
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
    }
}
