import Logging
import TNotesCore
import TNotesLifecycle
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// The audio cache (contract §8.7): `audio_cache_bytes` caps the local copies. Copies the server holds go
/// first when stale (their sermon deleted, or its record naming other audio), then the least recently used.
/// A copy not yet uploaded is the only one and never goes; nor does one a transcription reads (`AudioPins`),
/// or one being fetched.
extension AudioTransfers {
    /// Drops this device's copy of a sermon's audio (`audio.evict`); false when there was none. Refused for
    /// the only copy (not uploaded yet) and for a copy in use.
    public func evict(sermonId: String) async throws -> Bool {
        await swept()
        await acquire(sermonId)
        defer { release(sermonId) }
        guard let file = try await store.read({ s in try s.audioFile(sermonId: sermonId) }), file.localAvailable else { return false }
        guard file.uploaded else { throw AudioCacheError.notUploaded(sermonId) }
        guard !pins.isPinned(sermonId) else { throw AudioCacheError.inUse(sermonId) }
        return try await drop(sermonId: sermonId, path: file.path, sha256: file.sha256, sizeBytes: file.sizeBytes ?? 0, why: "asked")
    }

    /// How much local audio there is, in bytes and copies (`sync.status`).
    public func usage() async throws -> (bytes: Int64, files: Int) {
        let copies = try await store.read { s in try s.localAudioCopies() }
        return (copies.reduce(0) { Self.adding($0, $1.sizeBytes) }, copies.count)
    }

    /// Evicts copies until the cache holds `incoming` more bytes within its budget. Throws `noRoom`, having
    /// evicted nothing, when even every evictable copy gone would not make the room; with `incoming` 0 it
    /// evicts what it can and says in the log what stays over.
    func makeRoom(for incoming: Int64, keeping: String? = nil) async throws {
        guard let budget = settings.cacheBytes else { return }
        let copies = try await store.read { s in try s.localAudioCopies() }
        var total = copies.reduce(0) { Self.adding($0, $1.sizeBytes) }
        guard Self.adding(total, incoming) > budget else { return }
        let evictable = copies.filter { $0.uploaded && $0.sermonId != keeping && !pins.isPinned($0.sermonId) && !busy.contains($0.sermonId) }
        let kept = total - evictable.reduce(0) { Self.adding($0, $1.sizeBytes) }
        if incoming > 0, Self.adding(kept, incoming) > budget {
            throw AudioCacheError.noRoom(size: incoming, room: max(0, budget - kept), budget: budget)
        }
        for copy in evictable where Self.adding(total, incoming) > budget {
            // Each under its sermon's lock, taken only when free (a fetch under way keeps its copy): waiting here
            // could wait on the very fetch that asked for the room.
            guard !busy.contains(copy.sermonId) else { continue }
            busy.insert(copy.sermonId)
            defer { release(copy.sermonId) }
            guard !pins.isPinned(copy.sermonId) else { continue }
            if try await drop(sermonId: copy.sermonId, path: copy.path, sha256: copy.sha256, sizeBytes: copy.sizeBytes,
                              why: copy.stale ? "stale" : "cache") {
                total -= copy.sizeBytes
            }
        }
        if Self.adding(total, incoming) > budget, incoming == 0 {
            logger.warning("the audio cache is over its budget: the rest is audio not yet uploaded or in use",
                           metadata: ["bytes": "\(total)", "budget": "\(budget)"])
        }
    }

    func enforceBudget() async throws { try await makeRoom(for: 0) }

    /// Evicts one copy, if the row still names it (an import or a recording may have replaced it since it was
    /// read: that one stays). The store first, then the file: a kill between the two leaves a file no row
    /// claims, which the next start's sweep removes. The other order could leave a row saying "here" with no
    /// file. Whether it was evicted.
    func drop(sermonId: String, path: String?, sha256: String?, sizeBytes: Int64, why: String) async throws -> Bool {
        guard try await store.write({ s in try s.markAudioEvicted(sermonId: sermonId, path: path, sha256: sha256) }) else {
            return false
        }
        if let path {
            let directory = audioDirectory
            try await BlockingWork.run {
                unlink(path)
                DirectorySync.fsync(directory)
            }
        }
        publish(AudioItem(sermonId: sermonId, sha256: "", sizeBytes: sizeBytes, fileName: ""), state: "evicted", bytes: 0)
        logger.info("audio evicted", metadata: ["sermon": "\(sermonId)", "bytes": "\(sizeBytes)", "why": "\(why)"])
        return true
    }

    /// Sizes come from records (another device's word): a sum saturates instead of trapping.
    static func adding(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(max(0, b))
        return overflow ? .max : sum
    }
}
