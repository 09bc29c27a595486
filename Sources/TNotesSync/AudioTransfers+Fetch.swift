import Crypto
import Synchronization
import SystemPackage
import Logging
import TNotesCore
import TNotesLifecycle
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// Bringing one sermon's audio here: the pass's downloads (`always`), `audio.fetch`, and a transcription that
/// needs the file. One transfer per sermon at a time; each resumes a partial file and is verified by sha256
/// before it takes the file's name.
extension AudioTransfers {
    /// Brings a sermon's audio to this device. A fetch asked for by hand runs on a metered connection too; one
    /// that is not (an automatic transcription) throws `AudioCacheError.metered` there. Returns false when
    /// the copy was already here (it counts as a use).
    @discardableResult
    public func fetch(sermonId: String, byHand: Bool) async throws -> Bool {
        // A task of its own, so that `stop` ends a long fetch at once (the caller's socket connection is not
        // cancelled by a stop).
        let task = Task { try await self.fetchNow(sermonId: sermonId, byHand: byHand) }
        let key = Identifier.make()
        let stopped = gate.withLock { g in
            g.fetches[key] = (task, byHand)
            return g.stopped
        }
        if stopped { task.cancel() }
        defer { _ = gate.withLock { $0.fetches.removeValue(forKey: key) } }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch is CancellationError where !byHand && !Task.isCancelled && isHeld {
            // A metered connection stopped it: it waits with the rest (the partial file is kept for later).
            throw AudioCacheError.metered
        }
    }

    private func fetchNow(sermonId: String, byHand: Bool) async throws -> Bool {
        await swept()
        guard let item = try await store.read({ s in try s.audioItem(sermonId: sermonId) }) else {
            throw AudioCacheError.noAudio(sermonId)
        }
        return try await fetchLocked(item, byHand: byHand)
    }

    /// Under the sermon's lock: nothing else fetches or evicts this copy meanwhile.
    func fetchLocked(_ item: AudioItem, byHand: Bool) async throws -> Bool {
        await acquire(item.sermonId)
        defer { release(item.sermonId) }
        let current = try await store.read { s in try s.audioFile(sermonId: item.sermonId) }
        if let current, current.localAvailable, current.sha256 == item.sha256, let path = current.path,
           try await BlockingWork.run({ access(path, R_OK) == 0 }) {
            try await store.write { s in try s.touchAudio(sermonId: item.sermonId) }
            return false
        }
        guard settings.mode != .never else { throw AudioCacheError.downloadsOff }
        if !byHand && isHeld { throw AudioCacheError.metered }
        // The only copy of other audio (a conflict's loser, a restored older version) is never replaced.
        if let current, current.localAvailable, !current.uploaded, current.sha256 != item.sha256 {
            throw AudioCacheError.otherAudioNotUploaded(item.sermonId)
        }
        try await makeRoom(for: max(0, item.sizeBytes), keeping: item.sermonId)
        try await download(item, replacing: current?.path)
        // Fetches of other sermons that ran beside this one each made room for themselves alone.
        try await enforceBudget()
        if byHand { logger.info("audio fetched", metadata: ["sermon": "\(item.sermonId)", "bytes": "\(item.sizeBytes)"]) }
        return true
    }

    /// Waits until no other fetch or eviction of this sermon runs, then takes it.
    func acquire(_ sermonId: String) async {
        while busy.contains(sermonId) {
            await withCheckedContinuation { waitingForSermon[sermonId, default: []].append($0) }
        }
        busy.insert(sermonId)
    }

    func release(_ sermonId: String) {
        busy.remove(sermonId)
        for waiter in waitingForSermon.removeValue(forKey: sermonId) ?? [] { waiter.resume() }
    }

    /// The name a sermon's audio has here: `<sermonId><.ext>`, the extension from the record's file name.
    func finalPath(_ item: AudioItem) -> String {
        "\(audioDirectory)/\(item.sermonId)\(AudioFileName.storedExtension(of: item.fileName))"
    }

    /// Where a download of this very file (by its sha256) grows until it is verified.
    func partialPath(_ item: AudioItem) -> String {
        "\(audioDirectory)/\(item.sermonId).\(item.sha256.prefix(16)).download"
    }

