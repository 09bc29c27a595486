import TNotesCore
import TNotesRPC
import TNotesStore

/// Contract §6.3 history: every version this device held, and restoring one as a new edit.
struct HistoryMethods {
    let store: Store

    /// Collections whose records are ever replaced (chat messages are append-only: they have no history).

    func register(into table: inout MethodTable) {
        let store = self.store

        table.add(MethodSpec(HistoryList.self, summary: "Every version of a record this device held, newest first.",
                             notes: [\.limit: "default 100"],
                             result: ["type": "object", "properties": ["items": ["type": "array"]]], readOnly: true) { p, _ in
            try await store.read { s in
                var result = HistoryList.Result()
                result.items = try s.history(p.collection, id: p.id, limit: Int(p.limit ?? 100)).map(\.version)
                return result.fieldJSON
            }
        })

        table.add(MethodSpec(HistoryRestore.self, summary: "Restore a held version of a record, as a new edit that syncs.",
                             result: ["type": "object"]) { p, _ in
            let collection = p.collection, id = p.id
            let version = RecordVersion(updatedAt: p.updatedAt, deviceId: p.deviceId)
            return try await store.write { s in
                guard var body = try s.historyVersion(collection, id: id, version: version) else {
                    throw RPCError.notFound("version \(version) of \(collection.rawValue)", id: id)
                }
                // A new edit: stamped now, alive (restoring the version before a delete brings the record back).
                body[RecordGist.name(\.updatedAt)] = .string(s.stamp())
                body[RecordGist.name(\.deletedAt)] = .null
                return .object(try s.commitLocal(collection, record: body, op: .upsert, reason: .restore).body)
            }
        })
    }
}
