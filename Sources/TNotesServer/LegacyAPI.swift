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
    struct Note {
        let id: String
        let text: JSON
        let timestamp: JSON
    }

    /// create-sermon and update-sermon: upsert the sermon and its children. Notes, when given, are
    /// replaced as a set (missing ones tombstoned); transcript and summary, when given, are upserted.
    func upsert(user: Int64, body: JSON, requireExisting: Bool) throws(APIError) -> @Sendable (any ServerTransaction) async throws -> JSONObject {
        guard case .object(let o) = body else { throw .badRequest("body", "must be a JSON object") }
        let idField = requireExisting && o["remoteId"] != nil ? "remoteId" : "localId"
        let sermonId = try requiredString(o, idField, .uuid)
        let title = try field(o, "title", .string, required: !requireExisting)
        let date = try field(o, "date", .time)
        let serviceType = try field(o, "serviceType", .string)
        let speaker = try field(o, "speaker", .string, nullable: true)
        let isArchived = try field(o, "isArchived", .bool)
        let tStatus = try field(o, "transcriptionStatus", .enumeration(StatusValues.processing))
        let sStatus = try field(o, "summaryStatus", .enumeration(StatusValues.processing))
        let notes = try parseNotes(o["notes"])
        let transcript = try parseTranscript(o["transcript"])
        let summary = try parseSummary(o["summary"])
        let sync = self.sync

        return { tx in
            let now = sync.stamp()
            let existing = try await tx.current(.sermons, id: sermonId)
            if requireExisting && (existing == nil || existing?.body.deletedAt != nil) {
                throw APIError.notFound("sermon \(sermonId)")
            }
            var sermon = existing?.body ?? [
                "id": .string(sermonId), "title": "", "date": .string(now), "serviceType": "Sunday Service",
                "speaker": .null, "isArchived": false, "transcriptionStatus": "pending", "summaryStatus": "pending",
                "audio": .null, "createdAt": .string(now), "deletedAt": .null,
            ]
            let fields: [(String, JSON?)] = [("title", title), ("date", date), ("serviceType", serviceType), ("speaker", speaker),
                                             ("isArchived", isArchived), ("transcriptionStatus", tStatus), ("summaryStatus", sStatus)]
            for (k, v) in fields { if let v { sermon[k] = v } }
            sermon["deletedAt"] = .null
            var writes = [(RecordCollection, JSONObject, Change.Op)]()
            if existing.map({ Self.differs($0.body, sermon) }) ?? true {
                sermon["updatedAt"] = .string(now)
                writes.append((.sermons, sermon, .upsert))
            }

            if let notes {
                let current = try await tx.children(.notes, sermonId: sermonId)
                var byId = [String: JSONObject]()
                for c in current { byId[c.body.recordId] = c.body }
                let wanted = Set(notes.map(\.id))
                for n in notes {
                    let id = n.id
                    var note = byId[id] ?? ["id": .string(id), "createdAt": .string(now)]
                    let before = note
                    note["sermonId"] = .string(sermonId)
                    note["text"] = n.text
                    note["timestamp"] = n.timestamp
                    note["deletedAt"] = .null
                    if byId[id] == nil || Self.differs(before, note) {
                        note["updatedAt"] = .string(now)
                        writes.append((.notes, note, .upsert))
                    }
                }
                for c in current where c.body.deletedAt == nil && !wanted.contains(c.body.recordId) {
                    var gone = c.body
                    gone["deletedAt"] = .string(now)
                    gone["updatedAt"] = .string(now)
                    writes.append((.notes, gone, .delete))
                }
            }
            for (collection, given, kind) in [(RecordCollection.transcripts, transcript, "transcript"), (.summaries, summary, "summary")] {
                guard let given else { continue }
                let current = try await tx.children(collection, sermonId: sermonId).max { $0.version < $1.version }
                var record = current?.body ?? [
                    "id": .string(given["id"]?.stringValue ?? Identifier.derivedInOrder(from: sermonId, kind: kind)),
                ]
                let before = record
                for (k, v) in given where k != "id" { record[k] = v }
                record["sermonId"] = .string(sermonId)
                record["deletedAt"] = .null
                if current == nil || Self.differs(before, record) {
                    record["updatedAt"] = .string(now)
                    writes.append((collection, record, .upsert))
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
            return checked.first { $0.0 == .sermons }?.1 ?? existing?.body ?? sermon
        }
    }

    /// A note's place in time for ordering: a stored value is whatever was stored (a number out of bounds, or
    /// not a number at all), so anything but a finite number orders as 0, and the order stays a strict one.
    static func sortSeconds(_ value: JSON?) -> Double {
        guard let d = value?.doubleValue, d.isFinite else { return 0 }
        return d
    }

    static func differs(_ a: JSONObject, _ b: JSONObject) -> Bool {
        var a = a, b = b
        a["updatedAt"] = nil
        b["updatedAt"] = nil
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

    func parseNotes(_ v: JSON?) throws(APIError) -> [Note]? {
        guard let v, !v.isNull else { return nil }
        guard case .array(let items) = v else { throw .badRequest("notes", "must be an array") }
        if items.count > maxItems { throw .tooManyItems("notes", count: items.count, limit: maxItems) }
        var out = [Note]()
        for (i, item) in items.enumerated() {
            guard case .object(let n) = item else { throw .badRequest("notes[\(i)]", "must be an object") }
            let p = "notes[\(i)]"
            let id: String
            if let given = try field(n, "id", .uuid, path: p)?.stringValue {
                id = given
            } else {
                id = try requiredString(n, "localId", .uuid, path: p)
            }
            out.append(Note(id: id, text: try required(n, "text", .string, path: p),
                            timestamp: try field(n, "timestamp", .number(min: 0), path: p) ?? .int(0)))
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

    func parseTranscript(_ v: JSON?) throws(APIError) -> JSONObject? {
        guard let v, !v.isNull else { return nil }
        guard case .object(let t) = v else { throw .badRequest("transcript", "must be an object") }
        var out: JSONObject = ["text": try required(t, "text", .string, path: "transcript")]
        if let id = try field(t, "id", .uuid, path: "transcript") { out["id"] = id }
        if let s = try field(t, "status", .enumeration(StatusValues.processing), path: "transcript") { out["status"] = s }
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
        do { out["segments"] = try FieldType.segments.validate(segments, field: "transcript.segments") }
        catch { throw .badRequest(error.field, error.reason) }
        return out
    }

    func parseSummary(_ v: JSON?) throws(APIError) -> JSONObject? {
        guard let v, !v.isNull else { return nil }
        guard case .object(let s) = v else { throw .badRequest("summary", "must be an object") }
        var out: JSONObject = [
            "title": try required(s, "title", .string, path: "summary"),
            "text": try required(s, "text", .string, path: "summary"),
            "type": try required(s, "type", .enumeration(StatusValues.summaryTypes), path: "summary"),
        ]
        if let id = try field(s, "id", .uuid, path: "summary") { out["id"] = id }
        if let st = try field(s, "status", .enumeration(StatusValues.processing), path: "summary") { out["status"] = st }
        return out
    }

    /// get-sermons: every live sermon of the user, newest date first, with notes, transcript and summary
    /// joined — the §5.3 shape, segments a JSON array.
    func sermons(user: Int64, audioURL: (String) -> String) async throws -> JSON {
        let storage = sync.storage
        let sermons = try await storage.records(user: user, collection: .sermons)
        var notes = [String: [JSONObject]](), transcripts = [String: JSONObject](), summaries = [String: JSONObject]()
        for n in try await storage.records(user: user, collection: .notes) { notes[n.sermonId ?? "", default: []].append(n) }
        for t in try await storage.records(user: user, collection: .transcripts) {
            if let s = t.sermonId, (transcripts[s]?.updatedAt ?? "") <= t.updatedAt { transcripts[s] = t }
        }
        for t in try await storage.records(user: user, collection: .summaries) {
            if let s = t.sermonId, (summaries[s]?.updatedAt ?? "") <= t.updatedAt { summaries[s] = t }
        }
        var blobs = [String: AudioBlobInfo]()
        for s in sermons {
            if let b = try await storage.audio(user: user, sermonId: s.recordId) { blobs[s.recordId] = b }
        }
        var out = [JSON]()
        for s in sermons.sorted(by: { ($0["date"]?.stringValue ?? "", $0.recordId) > ($1["date"]?.stringValue ?? "", $1.recordId) }) {
            let id = s.recordId
            let blob = blobs[id]
            let hasAudio = blob != nil
            let sermonNotes = (notes[id] ?? []).sorted {
                (Self.sortSeconds($0["timestamp"]), $0.recordId) < (Self.sortSeconds($1["timestamp"]), $1.recordId)
            }
            out.append([
                "id": .string(id), "localId": .string(id), "title": s["title"] ?? "",
                "audioFileURL": hasAudio ? .string(audioURL(id)) : .null,
                "audioFilePath": hasAudio ? .string("\(user)/\(id)") : .null,
                "audioFileName": s["audio"]?["fileName"] ?? .null,
                "audioFileSizeBytes": blob.map { .int($0.sizeBytes) } ?? s["audio"]?["sizeBytes"] ?? .null,
                "date": s["date"] ?? .null, "serviceType": s["serviceType"] ?? "", "speaker": s["speaker"] ?? .null,
                "transcriptionStatus": s["transcriptionStatus"] ?? "pending", "summaryStatus": s["summaryStatus"] ?? "pending",
                "isArchived": s["isArchived"] ?? false, "userId": .string(String(user)), "updatedAt": s["updatedAt"] ?? .null,
                "notes": .array(sermonNotes.map {
                    ["id": .string($0.recordId), "localId": .string($0.recordId), "text": $0["text"] ?? "",
                     "timestamp": $0["timestamp"] ?? 0]
                }),
                "transcript": transcripts[id].map {
                    ["id": .string($0.recordId), "localId": .string($0.recordId), "text": $0["text"] ?? "",
                     "segments": $0["segments"] ?? .array([]), "status": $0["status"] ?? "complete"]
                } ?? .null,
                "summary": summaries[id].map {
                    ["id": .string($0.recordId), "localId": .string($0.recordId), "title": $0["title"] ?? "",
                     "text": $0["text"] ?? "", "type": $0["type"] ?? "devotional", "status": $0["status"] ?? "complete"]
                } ?? .null,
            ])
        }
        return .array(out)
    }
}
