import TNotesCore

/// The seed app's endpoints (seed 000 §5), mapped onto the same records and change log as /v1:
/// a write through them is a set of ordinary versions (stamped by the server clock) that devices pull,
/// and `get-sermons` reads the same records devices push. What the seed did wrong is not repeated:
/// children of an existing sermon are updated, segments stay a real JSON array, every write bumps
/// `updatedAt`, and the user is always the token's, never a query parameter.
struct LegacyAPI: Sendable {
    static let deviceId = "legacy-api"
    let sync: SyncService
    /// Most notes (and transcript segments) one request may carry; more → 413 with the limit.
    var maxItems = 10_000

    /// A note as a legacy body gives it, validated.
    struct NoteInput {
        let id: String
        let text: String
        let timestamp: Double
    }

    /// A transcript as a legacy body gives it, validated: what it sets of the record.
    struct TranscriptInput {
        let id: String?
        let text: String
        let status: ProcessingStatus?
        let segments: [Transcript.Segment]
    }

    /// A summary as a legacy body gives it, validated.
    struct SummaryInput {
        let id: String?
        let title: String
        let text: String
        let type: Summary.Kind
        let status: ProcessingStatus?
    }

    /// The sermon's fields a legacy body may set (seed 000 §5.1), under their record names; each one given is
    /// validated by its field's type.
    static let sermonFields: [any PartialKeyPath<Sermon> & Sendable] = [
        \.title, \.date, \.serviceType, \.speaker, \.isArchived, \.transcriptionStatus, \.summaryStatus,
    ]

    /// create-sermon and update-sermon in one transaction, within the user's record quota (contract §8.6): a
    /// request that would leave more live records than the quota allows, and more than before it, is 413
    /// `quota_exceeded` and changes nothing.
    func write(user: Int64, body: JSON, requireExisting: Bool) async throws -> JSONObject {
        let apply = try upsert(user: user, body: body, requireExisting: requireExisting)
        let limit = try await sync.storage.quota(user: user).records
        return try await sync.storage.transaction(user: user) { tx in
            let before = limit == nil ? 0 : try await tx.liveRecords()
            let saved = try await apply(tx)
            if let limit {
                let after = try await tx.liveRecords()
                if after > limit && after > before { throw APIError.recordQuota(limit: limit) }
            }
            return saved
        }
    }

