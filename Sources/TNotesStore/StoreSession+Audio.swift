import TNotesCore
import TNotesSQLite

/// A sermon's audio as its record names it: what a download or a fetch brings.
public struct AudioItem: Sendable, Equatable {
    public let sermonId: String
    public let sha256: String
    /// The record's word (another device's): below 0 it is no size at all.
    public let sizeBytes: Int64
    public let fileName: String

    public init(sermonId: String, sha256: String, sizeBytes: Int64, fileName: String) {
        self.sermonId = sermonId
        self.sha256 = sha256
        self.sizeBytes = sizeBytes
        self.fileName = fileName
    }
}

/// A copy of audio this device holds, as the cache (`[sync] audio_cache_bytes`) weighs it.
public struct LocalAudioCopy: Sendable, Equatable {
    public let sermonId: String
    public let path: String?
    public let sizeBytes: Int64
    /// The server holds this file: the copy may go (it can be fetched again).
    public let uploaded: Bool
    /// The sermon is deleted, or its record names other audio now: such copies go first.
    public let stale: Bool
    public let sha256: String?
}

/// This device's copies of sermon audio (`audio_files`, never synced): where each is, whether the server holds
/// it, and when it was last used.
extension StoreSession {
    public func audioFile(sermonId: String) throws -> AudioFileState? {
        try db.query("""
            SELECT sermon_id, path, sha256, size_bytes, local_available, uploaded FROM audio_files WHERE sermon_id = ?
            """, [.text(sermonId)]
        ).first.map(Self.audioFileState)
    }

    /// Every row: what the start-up sweep compares with the files in the audio directory.
    public func audioFiles() throws -> [AudioFileState] {
        try db.query("SELECT sermon_id, path, sha256, size_bytes, local_available, uploaded FROM audio_files")
            .map(Self.audioFileState)
    }

    private static func audioFileState(_ row: Row) -> AudioFileState {
        AudioFileState(sermonId: row[0].string ?? "", path: row[1].string, sha256: row[2].string, sizeBytes: row[3].int,
                       localAvailable: (row[4].int ?? 0) != 0, uploaded: (row[5].int ?? 0) != 0)
    }

    /// Writes this device's copy of a sermon's audio. `used`: the write is a use of the copy (an import, a
    /// download); the upload's flag is not, and keeps the last use it had.
    public func setAudioFile(_ state: AudioFileState, used: Bool = true) throws {
        let now = Timestamp.now()
        try db.run("""
            INSERT INTO audio_files(sermon_id, path, sha256, size_bytes, local_available, uploaded, updated_at, last_used_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(sermon_id) DO UPDATE SET path = excluded.path, sha256 = excluded.sha256,
              size_bytes = excluded.size_bytes, local_available = excluded.local_available,
              uploaded = excluded.uploaded, updated_at = excluded.updated_at,
              last_used_at = coalesce(?, audio_files.last_used_at, excluded.last_used_at)
            """,
            [.text(state.sermonId), SQLValue(state.path), SQLValue(state.sha256), state.sizeBytes.map { .int($0) } ?? .null,
             .int(state.localAvailable ? 1 : 0), .int(state.uploaded ? 1 : 0), .text(now), .text(now),
             used ? .text(now) : .null])
    }

    /// The server holds this copy now, if the row still names it (an import may have replaced it while the
    /// upload ran: that one must still go up).
    public func markAudioUploaded(sermonId: String, sha256: String) throws {
        try db.run("UPDATE audio_files SET uploaded = 1, updated_at = ? WHERE sermon_id = ? AND sha256 = ? AND local_available = 1",
                   [.text(Timestamp.now()), .text(sermonId), .text(sha256)])
    }

    /// A use of the local copy (a transcription reads it): the cache keeps it longer.
    public func touchAudio(sermonId: String) throws {
        try db.run("UPDATE audio_files SET last_used_at = ? WHERE sermon_id = ? AND local_available = 1",
                   [.text(Timestamp.now()), .text(sermonId)])
    }

    /// An evicted copy: the row stays, and keeps that the server holds the file, so the copy is not
    /// downloaded again by itself and shows `uploaded`. Only while the row still names that very copy, the
    /// server's (an import or a recording may have replaced it meanwhile); whether it did.
    public func markAudioEvicted(sermonId: String, path: String?, sha256: String?) throws -> Bool {
        try db.run("""
            UPDATE audio_files SET local_available = 0, path = NULL, updated_at = ?
            WHERE sermon_id = ? AND path IS ? AND sha256 IS ? AND local_available = 1 AND uploaded = 1
            """, [.text(Timestamp.now()), .text(sermonId), SQLValue(path), SQLValue(sha256)])
        return db.changes > 0
    }

    /// Forgets a copy whose file is gone from the disk (removed by hand): as if it had never been here. Only
    /// while the row still names that file.
    public func forgetAudioFile(sermonId: String, path: String?) throws {
        try db.run("DELETE FROM audio_files WHERE sermon_id = ? AND path IS ? AND local_available = 1", [.text(sermonId), SQLValue(path)])
    }

