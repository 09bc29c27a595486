import TNotesCore
import TNotesRPC
import TNotesStore

/// Backup and restore (issue #21): every record of every collection, tombstones and chat included, out a
/// page at a time, and back in under the normal merge rule. A record keeps its version (`updatedAt`,
/// `deviceId`), so importing the same backup twice changes nothing, and a record the store did not have is
/// queued like a local edit and syncs.
struct BackupMethods {
    let store: Store

    func register(into table: inout MethodTable) {
        let store = self.store

        table.add(MethodSpec(BackupExport.self, summary: "Every record, tombstones and chat included, a page at a time.", notes: [
            \.after: "the `next` of the previous page",
            \.limit: "page size, default 1000",
        ], result: ["type": "object", "properties": ["items": ["type": "array"], "next": ["type": ["string", "null"]],
                                                     "total": ["type": "integer"]]], readOnly: true) { p, _ in
            var after: (String, String)?
            if let cursor = p.after ?? nil {
                guard let decoded = ListCursor.decode(cursor) else {
                    throw RPCError.invalidParams(field: BackupExport.Params.name(\.after), reason: "is not a cursor returned by backup.export")
                }
                after = decoded
            }
            let limit = Int(p.limit ?? 1000)
            return try await store.read { [after] s in
                let page = try s.allRecords(after: after, limit: limit)
                let total = after == nil ? try s.recordCount() : nil
                var o: JSONObject = [
                    "items": .array(page.items.map { ["collection": .string($0.collection), "deviceId": .string($0.deviceId), "record": .raw($0.body)] }),
                    "next": page.next.map { .string(ListCursor.encode($0)) } ?? .null,
                ]
                if let total { o[field: \Page.total] = .int(Int64(total)) }
                return .object(o)
            }
        })

        table.add(MethodSpec(BackupImport.self, summary: """
            Merge records from a backup: each under the normal rule with its own version, so a second import \
            changes nothing; records this store did not have are queued like local edits and sync.
            """, notes: [
                \.items: "[{collection, deviceId, record}] as backup.export gave them",
            ], result: ["type": "object", "properties": ["applied": ["type": "integer"], "unchanged": ["type": "integer"]]]) { p, _ in
            let raw = p.items
            guard raw.count <= 5000 else { throw RPCError.invalidParams(field: BackupImport.Params.name(\.items), reason: "at most 5000 per call") }
            var changes: [Change] = []
            changes.reserveCapacity(raw.count)
            for (i, item) in raw.enumerated() {
                guard let name = item["collection"]?.stringValue, let collection = RecordCollection(rawValue: name) else {
                    throw RPCError.invalidParams(field: "items[\(i)].collection", reason: "is not a collection")
                }
                guard case .string(let deviceId)? = item["deviceId"], !deviceId.isEmpty else {
                    throw RPCError.invalidParams(field: "items[\(i)].deviceId", reason: "is required")
                }
                let record: JSONObject
                do { record = try collection.schema.normalize(item["record"] ?? .null, path: "items[\(i)].record") } catch let e as FieldError {
                    throw RPCError.invalidParams(e)
                }
                let op: Change.Op = record.deletedAt == nil ? .upsert : .delete
                let change = Change(opId: Identifier.make(), collection: collection, id: record.recordId, op: op,
                                    updatedAt: record.updatedAt, deviceId: deviceId, record: record)
                do { try change.validate() } catch let e as FieldError {
                    throw RPCError.invalidParams(field: "items[\(i)].\(e.field)", reason: e.reason)
                }
                changes.append(change)
            }
            let batch = changes
            let applied = try await store.write { s in
                var n = 0
                for c in batch where try s.apply(c, origin: .local) == .applied { n += 1 }
                return n
            }
            return BackupImport.Result(applied: Int64(applied), unchanged: Int64(batch.count - applied)).fieldJSON
        })
    }
}