    /// create-sermon and update-sermon: upsert the sermon and its children. Notes, when given, are
    /// replaced as a set (missing ones tombstoned); transcript and summary, when given, are upserted.
    func upsert(user: Int64, body: JSON, requireExisting: Bool) throws(APIError) -> @Sendable (any ServerTransaction) async throws -> JSONObject {
        guard case .object(let o) = body else { throw .badRequest("body", "must be a JSON object") }
        let idField = requireExisting && o["remoteId"] != nil ? "remoteId" : "localId"
        let sermonId = try requiredString(o, idField, .uuid)
        // The given fields, validated, as a record's members: laid over the stored record below.
        var given = JSONObject()
        for f in Sermon.fields where Self.sermonFields.contains(f.keyPath) {
            let required = !requireExisting && f.keyPath == \Sermon.title
            if let v = try field(o, f.name, f.schema.type, required: required, nullable: f.schema.nullable) { given[f.name] = v }
        }
        let notes = try parseNotes(o["notes"])
        let transcript = try parseTranscript(o["transcript"])
        let summary = try parseSummary(o["summary"])
        let sync = self.sync

        return { [given] tx in
            let now = sync.stamp()
            let existing = try await tx.current(.sermons, id: sermonId)
            if requireExisting && (existing == nil || existing?.body.deletedAt != nil) {
                throw APIError.notFound("sermon \(sermonId)")
            }
            // Stored records are normalized: read leniently, each is exactly the record stored.
            let stored = existing.map { Sermon(lenient: .object($0.body)) }
            var sermon = stored ?? {
                var new = Sermon()
                new.id = sermonId
                new.date = now
                new.createdAt = now
                return new
            }()
            if !given.isEmpty {
                var members = sermon.record
                members.merge(given) { _, new in new }
                sermon = Sermon(lenient: .object(members))
            }
            sermon.deletedAt = nil
            var writes = [(RecordCollection, JSONObject, Change.Op)]()
            if stored.map({ Self.differs($0, sermon) }) ?? true {
                sermon.updatedAt = now
                writes.append((.sermons, sermon.record, .upsert))
            }

            if let notes {
                let current = try await tx.children(.notes, sermonId: sermonId).map { Note(lenient: .object($0.body)) }
                var byId = [String: Note]()
                for c in current { byId[c.id] = c }
                let wanted = Set(notes.map(\.id))
                for n in notes {
                    let before = byId[n.id]
                    var note = before ?? {
                        var new = Note()
                        new.id = n.id
                        new.createdAt = now
                        return new
                    }()
                    note.sermonId = sermonId
                    note.text = n.text
                    note.timestamp = n.timestamp
                    note.deletedAt = nil
                    if before.map({ Self.differs($0, note) }) ?? true {
                        note.updatedAt = now
                        writes.append((.notes, note.record, .upsert))
                    }
                }
                for var gone in current where gone.deletedAt == nil && !wanted.contains(gone.id) {
                    gone.deletedAt = now
                    gone.updatedAt = now
                    writes.append((.notes, gone.record, .delete))
                }
            }
            if let transcript {
                let current = try await tx.children(.transcripts, sermonId: sermonId).max { $0.version < $1.version }
                    .map { Transcript(lenient: .object($0.body)) }
                var record = current ?? {
                    var new = Transcript()
                    new.id = transcript.id ?? Identifier.derivedInOrder(from: sermonId, kind: "transcript")
                    return new
                }()
                record.text = transcript.text
                if let status = transcript.status { record.status = status }
                record.segments = transcript.segments
                record.sermonId = sermonId
                record.deletedAt = nil
                if current.map({ Self.differs($0, record) }) ?? true {
                    record.updatedAt = now
                    writes.append((.transcripts, record.record, .upsert))
                }
            }
            if let summary {
                let current = try await tx.children(.summaries, sermonId: sermonId).max { $0.version < $1.version }
                    .map { Summary(lenient: .object($0.body)) }
                var record = current ?? {
                    var new = Summary()
                    new.id = summary.id ?? Identifier.derivedInOrder(from: sermonId, kind: "summary")
                    return new
                }()
                record.title = summary.title
                record.text = summary.text
                record.type = summary.type
                if let status = summary.status { record.status = status }
                record.sermonId = sermonId
                record.deletedAt = nil
                if current.map({ Self.differs($0, record) }) ?? true {
                    record.updatedAt = now
                    writes.append((.summaries, record.record, .upsert))
                }
            }
            // Every version passes the same schema as a pushed one before it is stored.
            var checked = [(RecordCollection, JSONObject, Change.Op)]()
            for (c, r, op) in writes {
                do {
                    let normalized = try c.schema.normalize(.object(r))
                    // The bounds of values (contract §8.1) on what is new: the stored version is read only when
                    // one fails, so a value that predates them does not block an edit of another field.
                    do { try ValueBounds.check(c, normalized) } catch {
                        let previous = try await tx.current(c, id: normalized.recordId)?.body
                        try ValueBounds.check(c, normalized, previous: previous)
                    }
                    checked.append((c, normalized, op))
                } catch let e as FieldError {
                    throw APIError.badRequest(e.field, e.reason)
                }
            }
            try await sync.writeServerVersions(user: user, in: tx, checked)
            return checked.first { $0.0 == .sermons }?.1 ?? existing?.body ?? sermon.record
        }
    }

    /// A note's place in time for ordering: a stored value is whatever was stored (a number out of bounds), so
    /// anything but a finite number orders as 0, and the order stays a strict one.
    static func sortSeconds(_ value: Double) -> Double { value.isFinite ? value : 0 }

