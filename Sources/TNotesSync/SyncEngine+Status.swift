import TNotesCore
import TNotesStore

/// `sync.status`: the engine's state as the socket and `tnotes sync status` show it (contract §8.7 for `audio`).
extension SyncEngine {
    public func status() async throws -> JSON {
        let counts = store.outboxCounts
        var triggers = JSONObject()
        for t in SyncTrigger.allCases { triggers[t.rawValue] = .int(Int64(triggerCounts[t] ?? 0)) }
        var cache: JSON?
        if let audio {
            let usage = try await audio.usage()
            var c = SyncStatus.AudioCache()
            c.mode = audio.settings.mode.rawValue
            c.cacheBytes = audio.settings.cacheBytes
            c.localBytes = usage.bytes
            c.localFiles = Int64(usage.files)
            cache = c.fieldJSON
        }
        var status: JSONObject = [
            "state": .string(state.rawValue), "serverUrl": .string(settings.serverURL),
            "pendingOps": .int(Int64(counts.queued)), "failedOps": .int(Int64(counts.failed)),
            "attempt": .int(Int64(attempt)),
            "nextAttemptAt": state == .backoff || state == .offline ? nextAttemptAt.map { .string(Timestamp.format(millis: $0)) } ?? .null : .null,
            "lastSuccessAt": JSON(lastSuccessAt), "lastError": JSON(lastError), "triggers": .object(triggers),
            "realtime": .bool(settings.realtime), "realtimeConnected": .bool(realtimeConnected),
            "heldDeletes": heldDeletes.map { .int(Int64($0)) } ?? .null,
            "metered": .bool(metered), "onBattery": .bool(onBattery), "intervalSeconds": .double(periodicInterval),
        ]
        status["audio"] = cache
        return .object(status)
    }
}
