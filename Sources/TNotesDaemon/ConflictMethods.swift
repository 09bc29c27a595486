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

        table.add(MethodSpec(ConflictsList.self, summary: "Conflicts, newest first.", result: ["type": "array"], readOnly: true) { p, _ in
            try await store.read { s in
                let all = try s.live(.conflicts).map { (body: $0.body, conflict: LenientRecord<Conflict>(object: $0.body)) }
                    .filter { p.state == nil || $0.conflict.state == p.state }
                    .sorted { ($0.conflict.createdAt ?? "", $0.body.recordId) > ($1.conflict.createdAt ?? "", $1.body.recordId) }
                return .array(all.map { .object($0.body) })
            }
        })

        table.add(MethodSpec(ConflictsResolve.self, summary: "Set the conflicted field to value and close the conflict.",
                             result: ["type": "object"]) { p, _ in
            let id = p.id
            return try await store.write { s in
                guard let conflict = try s.record(.conflicts, id: id), conflict.body.deletedAt == nil else {
                    throw RPCError.notFound("conflict", id: id)
                }
                let stored = LenientRecord<Conflict>(object: conflict.body)
                guard let collection = stored.collection, let recordId = stored.recordId, let field = stored.field else {
                    throw StoreError.corruptRow("conflict \(id) does not name its record")
                }
                guard var record = try s.record(collection, id: recordId)?.body, record.deletedAt == nil else {
                    throw RPCError.notFound(collection.rawValue, id: recordId)
                }
                let now = s.stamp()
                record[field] = .string(p.value)
                record[Conflict.name(\.updatedAt)] = .string(now)
                try s.commitLocal(collection, record: record, op: .upsert)
                // The conflict as stored, but for what resolving changes.
                var c = conflict.body
                c[Conflict.name(\.state)] = Conflict.State.resolved.fieldJSON
                c[Conflict.name(\.resolvedAt)] = .string(now)
                c[Conflict.name(\.updatedAt)] = .string(now)
                return .object(try s.commitLocal(.conflicts, record: c, op: .upsert).body)
            }
        })
    }
}
