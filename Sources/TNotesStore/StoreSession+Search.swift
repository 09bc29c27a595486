import TNotesCore
import TNotesScripture
import TNotesSQLite

/// One hit of `search.query` (contract §6.2).
public struct SearchHit: Sendable, Equatable {
    public let sermonId: String
    public let kind: String
    public let recordId: String
    public let snippet: String
    /// Seconds into the audio: a transcript segment's start or a note's timestamp.
    public let start: Double?
    public let rank: Double

    /// The hit as `search.query` answers it.
    public var item: SearchItem {
        var item = SearchItem()
        item.sermonId = sermonId
        item.kind = kind
        item.recordId = recordId
        item.snippet = snippet
        item.rank = rank
        item.place(at: start, note: kind == "note")
        return item
    }
}

/// What narrows a search: record kinds, the sermon's speaker, and its date.
public struct SearchFilter: Sendable {
    public var kinds: [String] = []
    public var speaker: String?
    /// Inclusive bounds on the sermon's `date` (canonical RFC 3339 strings compare in time order).
    public var from: String?
    public var to: String?

    public init(kinds: [String] = [], speaker: String? = nil, from: String? = nil, to: String? = nil) {
        self.kinds = kinds
        self.speaker = speaker
        self.from = from
        self.to = to
    }
}

/// The FTS5 query the user typed was not valid FTS5 syntax (the message is SQLite's).
public struct SearchSyntaxError: Error, CustomStringConvertible {
    public let description: String
}

extension StoreSession {
    /// Markers around each match in a snippet (Markdown bold, so a snippet pasted anywhere reads well).
    public static let snippetMarks = ("**", "**")

    /// Full-text search, best match first (BM25), a page at a time from `offset`. Tombstoned records and
    /// everything of a deleted sermon never appear: their index rows go in the transaction that deletes them,
    /// and the sermon join checks again.
    public func search(_ query: String, filter: SearchFilter, limit: Int, offset: Int) throws -> [SearchHit] {
        // ORDER BY rank (FTS5's own bm25 column), not ORDER BY bm25(...): FTS5 then sorts the matches inside
        // its cursor and SQLite reads them in order, so snippet() runs only for the rows the LIMIT keeps. With
        // ORDER BY bm25() every match's snippet was made before the sort (p99 210 ms for a prefix matching
        // 5,000 rows of 100 k notes; the bench's search.query figure).
        var sql = """
            SELECT d.sermon_id, d.kind, d.record_id,
                   snippet(search_index, 0, ?, ?, '…', 16), d.start, search_index.rank
            FROM search_index
            JOIN search_docs AS d ON d.doc = search_index.rowid
            JOIN records AS s ON s.collection = 'sermons' AND s.id = d.sermon_id AND s.deleted_at IS NULL
            WHERE search_index MATCH ?
            """
        var args: [SQLValue] = [.text(Self.snippetMarks.0), .text(Self.snippetMarks.1), .text(query)]
        if !filter.kinds.isEmpty {
            sql += " AND d.kind IN (\(filter.kinds.map { _ in "?" }.joined(separator: ", ")))"
            args += filter.kinds.map { .text($0) }
        }
        if let speaker = filter.speaker {
            sql += " AND json_extract(s.body, '$.speaker') = ? COLLATE NOCASE"
            args.append(.text(speaker))
        }
        if let from = filter.from {
            sql += " AND s.sort_key >= ?"
            args.append(.text(from))
        }
        if let to = filter.to {
            sql += " AND s.sort_key <= ?"
            args.append(.text(to))
        }
        sql += " ORDER BY search_index.rank LIMIT ? OFFSET ?"
        args += [.int(Int64(limit)), .int(Int64(offset))]
        do {
            return try db.query(sql, args).map {
                SearchHit(sermonId: $0[0].string ?? "", kind: $0[1].string ?? "", recordId: $0[2].string ?? "",
                          snippet: $0[3].string ?? "", start: $0[4].double, rank: $0[5].double ?? 0)
            }
        } catch let error as SQLiteError where error.isQueryError {
            throw SearchSyntaxError(description: error.message)
        }
    }

    // MARK: Scripture references

