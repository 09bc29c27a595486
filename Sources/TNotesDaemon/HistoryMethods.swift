import TNotesCore
import TNotesRPC
import TNotesStore

/// Contract §6.3 history: every version this device held, and restoring one as a new edit.
struct HistoryMethods {
    let store: Store

    /// Collections whose records are ever replaced (chat messages are append-only: they have no history).
    static let collections = FieldType.enumeration(RecordCollection.allCases.filter { !$0.isAppendOnly }.map(\.rawValue))

    func register(into table: inout MethodTable) {
        let store = self.store

        table.add(MethodSpec("history.list", summary: "Every version of a record this device held, newest first.", params: [
            ParamSpec("collection", Self.collections, required: true),
            ParamSpec("id", .uuid, required: true),
            ParamSpec("limit", .integer(min: 1, max: 1000), "default 100"),
        ], result: ["type": "object", "properties": ["items": ["type": "array"]]], readOnly: true) { p, _ in
            let collection = try Self.collection(p)
            let id = try p.requiredString("id")
            return try await store.read { s in
                ["items": .array(try s.history(collection, id: id, limit: p.int("limit") ?? 100).map(\.json))]
            }
        })

        table.add(MethodSpec("history.restore", summary: "Restore a held version of a record, as a new edit that syncs.", params: [
            ParamSpec("collection", Self.collections, required: true),
            ParamSpec("id", .uuid, required: true),
            ParamSpec("updatedAt", .time, required: true),
            ParamSpec("deviceId", .string, required: true),
        ], result: ["type": "object"]) { p, _ in
            let collection = try Self.collection(p)
            let id = try p.requiredString("id")
            let version = RecordVersion(updatedAt: try p.requiredString("updatedAt"), deviceId: try p.requiredString("deviceId"))
            return try await store.write { s in
                guard var body = try s.historyVersion(collection, id: id, version: version) else {
                    throw RPCError.notFound("version \(version) of \(collection.rawValue)", id: id)
                }
                // A new edit: stamped now, alive (restoring the version before a delete brings the record back).
                body["updatedAt"] = .string(s.stamp())
                body["deletedAt"] = .null
                return .object(try s.commitLocal(collection, record: body, op: .upsert, reason: .restore).body)
            }
        })
    }

    static func collection(_ p: Params) throws -> RecordCollection {
        let name = try p.requiredString("collection")
        guard let c = RecordCollection(rawValue: name) else {
            throw RPCError.invalidParams(field: "collection", reason: "unknown collection '\(name)'")
        }
        return c
    }
}