    /// Whether a write changes the record: any field but `updatedAt`, which every write sets.
    static func differs<R: TypedRecord & Versioned>(_ a: R, _ b: R) -> Bool {
        var a = a, b = b
        a.updatedAt = ""
        b.updatedAt = ""
        return a != b
    }

    func field(_ o: JSONObject, _ name: String, _ type: FieldType, required: Bool = false, nullable: Bool = false,
               path: String = "") throws(APIError) -> JSON?
    {
        let label = path.isEmpty ? name : "\(path).\(name)"
        guard let v = o[name] else {
            if required { throw .badRequest(label, "is required") }
            return nil
        }
        if v.isNull {
            if nullable { return .null }
            if required { throw .badRequest(label, "must not be null") }
            return nil
        }
        do { return try type.validate(v, field: label) } catch { throw .badRequest(error.field, error.reason) }
    }

    func parseNotes(_ v: JSON?) throws(APIError) -> [NoteInput]? {
        guard let v, !v.isNull else { return nil }
        guard case .array(let items) = v else { throw .badRequest("notes", "must be an array") }
        if items.count > maxItems { throw .tooManyItems("notes", count: items.count, limit: maxItems) }
        var out = [NoteInput]()
        for (i, item) in items.enumerated() {
            guard case .object(let n) = item else { throw .badRequest("notes[\(i)]", "must be an object") }
            let p = "notes[\(i)]"
            let id: String
            if let given = try field(n, "id", .uuid, path: p)?.stringValue {
                id = given
            } else {
                id = try requiredString(n, "localId", .uuid, path: p)
            }
            out.append(NoteInput(id: id, text: try requiredString(n, "text", .string, path: p),
                                 timestamp: try field(n, Note.name(\.timestamp), .number(min: 0), path: p)?.doubleValue ?? 0))
        }
        return out
    }

    /// A field that must be present (and valid): its value.
    func required(_ o: JSONObject, _ name: String, _ type: FieldType, path: String = "") throws(APIError) -> JSON {
        guard let v = try field(o, name, type, required: true, path: path) else {
            throw .badRequest(path.isEmpty ? name : "\(path).\(name)", "is required")
        }
        return v
    }

    /// A required string field (ids): its text.
    func requiredString(_ o: JSONObject, _ name: String, _ type: FieldType, path: String = "") throws(APIError) -> String {
        guard let text = try required(o, name, type, path: path).stringValue else {
            throw .badRequest(path.isEmpty ? name : "\(path).\(name)", "must be a string")
        }
        return text
    }

    func parseTranscript(_ v: JSON?) throws(APIError) -> TranscriptInput? {
        guard let v, !v.isNull else { return nil }
        guard case .object(let t) = v else { throw .badRequest("transcript", "must be an object") }
        let text = try requiredString(t, "text", .string, path: "transcript")
        let id = try field(t, "id", .uuid, path: "transcript")?.stringValue
        let status = try field(t, "status", ProcessingStatus.fieldType, path: "transcript").flatMap(ProcessingStatus.decodeField)
        // The seed's client sent segments as a JSON *string*; decode that once here, store a real array.
        var segments = t["segments"] ?? .null
        if case .string(let text) = segments {
            guard let decoded = try? JSON.parse(text) else {
                throw .badRequest("transcript.segments", "is a string that does not hold a JSON array")
            }
            segments = decoded
        }
        if segments.isNull { segments = .array([]) }
        if let count = segments.arrayValue?.count, count > maxItems {
            throw .tooManyItems("transcript.segments", count: count, limit: maxItems)
        }
        do { segments = try FieldType.segments.validate(segments, field: "transcript.segments") }
        catch { throw .badRequest(error.field, error.reason) }
        // Validated: every segment reads.
        return TranscriptInput(id: id, text: text, status: status, segments: [Transcript.Segment].decodeField(segments) ?? [])
    }