    /// Rewrites the references of one record (called by `apply` beside the record's write).
    func indexReferences(collection: RecordCollection, record: JSONObject, replacing: Bool,
                         found: [(ScriptureReference, Double?)]?) throws {
        try ReferenceIndex.index(db, collection: collection, record: record, replacing: replacing, found: found)
    }

    /// The distinct references of a sermon (its title, notes, transcript and summary), in the order the
    /// sermon first cites them: the title, then by time in the audio, then the summary.
    public func scriptureReferences(sermonId: String) throws -> [ScriptureReference] {
        let rows = try db.query("""
            SELECT book, chapter, verse_start, verse_end FROM scripture_refs INDEXED BY scripture_refs_by_sermon
            WHERE sermon_id = ?
            ORDER BY CASE collection WHEN 'sermons' THEN 0 WHEN 'summaries' THEN 2 ELSE 1 END, start, ordinal, record_id
            """, [.text(sermonId)])
        var seen = Set<ScriptureReference>()
        var out: [ScriptureReference] = []
        for r in rows {
            let ref = ScriptureReference(book: r[0].string ?? "", chapter: Int(r[1].int ?? 0),
                                         verseStart: r[2].int.map { Int($0) }, verseEnd: r[3].int.map { Int($0) })
            if seen.insert(ref).inserted { out.append(ref) }
        }
        return out
    }

    /// Every place a live sermon touches a passage: `book`, optionally its `chapter`, optionally a `verse`
    /// inside a cited range (a whole-chapter citation touches every verse of it). Newest sermon first.
    public func referencesTouching(book: String, chapter: Int?, verse: Int?, limit: Int) throws
        -> [(sermonId: String, recordId: String, collection: String, reference: ScriptureReference, start: Double?)]
    {
        var sql = """
            SELECT r.sermon_id, r.record_id, r.collection, r.book, r.chapter, r.verse_start, r.verse_end, r.start
            FROM scripture_refs AS r INDEXED BY scripture_refs_by_passage
            JOIN records AS s ON s.collection = 'sermons' AND s.id = r.sermon_id AND s.deleted_at IS NULL
            WHERE r.book = ?
            """
        var args: [SQLValue] = [.text(book)]
        if let chapter {
            sql += " AND r.chapter = ?"
            args.append(.int(Int64(chapter)))
            if let verse {
                sql += " AND (r.verse_start IS NULL OR (r.verse_start <= ? AND coalesce(r.verse_end, r.verse_start) >= ?))"
                args += [.int(Int64(verse)), .int(Int64(verse))]
            }
        }
        sql += " ORDER BY s.sort_key DESC, s.id, r.start, r.ordinal LIMIT ?"
        args.append(.int(Int64(limit)))
        return try db.query(sql, args).map {
            (sermonId: $0[0].string ?? "", recordId: $0[1].string ?? "", collection: $0[2].string ?? "",
             reference: ScriptureReference(book: $0[3].string ?? "", chapter: Int($0[4].int ?? 0),
                                           verseStart: $0[5].int.map { Int($0) }, verseEnd: $0[6].int.map { Int($0) }),
             start: $0[7].double)
        }
    }
}

extension ScriptureReference {
    /// The contract's shape: `{book, chapter, verseStart?, verseEnd?}`.
    public var json: JSON {
        var o: JSONObject = ["book": .string(book), "chapter": .int(Int64(chapter))]
        if let verseStart { o[SearchKey.scriptureCitationVerseStart] = .int(Int64(verseStart)) }
        if let verseEnd { o[SearchKey.scriptureCitationVerseEnd] = .int(Int64(verseEnd)) }
        return .object(o)
    }
}

/// The scripture reference index: what `apply` keeps and a store open refills (it needs the Swift parser,
/// so no SQL trigger can keep it).
enum ReferenceIndex {
    /// Every reference a record cites, in order, with its place in the audio (none for a tombstone). Pure:
    /// a pulled page's references are found off the store queue (`PreparedChange`).
    static func found(_ collection: RecordCollection, _ record: JSONObject) -> [(ScriptureReference, Double?)] {
        guard Self.referenceCollections.contains(collection), record.deletedAt == nil else { return [] }
        return Self.referenceTexts(collection, record).flatMap { text, start in
            ScriptureReferences.references(in: text).map { ($0, start) }
        }
    }

