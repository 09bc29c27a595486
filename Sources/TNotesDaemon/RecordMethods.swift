import TNotesCore
import TNotesRPC
import TNotesStore

/// The record methods of contract §2: sermons, notes, transcripts, summaries, chat.
/// Every write runs in one store transaction that also queues its outbox entries.
struct RecordMethods {
    let store: Store
    /// The sync server's base URL, for the URL of a published page (nil when sync is off).
    var sync = SyncSlot()
    /// The running recording's clock: a `note.add` without `timestamp` for its sermon is stamped with it.
    var recordingClock: RecordingClock? = nil

    static let status = FieldType.enumeration(StatusValues.processing)
    static let sermonResult: JSON = ["$ref": "#/components/schemas/Sermon"]

    func register(into table: inout MethodTable) {
        let store = self.store, slot = sync, clock = recordingClock

        table.add(MethodSpec(SermonCreate.self, summary: "Create a sermon.", notes: [
            \.date: "RFC 3339 time or YYYY-MM-DD; default now",
            \.id: "client-chosen id; default a new UUID",
        ], result: Self.sermonResult, queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let id = p.id ?? Identifier.make()
                if try s.record(.sermons, id: id) != nil {
                    throw RPCError.conflict("a sermon with id \(id) exists")
                }
                let now = s.stamp()
                var sermon = Sermon()
                sermon.id = id
                sermon.title = p.title
                sermon.date = p.date ?? now
                if let serviceType = p.serviceType { sermon.serviceType = serviceType }
                sermon.speaker = p.speaker ?? nil
                sermon.createdAt = now
                sermon.updatedAt = now
                let saved = try s.commitLocal(.sermons, record: sermon.record, op: .upsert)
                return try RecordViews.sermon(saved, in: s, withChildren: true)
            }
        })

        table.add(MethodSpec(SermonGet.self, summary: "A sermon with its live notes (by timestamp), transcript and summary.",
                             result: Self.sermonResult, readOnly: true) { p, _ in
            try await store.read { s in
                let id = p.id
                guard let rec = try s.record(.sermons, id: id) else { throw StoreError.notFound(collection: "sermons", id: id) }
                return try RecordViews.sermon(rec, in: s, withChildren: true, publicBase: slot.serverURL)
            }
        })

        table.add(MethodSpec(SermonList.self, summary: "Sermons, newest date first, a page at a time.", notes: [
            \.limit: "page size, default 100",
            \.after: "the `next` of the previous page",
        ], result: ["type": "object", "properties": ["items": ["type": "array"], "next": ["type": ["string", "null"]]]], readOnly: true) { p, _ in
            var after: (String, String)?
            if let cursor = p.after ?? nil {
                guard let decoded = ListCursor.decode(cursor) else {
                    throw RPCError.invalidParams(field: SermonList.Params.name(\.after), reason: "is not a cursor returned by sermon.list")
                }
                after = decoded
            }
            return try await store.read { [after] s in
                let page = try s.sermons(includeArchived: p.includeArchived ?? false,
                                         includeDeleted: p.includeDeleted ?? false,
                                         limit: Int(p.limit ?? 100), after: after)
                var result = Page()
                result.items = try page.items.map { try RecordViews.sermon($0, in: s, withChildren: false) }
                result.next = page.next.map(ListCursor.encode)
                return result.fieldJSON
            }
        })

        table.add(MethodSpec(SermonUpdate.self, summary: "Change a sermon's fields.", result: Self.sermonResult,
                             queuesOneWrite: true) { p, _ in
            try await store.write { s in
                // The stored body is kept as it is but for the fields given.
                var body = try Self.live(.sermons, p.id, in: s).body
                var changed = p.record
                changed[SermonUpdate.Params.name(\.id)] = nil
                for (key, value) in changed { body[key] = value }
                body[Sermon.name(\.updatedAt)] = .string(s.stamp())
                let saved = try s.commitLocal(.sermons, record: body, op: .upsert)
                return try RecordViews.sermon(saved, in: s, withChildren: true)
            }
        })

