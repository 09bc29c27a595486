import TNotesCore
import TNotesRPC
import TNotesStore

/// The record methods of contract §2: sermons, notes, transcripts, summaries, chat.
/// Every write runs in one store transaction that also queues its outbox entries.
struct RecordMethods {
    let store: Store
    /// The sync server's base URL, for the URL of a published page (nil when sync is off).
    var publicBaseURL: String? = nil
    /// The running recording's clock: a `note.add` without `timestamp` for its sermon is stamped with it.
    var recordingClock: RecordingClock? = nil

    static let status = FieldType.enumeration(StatusValues.processing)
    static let sermonResult: JSON = ["$ref": "#/components/schemas/Sermon"]

    func register(into table: inout MethodTable) {
        let store = self.store, base = publicBaseURL, clock = recordingClock

        table.add(MethodSpec("sermon.create", summary: "Create a sermon.", params: [
            ParamSpec("title", .string, required: true),
            ParamSpec("date", .time, "RFC 3339 time or YYYY-MM-DD; default now"),
            ParamSpec("serviceType", .string),
            ParamSpec("speaker", .string, nullable: true),
            ParamSpec("id", .uuid, "client-chosen id; default a new UUID"),
        ], result: Self.sermonResult, queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let id = p.string("id") ?? Identifier.make()
                if try s.record(.sermons, id: id) != nil {
                    throw RPCError.conflict("a sermon with id \(id) exists")
                }
                let now = s.stamp()
                let record: JSONObject = [
                    "id": .string(id), "title": try p.required("title"), "date": .string(p.string("date") ?? now),
                    "serviceType": p["serviceType"] ?? "Sunday Service", "speaker": p["speaker"] ?? .null,
                    "isArchived": false, "transcriptionStatus": "pending", "summaryStatus": "pending",
                    "audio": .null, "createdAt": .string(now), "updatedAt": .string(now), "deletedAt": .null,
                ]
                let saved = try s.commitLocal(.sermons, record: record, op: .upsert)
                return try RecordViews.sermon(saved, in: s, withChildren: true)
            }
        })

        table.add(MethodSpec("sermon.get", summary: "A sermon with its live notes (by timestamp), transcript and summary.",
                             params: [ParamSpec("id", .uuid, required: true)], result: Self.sermonResult, readOnly: true) { p, _ in
            try await store.read { s in
                let id = try p.requiredString("id")
                guard let rec = try s.record(.sermons, id: id) else { throw StoreError.notFound(collection: "sermons", id: id) }
                return try RecordViews.sermon(rec, in: s, withChildren: true, publicBase: base)
            }
        })

        table.add(MethodSpec("sermon.list", summary: "Sermons, newest date first, a page at a time.", params: [
            ParamSpec("includeArchived", .bool),
            ParamSpec("includeDeleted", .bool),
            ParamSpec("limit", .integer(min: 1, max: 1000), "page size, default 100"),
            ParamSpec("after", .string, nullable: true, "the `next` of the previous page"),
        ], result: ["type": "object", "properties": ["items": ["type": "array"], "next": ["type": ["string", "null"]]]], readOnly: true) { p, _ in
            var after: (String, String)?
            if let cursor = p.string("after") {
                guard let decoded = ListCursor.decode(cursor) else {
                    throw RPCError.invalidParams(field: "after", reason: "is not a cursor returned by sermon.list")
                }
                after = decoded
            }
            return try await store.read { [after] s in
                let page = try s.sermons(includeArchived: p.bool("includeArchived") ?? false,
                                         includeDeleted: p.bool("includeDeleted") ?? false,
                                         limit: p.int("limit") ?? 100, after: after)
                let items = try page.items.map { try RecordViews.sermon($0, in: s, withChildren: false) }
                return ["items": .array(items), "next": page.next.map { .string(ListCursor.encode($0)) } ?? .null]
            }
        })

        table.add(MethodSpec("sermon.update", summary: "Change a sermon's fields.", params: [
            ParamSpec("id", .uuid, required: true),
            ParamSpec("title", .string),
            ParamSpec("date", .time),
            ParamSpec("serviceType", .string),
            ParamSpec("speaker", .string, nullable: true),
            ParamSpec("isArchived", .bool),
            ParamSpec("transcriptionStatus", Self.status),
            ParamSpec("summaryStatus", Self.status),
        ], result: Self.sermonResult, queuesOneWrite: true) { p, _ in
            try await store.write { s in
                var body = try Self.live(.sermons, try p.requiredString("id"), in: s).body
                for key in ["title", "date", "serviceType", "speaker", "isArchived", "transcriptionStatus", "summaryStatus"] {
                    if let v = p[key] { body[key] = v }
                }
                body["updatedAt"] = .string(s.stamp())
                let saved = try s.commitLocal(.sermons, record: body, op: .upsert)
                return try RecordViews.sermon(saved, in: s, withChildren: true)
            }
        })