    /// Rewrites the references of one record (`found`: already parsed off the store queue).
    static func index(_ db: SQLiteConnection, collection: RecordCollection, record: JSONObject, replacing: Bool = true,
                      found: [(ScriptureReference, Double?)]? = nil) throws {
        guard Self.referenceCollections.contains(collection) else { return }
        let id = record.recordId
        if replacing {
            try db.run("DELETE FROM scripture_refs WHERE collection = ? AND record_id = ?", [.text(collection.rawValue), .text(id)])
        }
        guard record.deletedAt == nil else { return }
        let sermonId = collection == .sermons ? id : (record.sermonId ?? "")
        var ordinal = 0
        for (ref, start) in found ?? Self.found(collection, record) {
            try db.run("""
                INSERT INTO scripture_refs(collection, record_id, sermon_id, ordinal, book, chapter, verse_start, verse_end, start)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(collection.rawValue), .text(id), .text(sermonId), .int(Int64(ordinal)), .text(ref.book),
                      .int(Int64(ref.chapter)), ref.verseStart.map { .int(Int64($0)) } ?? .null,
                      ref.verseEnd.map { .int(Int64($0)) } ?? .null, start.map { .double($0) } ?? .null])
            ordinal += 1
        }
    }

    static let referenceCollections: Set<RecordCollection> = [.sermons, .notes, .transcripts, .summaries]

    /// The pieces of a record that may cite scripture, each with its place in the audio when it has one.
    static func referenceTexts(_ c: RecordCollection, _ r: JSONObject) -> [(String, Double?)] {
        switch c {
        case .sermons: return [(r[SearchKey.sermonTitle]?.stringValue ?? "", nil)]
        case .notes: return [(r[SearchKey.noteText]?.stringValue ?? "", r[SearchKey.noteTimestamp]?.doubleValue)]
        case .summaries: return [(r[SearchKey.summaryText]?.stringValue ?? "", nil)]
        case .transcripts:
            if case .array(let segments)? = r[SearchKey.transcriptSegments], !segments.isEmpty {
                return segments.map { ($0[SearchKey.transcriptSegmentText]?.stringValue ?? "", $0[SearchKey.transcriptSegmentStart]?.doubleValue) }
            }
            return [(r[SearchKey.transcriptText]?.stringValue ?? "", nil)]
        default: return []
        }
    }

    /// Whether the reference index was filled by the current parser.
    static func isCurrent(_ db: SQLiteConnection) throws -> Bool {
        try db.scalar("SELECT version FROM derived_state WHERE name = 'scripture_refs'").int == Int64(ScriptureReferences.parserVersion)
    }

    /// Refills the reference index from every live record (a new store version or parser). Returns the count.
    static func rebuild(_ db: SQLiteConnection) throws -> Int {
        try db.run("DELETE FROM scripture_refs")
        var count = 0
        for c in Self.referenceCollections {
            for row in try db.query("SELECT body FROM records WHERE collection = ? AND deleted_at IS NULL", [.text(c.rawValue)]) {
                // A body that does not parse (a row written by hand) cites nothing; it must not stop the store opening.
                guard let text = row[0].string, case .object(let body)? = try? JSON.parse(text) else { continue }
                try index(db, collection: c, record: body)
                count += 1
            }
        }
        try db.run("INSERT INTO derived_state(name, version) VALUES ('scripture_refs', ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version",
                   [.int(Int64(ScriptureReferences.parserVersion))])
        return count
    }
}

/// The members search reads and writes, by their fields' descriptors: looked up once.
private enum SearchKey {
    static let noteText = Note.name(\.text)
    static let noteTimestamp = Note.name(\.timestamp)
    static let scriptureCitationVerseEnd = ScriptureCitation.name(\.verseEnd)
    static let scriptureCitationVerseStart = ScriptureCitation.name(\.verseStart)
    static let sermonTitle = Sermon.name(\.title)
    static let summaryText = Summary.name(\.text)
    static let transcriptSegments = Transcript.name(\.segments)
    static let transcriptText = Transcript.name(\.text)
    static let transcriptSegmentStart = Transcript.Segment.name(\.start)
    static let transcriptSegmentText = Transcript.Segment.name(\.text)
}