        table.add(MethodSpec(SermonDelete.self, summary: "Tombstone a sermon and its notes, transcript and summary.",
                             result: ["type": "object", "properties": ["id": ["type": "string"], "deletedAt": ["type": "string"]]], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let sermon = try Self.live(.sermons, p.id, in: s)
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

        table.add(MethodSpec(NoteAdd.self, summary: "Add a note to a sermon.", notes: [
            \.timestamp: "seconds into the audio; default the recording's clock when this sermon is recording",
        ], result: ["$ref": "#/components/schemas/Note"], queuesOneWrite: true) { p, _ in
            // Read before the write waits its turn: the note is stamped when it was asked for.
            guard let timestamp = p.timestamp ?? clock?.elapsed(sermonId: p.sermonId) else {
                throw RPCError.invalidParams(field: NoteAdd.Params.name(\.timestamp), reason: "is required (this sermon is not recording)")
            }
            return try await store.write { s in
                var sermonId = p.sermonId
                do {
                    try s.requireLive(.sermons, sermonId)
                } catch StoreError.gone(let collection, _) where collection == RecordCollection.sermons.rawValue {
                    // Deleted while it records (here, or by a pull): what is typed during the service is not
                    // refused; it goes to the sermon the recording's audio goes to at the stop, made now.
                    guard let file = clock?.fileName(sermonId: sermonId) else { throw StoreError.gone(collection: collection, id: sermonId) }
                    sermonId = try RecordingController.sermonForRecording(file, ofDeleted: sermonId, in: s)
                }
                var note = Note()
                // A new random id needs no look: only a caller's own id can already be taken.
                if let given = p.id {
                    if try s.record(.notes, id: given) != nil { throw RPCError.conflict("a note with id \(given) exists") }
                    note.id = given
                } else {
                    note.id = Identifier.make()
                }
                let now = s.stamp()
                note.sermonId = sermonId
                note.text = p.text
                note.timestamp = timestamp
                note.createdAt = now
                note.updatedAt = now
                return .object(try s.commitLocal(.notes, record: note.record, op: .upsert).body)
            }
        })

        table.add(MethodSpec(NoteGet.self, summary: "One note (a deleted one too, with its deletedAt).",
                             result: ["$ref": "#/components/schemas/Note"], readOnly: true) { p, _ in
            try await store.read { s in
                let id = p.id
                guard let note = try s.record(.notes, id: id) else { throw StoreError.notFound(collection: "notes", id: id) }
                return .object(note.body)
            }
        })

        table.add(MethodSpec(NoteUpdate.self, summary: "Change a note's text or timestamp.",
                             result: ["$ref": "#/components/schemas/Note"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let stored = try Self.live(.notes, p.id, in: s).body
                // The stored body is kept as it is but for what changes (a field stored before the bounds too).
                var body = stored
                if let t = p.text { body[Note.name(\.text)] = t.fieldJSON }
                if let t = p.timestamp { body[Note.name(\.timestamp)] = t.fieldJSON }
                body[Note.name(\.updatedAt)] = .string(s.stamp())
                return .object(try s.commitLocal(.notes, record: body, op: .upsert).body)
            }
        })

        table.add(MethodSpec(NoteDelete.self, summary: "Tombstone a note.", result: ["type": "object"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let note = try Self.live(.notes, p.id, in: s)
                let now = s.stamp()
                try s.commitLocal(.notes, record: Self.tombstone(note.body, at: now), op: .delete)
                return ["id": .string(note.id), "deletedAt": .string(now)]
            }
        })

        table.add(MethodSpec(TranscriptSet.self, summary: "Set (create or replace) a sermon's transcript.", notes: [
            \.segments: "[{start, end, text, speaker?}] — a JSON array, never a string",
        ], result: ["$ref": "#/components/schemas/Transcript"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                .object(try s.setTranscript(sermonId: p.sermonId, text: .string(p.text),
                                            status: (p.status ?? .complete).fieldJSON, segments: (p.segments ?? []).fieldJSON).body)
            }
        })

        table.add(MethodSpec(SummarySet.self, summary: "Set (create or replace) a sermon's summary.",
                             result: ["$ref": "#/components/schemas/Summary"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                // Set by a person: automatic summaries leave it alone (only summary.generate replaces it).
                .object(try s.setSummary(sermonId: p.sermonId, title: .string(p.title), text: .string(p.text),
                                         type: p.type.fieldJSON, status: (p.status ?? .complete).fieldJSON, generatedBy: nil).body)
            }
        })

        table.add(MethodSpec(ChatAppend.self, summary: "Append a chat message to a sermon (append-only).",
                             result: ["$ref": "#/components/schemas/ChatMessage"], queuesOneWrite: true) { p, _ in
            try await store.write { s in
                let sermon = try Self.live(.sermons, p.sermonId, in: s)
                var message = ChatMessage()
                message.id = p.id ?? Identifier.make()
                if try s.record(.chatMessages, id: message.id) != nil {
                    throw RPCError.conflict("a chat message with id \(message.id) exists")
                }
                message.sermonId = sermon.id
                message.role = p.role
                message.content = p.content
                message.createdAt = s.stamp()
                message.deviceId = s.deviceId
                return .object(try s.commitLocal(.chatMessages, record: message.record, op: .upsert).body)
            }
        })

        table.add(MethodSpec(ChatList.self, summary: "A sermon's chat, ordered by (createdAt, id, deviceId).",
                             result: ["type": "array"], readOnly: true) { p, _ in
            try await store.read { s in
                let id = p.sermonId
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
        b[field: \RecordHead.deletedAt] = .string(now)
        b[field: \RecordHead.updatedAt] = .string(now)
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