        table.add(MethodSpec("sermon.delete", summary: "Tombstone a sermon and its notes, transcript and summary.",
                             params: [ParamSpec("id", .uuid, required: true)],
                             result: ["type": "object", "properties": ["id": ["type": "string"], "deletedAt": ["type": "string"]]], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let sermon = try Self.live(.sermons, try p.requiredString("id"), in: s)
                let now = s.stamp()
                for c in [RecordCollection.notes, .transcripts, .summaries, .publications] {
                    for child in try s.children(c, sermonId: sermon.id) {
                        try s.commitLocal(c, record: Self.tombstone(child.body, at: now), op: .delete)
                    }
                }
                try s.commitLocal(.sermons, record: Self.tombstone(sermon.body, at: now), op: .delete)
                return ["id": .string(sermon.id), "deletedAt": .string(now)]
            }
        })

        table.add(MethodSpec("note.add", summary: "Add a note to a sermon.", params: [
            ParamSpec("sermonId", .uuid, required: true),
            ParamSpec("text", .string, required: true),
            ParamSpec("timestamp", .number(min: 0), "seconds into the audio; default the recording's clock when this sermon is recording"),
            ParamSpec("id", .uuid),
        ], result: ["$ref": "#/components/schemas/Note"], queuesOneWrite: true) { p, _ in
            let sermonId = try p.requiredString("sermonId")
            // Read before the write waits its turn: the note is stamped when it was asked for.
            let timestamp: JSON
            if let given = p["timestamp"] {
                timestamp = given
            } else if let elapsed = clock?.elapsed(sermonId: sermonId) {
                timestamp = .double(elapsed)
            } else {
                throw RPCError.invalidParams(field: "timestamp", reason: "is required (this sermon is not recording)")
            }
            return try await store.write { s in
                try s.requireLive(.sermons, sermonId)
                // A new random id needs no look: only a caller's own id can already be taken.
                let id: String
                if let given = p.string("id") {
                    if try s.record(.notes, id: given) != nil { throw RPCError.conflict("a note with id \(given) exists") }
                    id = given
                } else {
                    id = Identifier.make()
                }
                let now = s.stamp()
                let record: JSONObject = [
                    "id": .string(id), "sermonId": .string(sermonId), "text": try p.required("text"), "timestamp": timestamp,
                    "createdAt": .string(now), "updatedAt": .string(now), "deletedAt": .null,
                ]
                return .object(try s.commitLocal(.notes, record: record, op: .upsert).body)
            }
        })

        table.add(MethodSpec("note.get", summary: "One note (a deleted one too, with its deletedAt).",
                             params: [ParamSpec("id", .uuid, required: true)], result: ["$ref": "#/components/schemas/Note"],
                             readOnly: true) { p, _ in
            try await store.read { s in
                let id = try p.requiredString("id")
                guard let note = try s.record(.notes, id: id) else { throw StoreError.notFound(collection: "notes", id: id) }
                return .object(note.body)
            }
        })

        table.add(MethodSpec("note.update", summary: "Change a note's text or timestamp.", params: [
            ParamSpec("id", .uuid, required: true),
            ParamSpec("text", .string),
            ParamSpec("timestamp", .number(min: 0)),
        ], result: ["$ref": "#/components/schemas/Note"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                var body = try Self.live(.notes, try p.requiredString("id"), in: s).body
                if let t = p["text"] { body["text"] = t }
                if let t = p["timestamp"] { body["timestamp"] = t }
                body["updatedAt"] = .string(s.stamp())
                return .object(try s.commitLocal(.notes, record: body, op: .upsert).body)
            }
        })

        table.add(MethodSpec("note.delete", summary: "Tombstone a note.", params: [ParamSpec("id", .uuid, required: true)],
                             result: ["type": "object"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let note = try Self.live(.notes, try p.requiredString("id"), in: s)
                let now = s.stamp()
                try s.commitLocal(.notes, record: Self.tombstone(note.body, at: now), op: .delete)
                return ["id": .string(note.id), "deletedAt": .string(now)]
            }
        })

        table.add(MethodSpec("transcript.set", summary: "Set (create or replace) a sermon's transcript.", params: [
            ParamSpec("sermonId", .uuid, required: true),
            ParamSpec("text", .string, required: true),
            ParamSpec("status", Self.status),
            ParamSpec("segments", .segments, "[{start, end, text, speaker?}] — a JSON array, never a string"),
        ], result: ["$ref": "#/components/schemas/Transcript"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                .object(try s.setTranscript(sermonId: try p.requiredString("sermonId"), text: try p.required("text"),
                                            status: p["status"] ?? "complete", segments: p["segments"] ?? .array([])).body)
            }
        })

        table.add(MethodSpec("summary.set", summary: "Set (create or replace) a sermon's summary.", params: [
            ParamSpec("sermonId", .uuid, required: true),
            ParamSpec("title", .string, required: true),
            ParamSpec("text", .string, required: true),
            ParamSpec("type", .enumeration(StatusValues.summaryTypes), required: true),
            ParamSpec("status", Self.status),
        ], result: ["$ref": "#/components/schemas/Summary"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                // Set by a person: automatic summaries leave it alone (only summary.generate replaces it).
                .object(try s.setSummary(sermonId: try p.requiredString("sermonId"), title: try p.required("title"),
                                         text: try p.required("text"), type: try p.required("type"),
                                         status: p["status"] ?? "complete", generatedBy: nil).body)
            }
        })

        table.add(MethodSpec("chat.append", summary: "Append a chat message to a sermon (append-only).", params: [
            ParamSpec("sermonId", .uuid, required: true),
            ParamSpec("role", .enumeration(StatusValues.chatRoles), required: true),
            ParamSpec("content", .string, required: true),
            ParamSpec("id", .uuid),
        ], result: ["$ref": "#/components/schemas/ChatMessage"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let sermon = try Self.live(.sermons, try p.requiredString("sermonId"), in: s)
                let id = p.string("id") ?? Identifier.make()
                if try s.record(.chatMessages, id: id) != nil {
                    throw RPCError.conflict("a chat message with id \(id) exists")
                }
                let now = s.stamp()
                let record: JSONObject = [
                    "id": .string(id), "sermonId": .string(sermon.id), "role": try p.required("role"), "content": try p.required("content"),
                    "createdAt": .string(now), "deviceId": .string(s.deviceId),
                ]
                return .object(try s.commitLocal(.chatMessages, record: record, op: .upsert).body)
            }
        })

        table.add(MethodSpec("chat.list", summary: "A sermon's chat, ordered by (createdAt, id, deviceId).",
                             params: [ParamSpec("sermonId", .uuid, required: true)], result: ["type": "array"], readOnly: true) { p, _ in
            try await store.read { s in
                let id = try p.requiredString("sermonId")
                guard try s.record(.sermons, id: id) != nil else { throw StoreError.notFound(collection: "sermons", id: id) }
                let messages = try s.children(.chatMessages, sermonId: id).sorted(by: RecordViews.chatOrder)
                return .array(messages.map { .object($0.body) })
            }
        })
    }

    /// The record, which must exist and not be a tombstone (a tombstone is gone for writes).
    static func live(_ c: RecordCollection, _ id: String, in s: StoreSession) throws -> StoredRecord {
        try s.liveRecord(c, id)
    }

    /// A tombstone keeps the whole record (a delete op carries everything a peer needs to apply it).
    static func tombstone(_ body: JSONObject, at now: String) -> JSONObject {
        var b = body
        b["deletedAt"] = .string(now)
        b["updatedAt"] = .string(now)
        return b
    }
}

/// The `next` of `sermon.list`: opaque to clients (hex of "sortKey|id").
enum ListCursor {
    static func encode(_ position: (String, String)) -> String { Hex.encode(Array("\(position.0)|\(position.1)".utf8)) }

    static func decode(_ text: String) -> (String, String)? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0, chars.count <= 512 else { return nil }
        var bytes = [UInt8]()
        var i = 0
        while i < chars.count {
            guard let hi = hexValue(chars[i]), let lo = hexValue(chars[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
            i += 2
        }
        // Split at the last "|": the id never holds one, but the sort key (a sermon's stored date, as any
        // device wrote it) may.
        let text = String(decoding: bytes, as: UTF8.self)
        guard let bar = text.lastIndex(of: "|") else { return nil }
        let key = String(text[..<bar]), id = String(text[text.index(after: bar)...])
        guard Identifier.isUUID(id) else { return nil }
        return (key, id)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 97...102: return c - 87
        default: return nil
        }
    }
}
