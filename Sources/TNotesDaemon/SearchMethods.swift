import TNotesBible
import TNotesCore
import TNotesLifecycle
import TNotesRPC
import TNotesScripture
import TNotesStore

/// Contract §6.2: full-text search over everything noted or said, and sermons by the passages they cite.
struct SearchMethods {
    let store: Store
    let bible: Bible


    func register(into table: inout MethodTable) {
        let store = self.store
        Self.registerScripture(into: &table, bible: bible)

        table.add(MethodSpec(SearchQuery.self, summary: """
            Full-text search of titles and speakers, notes, transcript segments and summaries, best match first \
            (BM25). `q` is SQLite FTS5 syntax: words (stemmed: forgive finds forgiveness), "exact phrases", \
            prefix*, AND/OR/NOT, NEAR(). Matches are marked ** in the snippet.
            """, notes: [
                \.limit: "page size, default 20",
                \.after: "the `next` of the previous page",
                \.kinds: "only these kinds of hit",
                \.speaker: "only sermons by this speaker (case-insensitive)",
                \.from: "only sermons dated at or after this time",
                \.to: "only sermons dated at or before this time",
            ], result: ["type": "object", "properties": ["items": ["type": "array"], "next": ["type": ["string", "null"]]]],
            readOnly: true) { p, _ in
            let q = p.q
            let limit = Int(p.limit ?? 20)
            var offset = 0
            if let after = p.after ?? nil {
                guard let o = Int(after), o >= 0, o <= 100_000 else {
                    throw RPCError.invalidParams(field: SearchQuery.Params.name(\.after), reason: "is not a cursor returned by search.query")
                }
                offset = o
            }
            let filter = SearchFilter(kinds: p.kinds?.map(\.rawValue) ?? [], speaker: p.speaker, from: p.from, to: p.to)
            let hits: [SearchHit]
            do {
                // Small writes reach FTS a moment after they commit; a search first waits for that.
                try await store.catchUpSearch()
                hits = try await store.read { [offset] s in try s.search(q, filter: filter, limit: limit + 1, offset: offset) }
            } catch let e as SearchSyntaxError {
                throw RPCError.invalidParams(field: SearchQuery.Params.name(\.q), reason: "is not a valid search query (\(e.description)); "
                                             + "put words with special characters in double quotes")
            }
            var page = SearchPage()
            page.items = hits.prefix(limit).map(\.item)
            page.next = .some(hits.count > limit ? String(offset + limit) : nil)
            return page.fieldJSON
        })

        table.add(MethodSpec(SearchByReference.self, summary: "Every sermon that cites a passage: a book, a chapter of it, or a verse.",
                             notes: [\.book: "a book name or abbreviation (Rom, 1 Cor, Song of Songs)", \.verse: "needs chapter",
                                     \.limit: "default 200"],
                             result: ["type": "object", "properties": ["items": ["type": "array"]]], readOnly: true) { p, _ in
            guard let book = BibleBooks.canonicalName(p.book) else {
                throw RPCError.invalidParams(field: SearchByReference.Params.name(\.book), reason: "is not a book of the Bible: \(p.book)")
            }
            let chapter = p.chapter.map { Int($0) }
            if let chapter, chapter > BibleBooks.chapterCount(of: book) ?? 150 {
                throw RPCError.invalidParams(field: SearchByReference.Params.name(\.chapter),
                                             reason: "\(book) has \(BibleBooks.chapterCount(of: book) ?? 0) chapters")
            }
            let verse = p.verse.map { Int($0) }
            if verse != nil && chapter == nil {
                throw RPCError.invalidParams(field: SearchByReference.Params.name(\.verse), reason: "needs chapter")
            }
            let found = try await store.read { s in
                try s.referencesTouching(book: book, chapter: chapter, verse: verse, limit: Int(p.limit ?? 200))
            }
            var page = SearchPage()
            page.items = found.map { f in
                var hit = SearchItem()
                hit.sermonId = f.sermonId
                hit.recordId = f.recordId
                hit.kind = Self.kind(of: f.collection)
                hit.ref = f.reference.json
                hit.display = f.reference.display
                hit.place(at: f.start, note: f.collection == RecordCollection.notes.rawValue)
                return hit
            }
            return page.fieldJSON
        })
    }

    /// `scripture.text`: the passage from an installed SWORD module. SWORD reads compressed files and is
    /// synchronous, so it runs on NIO's blocking thread pool, never on the cooperative pool.
    static func registerScripture(into table: inout MethodTable, bible: Bible) {
        table.add(MethodSpec(ScriptureText.self, summary: "A Bible passage, offline, from the installed SWORD modules (KJV by default).",
                             notes: [
                                \.ref: "as people write it: John 3:16-18, Ps 23, 1 Cor 13:4",
                                \.translation: "KJV (sword-text-kjv, the default) or WEB (sword-text-web)",
                             ],
                             result: ["type": "object", "properties": ["reference": ["type": "string"], "translation": ["type": "string"],
                                                                       "verses": ["type": "array"]]], readOnly: true) { p, _ in
            let ref = p.ref
            let translation = p.translation ?? "KJV"
            guard ScriptureReferences.parse(ref) != nil else {
                throw RPCError.invalidParams(field: ScriptureText.Params.name(\.ref), reason: "is not a Bible reference (e.g. John 3:16-18)")
            }
            let result: Result<Passage, BibleError> = try await BlockingWork.run {
                Result { () throws(BibleError) -> Passage in try bible.passage(ref, translation: translation) }
            }
            switch result {
            case .success(let passage):
                return ["reference": .string(passage.reference), "translation": .string(passage.translation),
                        "verses": .array(passage.verses.map {
                            ["book": .string($0.book), "chapter": .int(Int64($0.chapter)), "verse": .int(Int64($0.verse)), "text": .string($0.text)]
                        })]
            case .failure(.translationMissing(let t, let package)):
                throw RPCError.unavailable("the \(t) Bible is not installed: apt-get install \(package)")
            case .failure(.unknownTranslation(let t)):
                throw RPCError.invalidParams(field: ScriptureText.Params.name(\.translation), reason: "unknown translation \(t) (known: \(Bible.translations.keys.sorted().joined(separator: ", ")))")
            case .failure(.noSuchPassage(let what)):
                throw RPCError.notFound("passage", id: what.isEmpty ? ref : what)
            }
        })
    }

    /// The singular kind of a collection, as search hits name it.
    static func kind(of collection: String) -> String {
        switch collection {
        case "sermons": return "sermon"
        case "notes": return "note"
        case "transcripts": return "transcript"
        case "summaries": return "summary"
        default: return collection
        }
    }
}