    /// Downloads the file into its partial (resuming what an earlier attempt left), verifies it, moves it into
    /// place, and only then records it: a kill at any point leaves either a partial no row names (resumed by
    /// the next fetch) or a file the sweep at the next start recognises by its sha256.
    private func download(_ item: AudioItem, replacing oldPath: String?) async throws {
        let final = finalPath(item), partial = partialPath(item), directory = audioDirectory
        // `sizeBytes` comes from the sermon's record (another device's word, or a row predating the schema's
        // check): below 0 it is no size at all, and like 0 the download then always runs (the sha256 decides).
        var have: Int64 = try await BlockingWork.run {
            mkdir(directory, 0o700)
            let have = Self.fileSize(partial) ?? 0
            guard item.sizeBytes >= 0, have > item.sizeBytes else { return have }
            unlink(partial)
            return 0
        }
        // With no size to go by, a partial may be whole already (a Range past its end would answer 416 for ever).
        var whole = have > 0 && have == item.sizeBytes
        if item.sizeBytes <= 0, have > 0 {
            whole = try await Self.sha256(of: partial) == item.sha256
            if !whole {
                _ = try? await BlockingWork.run { unlink(partial) }
                have = 0
            }
        }
        publish(item, state: "fetching", bytes: have)
        do {
            if !whole {
                try await reportingProgress(of: item, growing: partial) { [client, have] in
                    do {
                        try await client.downloadAudio(sermonId: item.sermonId, to: partial, resumeFrom: have)
                    } catch {
                        // The transport never writes an error answer (404 before the upload, 5xx…) into the file;
                        // should anything else have been appended on a refused request, keep only the bytes we had.
                        // A network failure keeps what arrived (the next attempt resumes after it).
                        if case SyncFailure.network? = error as? SyncFailure {} else if !(error is CancellationError) {
                            truncate(partial, off_t(have))
                        }
                        throw error
                    }
                }
            }
            let actual = try await Self.sha256(of: partial)
            guard actual == item.sha256 else {
                // Never keep a file that is not the one the sermon names; start over next time.
                _ = try? await BlockingWork.run { unlink(partial) }
                throw SyncFailure.malformed("audio of \(item.sermonId) has sha256 \(actual), expected \(item.sha256)")
            }
            // The size the cache counts is the file's, not the record's word. (The transport fsynced the file.)
            let size: Int64 = try await BlockingWork.run {
                let size = Self.fileSize(partial) ?? 0
                guard rename(partial, final) == 0 else { throw SyncFailure.malformed("cannot move the audio into place") }
                DirectorySync.fsync(directory)
                return size
            }
            // Kept only if the record still names this audio, and no import or recording has given the sermon a
            // copy of its own meanwhile (neither takes this queue's lock).
            let kept = try await store.write { s -> Bool in
                guard try s.audioItem(sermonId: item.sermonId)?.sha256 == item.sha256 else { return false }
                if let now = try s.audioFile(sermonId: item.sermonId), now.localAvailable, now.path != oldPath { return false }
                try s.setAudioFile(AudioFileState(sermonId: item.sermonId, path: final, sha256: item.sha256, sizeBytes: size,
                                                  localAvailable: true, uploaded: true))
                return true
            }
            guard kept else {
                _ = try? await BlockingWork.run { unlink(final) }
                throw AudioCacheError.changed(item.sermonId)
            }
        } catch {
            publish(item, state: "failed", bytes: Self.fileSize(partial) ?? 0)
            throw error
        }
        // Older audio of the sermon under another name (a recording's) is no copy of anything now.
        if let oldPath, oldPath != final { _ = try? await BlockingWork.run { unlink(oldPath) } }
        publish(item, state: "done", bytes: max(0, item.sizeBytes))
        logger.debug("audio downloaded", metadata: ["sermon": "\(item.sermonId)", "bytes": "\(item.sizeBytes)"])
    }

    /// Runs the transfer while a sibling task reports the partial file's size twice a second (`audio.progress`).
    /// The stat(2) of a file the transfer is writing takes microseconds: it stays on the task, unlike the
    /// file work above.
    private func reportingProgress(of item: AudioItem, growing partial: String,
                                   _ transfer: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transfer() }
            group.addTask { [weak self] in
                while true {
                    try await Task.sleep(for: .milliseconds(500))
                    self?.publish(item, state: "fetching", bytes: Self.fileSize(partial) ?? 0)
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// An `audio.progress` event: `fetching` (with the bytes so far), `done`, `failed`, or `evicted`.
    nonisolated func publish(_ item: AudioItem, state: String, bytes: Int64) {
        var event = AudioProgressEvent()
        event.sermonId = item.sermonId
        event.state = state
        event.bytes = bytes
        event.total = item.sizeBytes > 0 ? item.sizeBytes : nil
        onEvent(EventTopic.audioProgress.rawValue, event.record)
    }

    static func fileSize(_ path: String) -> Int64? {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// The file's sha256, read off the cooperative pool (`BlockingWork`).
    static func sha256(of path: String) async throws -> String {
        try await BlockingWork.run {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw SyncFailure.malformed("cannot read \(path)") }
            defer { close(fd) }
            var hasher = SHA256()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                guard let n = try? buffer.withUnsafeMutableBytes({ try FileDescriptor(rawValue: fd).read(into: $0) }) else {
                    throw SyncFailure.malformed("read failed")
                }
                if n == 0 { break }
                hasher.update(data: buffer[0..<n])
            }
            return Hex.encode(hasher.finalize())
        }
    }
}
