import TNotesCore
import TNotesRPC
import TNotesStore

/// Contract §6.3 conflicts: passages two devices changed differently. The server's merge made each one
/// (the record's field already holds both versions); resolving sets the field and closes the conflict,
/// both as local edits that sync, so it closes on every device.
struct ConflictMethods {
    let store: Store

    func register(into table: inout MethodTable) {
        let store = self.store

        table.add(MethodSpec("conflicts.list", summary: "Conflicts, newest first.", params: [
            ParamSpec("state", .enumeration(["open", "resolved"])),
        ], result: ["type": "array"], readOnly: true) { p, _ in
            let state = p.string("state")
            return try await store.read { s in
                let all = try s.live(.conflicts).map(\.body)
                    .filter { state == nil || $0["state"]?.stringValue == state }
                    .sorted { ($0["createdAt"]?.stringValue ?? "", $0.recordId) > ($1["createdAt"]?.stringValue ?? "", $1.recordId) }
                return .array(all.map { .object($0) })
            }
        })

        table.add(MethodSpec("conflicts.resolve", summary: "Set the conflicted field to value and close the conflict.", params: [
            ParamSpec("id", .uuid, required: true),
            ParamSpec("value", .string, required: true),
        ], result: ["type": "object"]) { p, _ in
            let id = try p.requiredString("id")
            let value = try p.required("value")
            return try await store.write { s in
                guard let conflict = try s.record(.conflicts, id: id), conflict.body.deletedAt == nil else {
                    throw RPCError.notFound("conflict", id: id)
                }
                var c = conflict.body
                guard let name = c["collection"]?.stringValue, let collection = RecordCollection(rawValue: name),
                      let recordId = c["recordId"]?.stringValue, let field = c["field"]?.stringValue else {
                    throw StoreError.corruptRow("conflict \(id) does not name its record")
                }
                guard var record = try s.record(collection, id: recordId)?.body, record.deletedAt == nil else {
                    throw RPCError.notFound(collection.rawValue, id: recordId)
                }
                let now = s.stamp()
                record[field] = value
                record["updatedAt"] = .string(now)
                try s.commitLocal(collection, record: record, op: .upsert)
                c["state"] = "resolved"
                c["resolvedAt"] = .string(now)
                c["updatedAt"] = .string(now)
                return .object(try s.commitLocal(.conflicts, record: c, op: .upsert).body)
            }
        })
    }
}
