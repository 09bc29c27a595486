/// One change as pushed to and pulled from the server (contract §4), and as kept in the outbox:
/// the outbox row holds exactly the text of `json` that will be sent.
public struct Change: Sendable, Equatable {
    public enum Op: String, Sendable { case upsert, delete }

    public var opId: String
    public var collection: RecordCollection
    public var id: String
    public var op: Op
    public var updatedAt: String
    public var deviceId: String
    public var record: JSONObject
    /// The version this edit was made on (contract §6.3), when the device held one: a server whose current
    /// version is another one merges instead of letting one version win. Nil for a new record and for
    /// legacy clients, which follow the plain rule.
    public var base: RecordVersion?

    public init(opId: String, collection: RecordCollection, id: String, op: Op, updatedAt: String, deviceId: String,
                record: JSONObject, base: RecordVersion? = nil) {
        self.base = base
        self.opId = opId
        self.collection = collection
        self.id = id
        self.op = op
        self.updatedAt = updatedAt
        self.deviceId = deviceId
        self.record = record
    }

    public var version: RecordVersion { RecordVersion(updatedAt: updatedAt, deviceId: deviceId) }

    public var json: JSON { json(recordText: nil) }

    /// The change as JSON; `recordText`, when given, is the record's canonical text already written (what the
    /// store keeps), spliced in as it is instead of serializing the record a second time.
    public func json(recordText: String?) -> JSON {
        var o: JSONObject = [
            "opId": .string(opId), "collection": .string(collection.rawValue), "id": .string(id),
            "op": .string(op.rawValue), "updatedAt": .string(updatedAt), "deviceId": .string(deviceId),
            "record": recordText.map { .raw($0) } ?? .object(record),
        ]
        if let base { o["base"] = ["updatedAt": .string(base.updatedAt), "deviceId": .string(base.deviceId)] }
        return .object(o)
    }

    /// Decodes and validates a change from the wire; the record passes the collection's schema and must
    /// agree with the envelope (same id; a delete carries its tombstone).
    public init(json: JSON, requireOpId: Bool = true) throws(FieldError) {
        var recordText: String?
        try self.init(json: json, requireOpId: requireOpId, recordText: &recordText)
    }

    /// As `init(json:requireOpId:)`, with the record's canonical text as it came (`JSON.parseChanges`):
    /// `recordText` is kept while normalizing left the record as given, and set to nil when it did not (a
    /// default added, a value rewritten), so that what it holds afterwards is always `JSON.object(record).text`.
    public init(json: JSON, requireOpId: Bool = true, recordText: inout String?) throws(FieldError) {
        guard case .object(let o) = json else { throw FieldError(field: "change", reason: "must be an object") }
        for key in o.keys {
            switch key {
            case "opId", "collection", "id", "op", "updatedAt", "deviceId", "record", "seq", "base": continue
            default: throw FieldError(field: key, reason: "unknown field")
            }
        }
        let collectionName = try FieldType.string.validate(o["collection"] ?? .null, field: "collection").stringValue!
        guard let collection = RecordCollection(rawValue: collectionName) else {
            throw FieldError(field: "collection", reason: "unknown collection '\(collectionName)'")
        }
        let opId: String
        if requireOpId {
            opId = try FieldType.text.validate(o["opId"] ?? .null, field: "opId").stringValue!
        } else {
            opId = o["opId"]?.stringValue ?? ""
        }
        let id = try FieldType.uuid.validate(o["id"] ?? .null, field: "id").stringValue!
        guard case .string(let opName) = o["op"] ?? .null, let op = Change.Op(rawValue: opName) else {
            throw FieldError(field: "op", reason: "must be one of upsert, delete")
        }
        let updatedAt = try FieldType.time.validate(o["updatedAt"] ?? .null, field: "updatedAt").stringValue!
        let deviceId = try FieldType.text.validate(o["deviceId"] ?? .null, field: "deviceId").stringValue!
        var unchanged = true
        let record = try collection.schema.normalize(o["record"] ?? .null, path: "record", unchanged: &unchanged)
        if !unchanged { recordText = nil }
        var base: RecordVersion?
        if let b = o["base"], !b.isNull {
            guard case .object(let bo) = b else { throw FieldError(field: "base", reason: "must be {updatedAt, deviceId}") }
            for key in bo.keys where key != "updatedAt" && key != "deviceId" {
                throw FieldError(field: "base.\(key)", reason: "unknown field")
            }
            base = RecordVersion(
                updatedAt: try FieldType.time.validate(bo["updatedAt"] ?? .null, field: "base.updatedAt").stringValue!,
                deviceId: try FieldType.text.validate(bo["deviceId"] ?? .null, field: "base.deviceId").stringValue!)
        }
        self.init(opId: opId, collection: collection, id: id, op: op, updatedAt: updatedAt,
                  deviceId: deviceId, record: record, base: base)
        try validate()
    }

    /// The envelope must agree with the record: same id, same updatedAt, and a delete carries its
    /// tombstone (a delete without the data to apply it is a seed bug). Every change is checked by this,
    /// whether it was made locally or came off the wire.
    public func validate() throws(FieldError) {
        guard record.recordId == id else { throw FieldError(field: "record.id", reason: "must equal id") }
        if collection == .chatMessages {
            guard op == .upsert else { throw FieldError(field: "op", reason: "chat messages are append-only") }
            guard record["createdAt"]?.stringValue == updatedAt else {
                throw FieldError(field: "updatedAt", reason: "must equal record.createdAt for a chat message")
            }
        } else {
            guard record.updatedAt == updatedAt else {
                throw FieldError(field: "record.updatedAt", reason: "must equal updatedAt")
            }
            if op == .delete && record.deletedAt == nil {
                throw FieldError(field: "record.deletedAt", reason: "a delete must carry its tombstone (deletedAt)")
            }
            if op == .upsert && record.deletedAt != nil {
                throw FieldError(field: "op", reason: "a record with deletedAt must be sent as a delete")
            }
        }
    }
}
