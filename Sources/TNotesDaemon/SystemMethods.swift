import Synchronization
import TNotesCore
import TNotesDesktop
import TNotesRPC
import TNotesStore
import TNotesSync

#if canImport(Glibc)
import Glibc
#endif

/// `daemon.status`, `rpc.discover`, `events.subscribe` and the `sync.*` methods.
struct SystemMethods {
    let store: Store
    let hub: EventHub
    let info: DaemonInfo
    let discovery: DiscoveryDocument
    let sync: SyncSlot
    /// The desktop's state, for `sync.status` when sync is disabled (nil: no desktop bus, as in the fuzz target).
    var desktop: DesktopBus? = nil

    func register(into table: inout MethodTable) {
        let store = self.store, hub = self.hub, info = self.info, discovery = self.discovery, sync = self.sync, desktop = self.desktop

        table.add(MethodSpec(DaemonStatusMethod.self, summary: "Version, schema, device, process and sync state.",
                             result: ["type": "object"], readOnly: true) { _, _ in
            let syncStatus = try await Self.syncStatus(store: store, sync: sync.engine, desktop: desktop?.current)
            return [
                "version": .string(info.version), "schemaVersion": .int(Int64(store.schemaVersion)),
                "deviceId": .string(store.deviceId), "pid": .int(Int64(getpid())),
                "uptimeSeconds": .double(Double(Timestamp.nowMillis() - info.startedAtMillis) / 1000),
                "socketPath": .string(info.socketPath), "dataDir": .string(info.dataDir), "sync": syncStatus,
                // Search rows wait for the full-text index (after a large pull it fills for a while; a search
                // meanwhile waits for it, and finds everything).
                "searchIndexCatchingUp": .bool(store.searchIndexBehind),
            ]
        })

        table.add(MethodSpec(RPCDiscover.self, summary: "The OpenRPC document of this socket API.",
                             result: ["type": "object"], readOnly: true) { _, _ in
            discovery.document
        })

        table.add(MethodSpec(EventsSubscribe.self, summary: "Receive event notifications on this connection.",
                             notes: [\.topics: "default: every topic"], result: ["type": "object"]) { p, connection in
            let topics = Set(p.topics?.map(\.rawValue) ?? Array(EventHub.topics))
            connection.subscribe(topics)
            // The current state comes with the answer, so a subscriber misses nothing between reading and subscribing.
            let syncStatus = try await Self.syncStatus(store: store, sync: sync.engine, desktop: desktop?.current)
            return ["subscribed": .array(topics.sorted().map { .string($0) }), "seq": .int(hub.lastSeq), "sync": syncStatus]
        })

        table.add(MethodSpec(SyncNow.self, summary: "Sync now; with wait, answer when done.", result: ["type": "object"]) { p, _ in
            guard let sync = sync.engine else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
            guard p.wait ?? false else {
                await sync.trigger(.manual)
                return ["started": true]
            }
            do {
                return try await sync.syncAndWait().json
            } catch {
                throw RPCError.unavailable("sync failed: \(error); the queue is kept and retries continue")
            }
        })

        table.add(MethodSpec(SyncConfirm.self, summary: "Let a held pull make its deletions (sync.status state held), and sync now.",
                             result: ["type": "object"]) { _, _ in
            guard let sync = sync.engine else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
            let held = await sync.confirmHeld()
            return ["confirmed": .bool(held != nil), "deletes": held.map { .int(Int64($0)) } ?? .null]
        })

        table.add(MethodSpec(SyncStatusMethod.self, summary: "The sync engine's state.", result: ["type": "object"], readOnly: true) { _, _ in
            try await Self.syncStatus(store: store, sync: sync.engine, desktop: desktop?.current)
        })

        table.add(MethodSpec(SyncPending.self, summary: "The outbox: changes not yet accepted by the server.",
                             result: ["type": "array"], readOnly: true) { _, _ in
            guard sync.engine != nil else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
            let entries = try await store.read { s in try s.outbox(limit: 10_000) }
            return .array(entries.map {
                ["opId": .string($0.opId), "collection": .string($0.collection), "recordId": .string($0.recordId),
                 "op": .string($0.op), "attempts": .int(Int64($0.attempts)), "lastError": JSON($0.lastError),
                 "state": .string($0.state)]
            })
        })
    }

    static func syncStatus(store: Store, sync: SyncEngine?, desktop: DesktopState?) async throws -> JSON {
        if let sync { return try await sync.status() }
        let counts = store.outboxCounts
        return [
            "state": "disabled", "serverUrl": .null, "pendingOps": .int(Int64(counts.queued)),
            "failedOps": .int(Int64(counts.failed)), "attempt": 0, "nextAttemptAt": .null, "lastSuccessAt": .null,
            "lastError": .null,
            "triggers": .object(JSONObject(SyncTrigger.allCases.map { ($0.rawValue, JSON.int(0)) })),
            "metered": .bool(desktop?.metered ?? false), "onBattery": .bool(desktop?.onBattery ?? false),
        ]
    }
}

/// Facts about this daemon process, fixed at start.
struct DaemonInfo: Sendable {
    let version: String
    let socketPath: String
    let dataDir: String
    let startedAtMillis: Int64
}

/// The OpenRPC document, made once from the finished method table (so it describes exactly what dispatch does).
/// Kept as its canonical text: the document never changes, and writing its ~1,000 objects out again for every
/// `rpc.discover` was most of that call's time (and most of the RPC fuzz target's, perf 2026-11-25).
final class DiscoveryDocument: Sendable {
    private let value = Mutex<JSON>(.null)
    var document: JSON { value.withLock { $0 } }
    func set(_ doc: JSON) { value.withLock { $0 = .raw(doc.text) } }

    /// Record schemas for `components`, generated from the same RecordSchema that validates records.
    static func components() -> JSON {
        var schemas = JSONObject()
        let names: [(RecordCollection, String)] = [(.sermons, "Sermon"), (.notes, "Note"), (.transcripts, "Transcript"),
                                                   (.summaries, "Summary"), (.chatMessages, "ChatMessage")]
        for (collection, name) in names {
            var props = JSONObject()
            for f in collection.schema.fields {
                var s = f.type.schema
                if f.nullable, case .object(var o) = s, let t = o["type"] {
                    o["type"] = .array([t, "null"])
                    s = .object(o)
                }
                props[f.name] = s
            }
            if collection == .sermons {
                props["syncState"] = ["type": "string", "enum": ["pending", "synced", "error"]]
                props["notes"] = ["type": "array", "items": ["$ref": "#/components/schemas/Note"]]
                props["transcript"] = ["oneOf": [["$ref": "#/components/schemas/Transcript"], ["type": "null"]]]
                props["summary"] = ["oneOf": [["$ref": "#/components/schemas/Summary"], ["type": "null"]]]
            }
            schemas[name] = ["type": "object", "properties": .object(props)]
        }
        schemas["Publication"] = ["type": "object", "properties": [
            "sermonId": ["type": "string"], "publicId": ["type": "string"], "parts": ["type": "array", "items": ["type": "string"]],
            "state": ["type": "string", "enum": ["pending", "published", "unpublished"]], "url": ["type": ["string", "null"]],
            "publishedAt": ["type": ["string", "null"]],
        ]]
        return ["schemas": .object(schemas)]
    }
}