    /// Records a copy found on the disk, unless the sermon has a row by now; whether it did.
    public func adoptAudioFile(_ state: AudioFileState) throws -> Bool {
        let now = Timestamp.now()
        try db.run("""
            INSERT INTO audio_files(sermon_id, path, sha256, size_bytes, local_available, uploaded, updated_at, last_used_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(sermon_id) DO NOTHING
            """,
            [.text(state.sermonId), SQLValue(state.path), SQLValue(state.sha256), state.sizeBytes.map { .int($0) } ?? .null,
             .int(state.localAvailable ? 1 : 0), .int(state.uploaded ? 1 : 0), .text(now), .text(now)])
        return db.changes > 0
    }

    /// The copies this device holds, in the order the cache evicts them: stale copies first, then the least
    /// recently used.
    public func localAudioCopies() throws -> [LocalAudioCopy] {
        try db.query("""
            SELECT a.sermon_id, a.path, a.size_bytes, a.uploaded,
                   (r.id IS NULL OR r.deleted_at IS NOT NULL OR json_extract(r.body, '$.audio.sha256') IS NOT a.sha256) AS stale,
                   a.sha256
            FROM audio_files a LEFT JOIN records r ON r.collection = 'sermons' AND r.id = a.sermon_id
            WHERE a.local_available = 1
            ORDER BY stale DESC, coalesce(a.last_used_at, a.updated_at), a.sermon_id
            """
        ).map {
            LocalAudioCopy(sermonId: $0[0].string ?? "", path: $0[1].string, sizeBytes: max(0, $0[2].int ?? 0),
                           uploaded: ($0[3].int ?? 0) != 0, stale: ($0[4].int ?? 0) != 0, sha256: $0[5].string)
        }
    }

    /// The audio a live sermon's record names (nil: no such sermon, or no audio).
    public func audioItem(sermonId: String) throws -> AudioItem? {
        try db.query("""
            SELECT id, json_extract(body, '$.audio.sha256'), json_extract(body, '$.audio.sizeBytes'), json_extract(body, '$.audio.fileName')
            FROM records WHERE collection = 'sermons' AND id = ? AND deleted_at IS NULL AND json_extract(body, '$.audio.sha256') IS NOT NULL
            """, [.text(sermonId)]
        ).first.map(Self.audioItem)
    }

    private static func audioItem(_ row: Row) -> AudioItem {
        AudioItem(sermonId: row[0].string ?? "", sha256: row[1].string ?? "", sizeBytes: row[2].int ?? 0, fileName: row[3].string ?? "audio")
    }

    /// Sermons whose audio (by sha256) this device does not hold yet, oldest change first (with a cache, the
    /// newest are downloaded last and stay). A copy evicted here (the row says the server holds that very
    /// file) is not: only a fetch brings it back.
    public func audioToDownload(limit: Int = 50) throws -> [AudioItem] {
        try db.query("""
            SELECT r.id, json_extract(r.body, '$.audio.sha256'), json_extract(r.body, '$.audio.sizeBytes'),
                   json_extract(r.body, '$.audio.fileName')
            FROM records r LEFT JOIN audio_files a ON a.sermon_id = r.id
            WHERE r.collection = 'sermons' AND r.deleted_at IS NULL AND json_extract(r.body, '$.audio.sha256') IS NOT NULL
              AND (a.sermon_id IS NULL OR a.sha256 IS NOT json_extract(r.body, '$.audio.sha256')
                   OR (a.local_available = 0 AND a.uploaded = 0))
            ORDER BY r.updated_at, r.id
            LIMIT ?
            """, [.int(Int64(limit))]
        ).map(Self.audioItem)
    }

    /// Local audio not yet on the server, whose sermon the server already has (its record is synced).
    public func audioToUpload(limit: Int = 50) throws -> [AudioFileState] {
        try db.query("""
            SELECT a.sermon_id, a.path, a.sha256, a.size_bytes FROM audio_files a
            JOIN records ON records.collection = 'sermons' AND records.id = a.sermon_id
            WHERE a.local_available = 1 AND a.uploaded = 0 AND records.deleted_at IS NULL AND (\(Self.syncStateSQL)) = 'synced'
              AND json_extract(records.body, '$.audio.sha256') = a.sha256
            LIMIT ?
            """, [.int(Int64(limit))]
        ).map { AudioFileState(sermonId: $0[0].string ?? "", path: $0[1].string, sha256: $0[2].string,
                               sizeBytes: $0[3].int, localAvailable: true, uploaded: false) }
    }

    /// A replaced server (contract §6.3) may not hold the audio it once had: every local copy is uploaded
    /// again, and none is evicted as "on the server" until it is.
    public func forgetAudioUploads() throws {
        try db.run("UPDATE audio_files SET uploaded = 0 WHERE uploaded = 1")
    }
}
