import TNotesCore
import TNotesRPC
import TNotesStore

/// Contract §6.5: publishing a sermon as a public page, seed 004's publish/unpublish done right. A publish
/// and an unpublish are each one write of the sermon's `publications` record, queued in the outbox like any
/// change: the record holds the snapshot as a JSON object and always its `publicId`, so the queued op is
/// complete when it is made and is sent exactly as queued, however much later that is.
struct PublishMethods {
    let store: Store
    /// The sync server's base URL (pages live at `<base>/p/<publicId>`); nil when sync is off.
    let publicBaseURL: String?

    static let publicationResult: JSON = ["$ref": "#/components/schemas/Publication"]

    func register(into table: inout MethodTable) {
        let store = self.store, base = publicBaseURL

        table.add(MethodSpec("sermon.publish", summary: """
            Publish a snapshot of the sermon (default parts: notes and summary) as a public page; publishing \
            again replaces the snapshot at the same address. Works offline: it is queued and syncs.
            """, params: [
                ParamSpec("id", .uuid, required: true),
                ParamSpec("parts", .arrayOf(.enumeration(RecordSchema.publicationParts)), "what to publish: notes, summary, transcript"),
                ParamSpec("slug", .text, "the readable part of the page's address (default: from the title); kept on later publishes"),
            ], result: Self.publicationResult) { p, _ in
            let sermonId = try p.requiredString("id")
            let asked = p["parts"]?.arrayValue?.compactMap(\.stringValue) ?? ["notes", "summary"]
            let parts = RecordSchema.publicationParts.filter(asked.contains)
            guard !parts.isEmpty else { throw RPCError.invalidParams(field: "parts", reason: "must name at least one part") }
            if let slug = p.string("slug"), PublicId.slug(slug).isEmpty {
                throw RPCError.invalidParams(field: "slug", reason: "must contain letters or digits")
            }
            return try await store.write { s in
                let sermon = try s.liveRecord(.sermons, sermonId)
                let id = Identifier.derived(from: sermonId, kind: "publication")
                let existing = try s.record(.publications, id: id)
                let publicId = existing?.body["publicId"]?.stringValue
                    ?? PublicId.make(title: p.string("slug") ?? sermon.body["title"]?.stringValue ?? "sermon")
                let now = s.stamp()
                let record: JSONObject = [
                    "id": .string(id), "sermonId": .string(sermonId), "publicId": .string(publicId),
                    "parts": .array(parts.map { .string($0) }), "published": true,
                    "snapshot": try Self.snapshot(of: sermon, parts: parts, in: s), "publishedAt": .string(now),
                    "updatedAt": .string(now), "deletedAt": .null,
                ]
                let saved = try s.commitLocal(.publications, record: record, op: .upsert)
                return Self.view(saved, base: base)
            }
        })

        table.add(MethodSpec("sermon.unpublish", summary: """
            Take the sermon's page down (the address then answers 410). Works offline: it is queued, with the \
            page's public id, and syncs.
            """, params: [ParamSpec("id", .uuid, required: true)], result: Self.publicationResult) { p, _ in
            let sermonId = try p.requiredString("id")
            return try await store.write { s in
                _ = try s.liveRecord(.sermons, sermonId)
                let id = Identifier.derived(from: sermonId, kind: "publication")
                guard let existing = try s.record(.publications, id: id), !existing.isDeleted else {
                    throw RPCError.notFound("publication of sermon", id: sermonId)
                }
                guard existing.body["published"]?.boolValue == true else {
                    throw RPCError.conflict("sermon \(sermonId) is not published")
                }
                var record = existing.body
                record["published"] = false
                // The content leaves the server too; the public id stays (it is what the unpublish acts on).
                record["snapshot"] = .null
                record["updatedAt"] = .string(s.stamp())
                return Self.view(try s.commitLocal(.publications, record: record, op: .upsert), base: base)
            }
        })
    }

    /// The sermon as it will be shown: `{title, speaker, date, serviceType, notes: [{timestamp, text}],
    /// summary: {title, text, type}|null, transcript: {text, segments}|null}` (the parts not chosen are null).
    static func snapshot(of sermon: StoredRecord, parts: [String], in s: StoreSession) throws -> JSON {
        var o: JSONObject = [
            "title": sermon.body["title"] ?? "", "speaker": sermon.body["speaker"] ?? .null, "date": sermon.body["date"] ?? .null,
            "serviceType": sermon.body["serviceType"] ?? .null, "notes": .array([]), "summary": .null, "transcript": .null,
        ]
        if parts.contains("notes") {
            let notes = try s.children(.notes, sermonId: sermon.id).sorted(by: RecordViews.noteOrder)
            o["notes"] = .array(notes.map { ["timestamp": $0.body["timestamp"] ?? 0, "text": $0.body["text"] ?? ""] })
        }
        if parts.contains("summary"), let summary = try s.newestChild(.summaries, sermonId: sermon.id) {
            o["summary"] = ["title": summary.body["title"] ?? "", "text": summary.body["text"] ?? "", "type": summary.body["type"] ?? ""]
        }
        if parts.contains("transcript"), let t = try s.newestChild(.transcripts, sermonId: sermon.id) {
            o["transcript"] = ["text": t.body["text"] ?? "", "segments": t.body["segments"] ?? .array([])]
        }
        return .object(o)
    }

    /// `Publication = {sermonId, publicId, parts, state, url, publishedAt}`: `pending` until the server has
    /// the latest version (its sync state is then `synced`), and the URL known from then on.
    static func view(_ r: StoredRecord, base: String?) -> JSON {
        let published = r.body["published"]?.boolValue == true && !r.isDeleted
        let settled = r.syncState == .synced
        let publicId = r.body["publicId"]?.stringValue ?? ""
        var url: JSON = .null
        if settled, published, let base {
            url = .string((base.hasSuffix("/") ? String(base.dropLast()) : base) + "/p/" + publicId)
        }
        return [
            "sermonId": r.body["sermonId"] ?? .null, "publicId": .string(publicId), "parts": r.body["parts"] ?? .array([]),
            "state": .string(settled ? (published ? "published" : "unpublished") : "pending"), "url": url,
            "publishedAt": published ? (r.body["publishedAt"] ?? .null) : .null,
        ]
    }
}
