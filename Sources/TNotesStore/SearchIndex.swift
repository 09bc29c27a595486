import TNotesCore
import TNotesSQLite

/// Keeps the full-text index in step with the records, written by `StoreSession.apply` beside each record
/// (the one place a record's body is written), in the same transaction.
///
/// Why Swift and not triggers (store v6 used triggers on `records`): FTS5 writes its pending terms to disk
/// at every statement savepoint, and a trigger makes every record write a statement with a savepoint, so
/// each record left a tiny FTS segment behind for the merger: applying a pulled 120 k-record sync (310 k
/// rows) cost 7 s in the index alone, against 0.7 s for the same rows added in one statement. Here the
/// `search_docs` rows are written as the record is, and their FTS entries are added later in one statement
/// (`SearchBacklog.flush`); removals are single-row FTS 'delete' commands, made at once.
///
/// What a record contributes is exactly what the `search_source` view (store v6) selects; a test holds the
/// two equal after every kind of write.
enum SearchIndex {
    static let collections: Set<RecordCollection> = [.sermons, .notes, .transcripts, .summaries]

    struct Document: Equatable, Sendable {
        let sermonId: String
        let kind: String
        let start: Double?
        let body: String
    }

    /// The searchable pieces of a live record (none for a tombstone).
    static func documents(_ collection: RecordCollection, _ r: JSONObject) -> [Document] {
        guard r.deletedAt == nil else { return [] }
        let id = r.recordId, sermonId = r.sermonId ?? ""
        switch collection {
        case .sermons:
            guard let title = r[Key.sermonTitle]?.stringValue else { return [] }
            return [Document(sermonId: id, kind: "sermon", start: nil, body: title + " " + (r[Key.sermonSpeaker]?.stringValue ?? ""))]
        case .notes:
            guard let text = r[Key.noteText]?.stringValue else { return [] }
            return [Document(sermonId: sermonId, kind: "note", start: r[Key.noteTimestamp]?.doubleValue, body: text)]
        case .transcripts:
            guard case .array(let segments)? = r[Key.transcriptSegments] else { return [] }
            if segments.isEmpty {
                guard let text = r[Key.transcriptText]?.stringValue else { return [] }
                return [Document(sermonId: sermonId, kind: "transcript", start: nil, body: text)]
            }
            return segments.compactMap { seg in
                seg[Key.transcriptSegmentText]?.stringValue.map { Document(sermonId: sermonId, kind: "transcript", start: seg[Key.transcriptSegmentStart]?.doubleValue, body: $0) }
            }
        case .summaries:
            guard let title = r[Key.summaryTitle]?.stringValue, let text = r[Key.summaryText]?.stringValue else { return [] }
            return [Document(sermonId: sermonId, kind: "summary", start: nil, body: title + "\n" + text)]
        default:
            return []
        }
    }

    /// Replaces one record's rows: the old ones leave `search_docs` (and FTS, if they were in it) at once,
    /// the new ones are written to `search_docs` under rowids from `backlog` and wait for its flush.
    ///
    /// `deferNew`: a new record (not `replacing`) leaves its rows to `SearchBacklog.derivePending` (a pull
    /// holding the index does this).
    static func reindex(_ db: SQLiteConnection, collection: RecordCollection, record: JSONObject, replacing: Bool,
                        deferNew: Bool = false, backlog: inout SearchBacklog) throws {
        guard collections.contains(collection) else { return }
        let id = record.recordId
        if deferNew && !replacing {
            if record.deletedAt == nil { try backlog.deferRecord(db, collection: collection.rawValue, id: id) }
            return
        }
        if replacing {
            try backlog.undefer(db, collection: collection.rawValue, id: id)
            let old = try db.query("SELECT doc, body FROM search_docs WHERE collection = ? AND record_id = ?",
                                   [.text(collection.rawValue), .text(id)])
            for row in old {
                // A row above the watermark never reached FTS: leaving search_docs is all it has to do.
                guard let doc = row[0].int, !backlog.isPending(doc) else { continue }
                try db.run("INSERT INTO search_index(search_index, rowid, body) VALUES ('delete', ?, ?)", [.int(doc), row[1]])
            }
            if !old.isEmpty {
                try db.run("DELETE FROM search_docs WHERE collection = ? AND record_id = ?", [.text(collection.rawValue), .text(id)])
            }
        }
        for d in Self.documents(collection, record) {
            try db.run("""
                INSERT INTO search_docs(doc, collection, record_id, sermon_id, kind, start, body) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.int(backlog.allocate()), .text(collection.rawValue), .text(id), .text(d.sermonId), .text(d.kind),
                      d.start.map { .double($0) } ?? .null, .text(d.body)])
        }
    }
}

/// The members the index reads, by their fields' descriptors: looked up once (the pull indexes every record).
private enum Key {
    static let noteText = Note.name(\.text)
    static let noteTimestamp = Note.name(\.timestamp)
    static let sermonSpeaker = Sermon.name(\.speaker)
    static let sermonTitle = Sermon.name(\.title)
    static let summaryText = Summary.name(\.text)
    static let summaryTitle = Summary.name(\.title)
    static let transcriptSegments = Transcript.name(\.segments)
    static let transcriptText = Transcript.name(\.text)
    static let transcriptSegmentStart = Transcript.Segment.name(\.start)
    static let transcriptSegmentText = Transcript.Segment.name(\.text)
}
