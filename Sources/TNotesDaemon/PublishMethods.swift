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
    let sync: SyncSlot

    static let publicationResult: JSON = ["$ref": "#/components/schemas/Publication"]

    func register(into table: inout MethodTable) {
        let store = self.store, slot = sync

        table.add(MethodSpec(SermonPublish.self, summary: """
            Publish a snapshot of the sermon (default parts: notes and summary) as a public page; publishing \
            again replaces the snapshot at the same address. Works offline: it is queued and syncs.
            """, notes: [
                \.parts: "what to publish: notes, summary, transcript, audio",
                \.slug: "the readable part of the page's address (default: from the title); kept on later publishes",
                \.description: "what the page, its index and the feed say of the sermon (at most 5,000 characters; an empty one clears it)",
                \.tags: "at most 20 tags, each at most 50 characters",
                \.language: "a BCP 47 tag, e.g. en or pt-BR (default en)",
                \.canFork: "others may copy the published parts into their library (sermon.fork); default false",
            ], result: Self.publicationResult) { p, _ in
            let sermonId = p.id
            let asked = p.parts ?? Publication.Part.defaults
            let parts = Publication.Part.allCases.filter(asked.contains)
            guard !parts.isEmpty else {
                throw RPCError.invalidParams(field: SermonPublish.Params.name(\.parts), reason: "must name at least one part")
            }
            if let slug = p.slug, PublicId.slug(slug).isEmpty {
                throw RPCError.invalidParams(field: SermonPublish.Params.name(\.slug), reason: "must contain letters or digits")
            }
            try Self.checkDetails(p)
            return try await store.write { s in
                let sermon = try s.liveRecord(.sermons, sermonId)
                let id = Identifier.derived(from: sermonId, kind: "publication")
                let existing = try s.record(.publications, id: id)
                let now = s.stamp()
                var publication = Publication()
                publication.id = id
                publication.sermonId = sermonId
                publication.publicId = existing.flatMap { LenientRecord<Publication>(object: $0.body).publicId }
                    ?? PublicId.make(title: p.slug ?? LenientRecord<Sermon>(object: sermon.body).title ?? "sermon")
                publication.parts = parts
                // Each detail kept from the last publish unless given now.
                let previous = existing.map { LenientRecord<Publication>(object: $0.body) }
                if let description = p.description {
                    publication.description = description.isEmpty ? nil : description
                } else {
                    publication.description = previous?.description ?? nil
                }
                publication.tags = p.tags ?? previous?.tags
                publication.language = p.language ?? previous?.language
                publication.canFork = p.canFork ?? previous?.canFork
                if parts.contains(.audio) {
                    guard LenientRecord<Sermon>(object: sermon.body).audio != nil else {
                        throw RPCError.invalidParams(field: SermonPublish.Params.name(\.parts), reason: "the sermon has no audio to publish")
                    }
                }
                publication.published = true
                publication.snapshot = try Self.snapshot(of: sermon, parts: parts, in: s).record
                publication.publishedAt = now
                publication.updatedAt = now
                let saved = try s.commitLocal(.publications, record: publication.record, op: .upsert)
                return Self.view(saved, base: slot.serverURL)
            }
        })

        table.add(MethodSpec(SermonUnpublish.self, summary: """
            Take the sermon's page down (the address then answers 410). Works offline: it is queued, with the \
            page's public id, and syncs.
            """, result: Self.publicationResult) { p, _ in
            let sermonId = p.id
            return try await store.write { s in
                _ = try s.liveRecord(.sermons, sermonId)
                let id = Identifier.derived(from: sermonId, kind: "publication")
                guard let existing = try s.record(.publications, id: id), !existing.isDeleted else {
                    throw RPCError.notFound("publication of sermon", id: sermonId)
                }
                // Read leniently: a stored record is normalized, so this is the record as it is stored.
                var publication = Publication(lenient: .object(existing.body))
                guard publication.published else {
                    throw RPCError.conflict("sermon \(sermonId) is not published")
                }
                publication.published = false
                // The content leaves the server too; the public id stays (it is what the unpublish acts on).
                publication.snapshot = nil
                publication.updatedAt = s.stamp()
                return Self.view(try s.commitLocal(.publications, record: publication.record, op: .upsert), base: slot.serverURL)
            }
        })
    }

    /// The details' bounds (contract §8.1's spirit: a page and a feed of any size render, but a client's publish
    /// asks for sane ones).
    static func checkDetails(_ p: SermonPublish.Params) throws {
        if let d = p.description, d.count > Publication.maxDescriptionCharacters {
            throw RPCError.invalidParams(field: SermonPublish.Params.name(\.description),
                                         reason: "must be at most \(Publication.maxDescriptionCharacters) characters")
        }
        if let tags = p.tags {
            guard tags.count <= Publication.maxTags else {
                throw RPCError.invalidParams(field: SermonPublish.Params.name(\.tags), reason: "at most \(Publication.maxTags) tags")
            }
            for (i, tag) in tags.enumerated() where tag.count > Publication.maxTagCharacters || tag.contains(where: \.isNewline) {
                throw RPCError.invalidParams(field: "tags[\(i)]", reason: "must be one line of at most \(Publication.maxTagCharacters) characters")
            }
        }
        if let language = p.language, !Publication.isLanguageTag(language) {
            throw RPCError.invalidParams(field: SermonPublish.Params.name(\.language), reason: "must be a BCP 47 language tag, e.g. en or pt-BR")
        }
    }

    /// The sermon as it will be shown (`PublicationSnapshot`): the parts not chosen are null (notes empty).
    /// Its records are read leniently: a value stored before the bounds of contract §8.1 is published as it
    /// is (the page renders any value).
    static func snapshot(of sermon: StoredRecord, parts: [Publication.Part], in s: StoreSession) throws -> PublicationSnapshot {
        let source = LenientRecord<Sermon>(object: sermon.body)
        var snapshot = PublicationSnapshot()
        snapshot.title = source.title ?? ""
        snapshot.speaker = source.speaker
        snapshot.date = source.date
        snapshot.serviceType = source.serviceType
        if parts.contains(.notes) {
            snapshot.notes = try s.children(.notes, sermonId: sermon.id).sorted(by: RecordViews.noteOrder).map {
                let note = Note(lenient: .object($0.body))
                return .init(timestamp: note.timestamp, text: note.text)
            }
        }
        if parts.contains(.summary), let record = try s.newestChild(.summaries, sermonId: sermon.id) {
            let summary = LenientRecord<Summary>(object: record.body)
            snapshot.summary = .init(title: summary.title ?? "", text: summary.text ?? "", type: summary.type?.rawValue ?? "")
        }
        if parts.contains(.audio) { snapshot.audio = source.audio ?? nil }
        if parts.contains(.transcript), let record = try s.newestChild(.transcripts, sermonId: sermon.id) {
            let transcript = Transcript(lenient: .object(record.body))
            snapshot.transcript = .init(text: transcript.text, segments: transcript.segments)
        }
        return snapshot
    }

    /// `Publication = {sermonId, publicId, parts, state, url, publishedAt}`: `pending` until the server has
    /// the latest version (its sync state is then `synced`), and the URL known from then on.
    static func view(_ r: StoredRecord, base: String?) -> JSON {
        let p = LenientRecord<Publication>(object: r.body)
        let published = p.published == true && !r.isDeleted
        let settled = r.syncState == .synced
        let publicId = p.publicId ?? ""
        var url: String?
        if settled, published, let base {
            url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/p/" + publicId
        }
        var view = PublicationView()
        view.sermonId = p.sermonId
        view.publicId = publicId
        view.parts = p.parts ?? []
        view.state = settled ? (published ? "published" : "unpublished") : "pending"
        view.url = url
        view.publishedAt = published ? p.publishedAt : nil
        view.description = p.description ?? nil
        view.tags = p.tags ?? []
        view.language = p.language ?? Publication.defaultLanguage
        view.canFork = p.canFork ?? false
        return view.fieldJSON
    }
}