    func parseSummary(_ v: JSON?) throws(APIError) -> SummaryInput? {
        guard let v, !v.isNull else { return nil }
        guard case .object(let s) = v else { throw .badRequest("summary", "must be an object") }
        let title = try requiredString(s, "title", .string, path: "summary")
        let text = try requiredString(s, "text", .string, path: "summary")
        let typeName = try requiredString(s, "type", Summary.Kind.fieldType, path: "summary")
        let id = try field(s, "id", .uuid, path: "summary")?.stringValue
        let status = try field(s, "status", ProcessingStatus.fieldType, path: "summary").flatMap(ProcessingStatus.decodeField)
        return SummaryInput(id: id, title: title, text: text, type: Summary.Kind(rawValue: typeName) ?? .devotional, status: status)
    }

    /// get-sermons: every live sermon of the user, newest date first, with notes, transcript and summary
    /// joined — the §5.3 shape, segments a JSON array.
    func sermons(user: Int64, audioURL: (String) -> String) async throws -> JSON {
        let storage = sync.storage
        // Stored records are normalized; read leniently, any value stored before the bounds still reads.
        let sermons = try await storage.records(user: user, collection: .sermons).map { Sermon(lenient: .object($0)) }
        var notes = [String: [Note]](), transcripts = [String: Transcript](), summaries = [String: Summary]()
        for n in try await storage.records(user: user, collection: .notes) {
            let note = Note(lenient: .object(n))
            notes[note.sermonId, default: []].append(note)
        }
        for record in try await storage.records(user: user, collection: .transcripts) {
            let t = Transcript(lenient: .object(record))
            if (transcripts[t.sermonId]?.updatedAt ?? "") <= t.updatedAt { transcripts[t.sermonId] = t }
        }
        for record in try await storage.records(user: user, collection: .summaries) {
            let m = Summary(lenient: .object(record))
            if (summaries[m.sermonId]?.updatedAt ?? "") <= m.updatedAt { summaries[m.sermonId] = m }
        }
        var blobs = [String: AudioBlobInfo]()
        for s in sermons {
            if let b = try await storage.audio(user: user, sermonId: s.id) { blobs[s.id] = b }
        }
        var out = [JSON]()
        for s in sermons.sorted(by: { ($0.date, $0.id) > ($1.date, $1.id) }) {
            let id = s.id
            let blob = blobs[id]
            let hasAudio = blob != nil
            let sermonNotes = (notes[id] ?? []).sorted {
                (Self.sortSeconds($0.timestamp), $0.id) < (Self.sortSeconds($1.timestamp), $1.id)
            }
            out.append([
                "id": .string(id), "localId": .string(id), "title": .string(s.title),
                "audioFileURL": hasAudio ? .string(audioURL(id)) : .null,
                "audioFilePath": hasAudio ? .string("\(user)/\(id)") : .null,
                "audioFileName": JSON(s.audio?.fileName),
                "audioFileSizeBytes": (blob?.sizeBytes ?? s.audio?.sizeBytes).map { .int($0) } ?? .null,
                "date": .string(s.date), "serviceType": .string(s.serviceType), "speaker": JSON(s.speaker),
                "transcriptionStatus": s.transcriptionStatus.fieldJSON, "summaryStatus": s.summaryStatus.fieldJSON,
                "isArchived": .bool(s.isArchived), "userId": .string(String(user)), "updatedAt": .string(s.updatedAt),
                "notes": .array(sermonNotes.map {
                    ["id": .string($0.id), "localId": .string($0.id), "text": .string($0.text), Note.name(\.timestamp): $0.timestamp.fieldJSON]
                }),
                "transcript": transcripts[id].map {
                    ["id": .string($0.id), "localId": .string($0.id), "text": .string($0.text),
                     "segments": $0.segments.fieldJSON, "status": $0.status.fieldJSON]
                } ?? .null,
                "summary": summaries[id].map {
                    ["id": .string($0.id), "localId": .string($0.id), "title": .string($0.title),
                     "text": .string($0.text), "type": $0.type.fieldJSON, "status": $0.status.fieldJSON]
                } ?? .null,
            ])
        }
        return .array(out)
    }
}
