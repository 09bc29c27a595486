import TNotesCore
import TNotesSQLite

/// Writes of a sermon's transcript, summary and processing statuses, shared by the record methods
/// (`transcript.set`, `summary.set`) and the processing worker, so a generated transcript is stored exactly as
/// a typed one would be.
extension StoreSession {
    /// The record, which must exist and not be a tombstone (a tombstone is gone for writes).
    public func liveRecord(_ c: RecordCollection, _ id: String) throws -> StoredRecord {
        guard let rec = try record(c, id: id) else { throw StoreError.notFound(collection: c.rawValue, id: id) }
        if rec.isDeleted { throw StoreError.gone(collection: c.rawValue, id: id) }
        return rec
    }

    /// Throws as `liveRecord` does, without reading the record: for a write that only needs its parent to
    /// exist (a note.add parsed the whole sermon body to learn that).
    public func requireLive(_ c: RecordCollection, _ id: String) throws {
        // A live sermon is found in the index of live sermons alone (store v10), without the seek into the
        // table for its row that `deleted_at` costs: that seek was half of this look-up, which every note.add
        // makes (perf of a bulk import, 2026-11-30). The full look-up below tells a missing one from a deleted one.
        if c == .sermons, try !db.query("""
            SELECT 1 FROM records INDEXED BY records_live_sermons WHERE id = ? AND collection = 'sermons' AND deleted_at IS NULL
            """, [.text(id)]).isEmpty {
            return
        }
        let rows = try db.query("SELECT deleted_at IS NOT NULL FROM records WHERE collection = ? AND id = ?", [.text(c.rawValue), .text(id)])
        guard let row = rows.first else { throw StoreError.notFound(collection: c.rawValue, id: id) }
        if row[0].int == 1 { throw StoreError.gone(collection: c.rawValue, id: id) }
    }

    /// The newest live child of a sermon in a one-per-sermon collection (transcripts, summaries).
    public func newestChild(_ c: RecordCollection, sermonId: String) throws -> StoredRecord? {
        try children(c, sermonId: sermonId).max { $0.version < $1.version }
    }

    /// Creates or replaces the sermon's transcript; the sermon's `transcriptionStatus` follows `status`.
    @discardableResult
    public func setTranscript(sermonId: String, text: JSON, status: JSON, segments: JSON) throws -> StoredRecord {
        let sermon = try liveRecord(.sermons, sermonId)
        let id = try newestChild(.transcripts, sermonId: sermonId)?.id ?? Identifier.derivedInOrder(from: sermonId, kind: "transcript")
        let record: JSONObject = [
            "id": .string(id), "sermonId": .string(sermonId), "text": text, "status": status, "segments": segments,
            "updatedAt": .string(stamp()), "deletedAt": .null,
        ]
        let saved = try commitLocal(.transcripts, record: record, op: .upsert)
        try follow(sermon, key: "transcriptionStatus", status: status)
        return saved
    }

    /// Creates or replaces the sermon's summary; the sermon's `summaryStatus` follows `status`.
    /// `generatedBy` names the engine that wrote it (nil: a person did, and automatic jobs leave it alone).
    @discardableResult
    public func setSummary(sermonId: String, title: JSON, text: JSON, type: JSON, status: JSON,
                           generatedBy: String?) throws -> StoredRecord {
        let sermon = try liveRecord(.sermons, sermonId)
        let id = try newestChild(.summaries, sermonId: sermonId)?.id ?? Identifier.derivedInOrder(from: sermonId, kind: "summary")
        var record: JSONObject = [
            "id": .string(id), "sermonId": .string(sermonId), "title": title, "text": text, "type": type, "status": status,
            "updatedAt": .string(stamp()), "deletedAt": .null,
        ]
        // Absent for a person's summary (as every summary before the field existed).
        if let generatedBy { record["generatedBy"] = .string(generatedBy) }
        let saved = try commitLocal(.summaries, record: record, op: .upsert)
        try follow(sermon, key: "summaryStatus", status: status)
        return saved
    }

    /// Sets a sermon's `transcriptionStatus` or `summaryStatus` (a synced field like any other).
    public func setProcessingStatus(sermonId: String, key: String, status: String) throws {
        try follow(try liveRecord(.sermons, sermonId), key: key, status: .string(status))
    }

    /// The sermon's status field follows the status of what was just set, in the same transaction (so a
    /// list never shows "pending" for a sermon whose transcript is complete).
    private func follow(_ sermon: StoredRecord, key: String, status: JSON) throws {
        guard sermon.body[key] != status else { return }
        var body = sermon.body
        body[key] = status
        body["updatedAt"] = .string(stamp())
        try commitLocal(.sermons, record: body, op: .upsert)
    }
}
