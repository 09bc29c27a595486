import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// The sync engine behind a `FaultProxy`: Retry-After is honoured, 5xx answers back off and heal, a
/// rejected change does not block the ones after it, and a lost response never duplicates a change.
@Suite("sync faults")
struct SyncFaultTests {
    /// A rig with one device behind the proxy, a sermon synced, and the local-change debounce of that
    /// first write already spent (so the test's own triggers are the only ones).
    func prepared(devices: Int = 1) throws -> (SyncRig, FaultProxy, RPCClient, String) {
        let rig = try SyncRig(devices: devices, proxied: [0], backoffBase: 0.2, backoffMax: 1)
        let proxy = try #require(rig.proxy)
        let ca = try rig.rpc(0)
        let id = try #require(try ca.call("sermon.create", ["title": "Faults"])["id"]?.stringValue)
        try ca.call("sync.now", ["wait": true])
        usleep(1_300_000)
        return (rig, proxy, ca, id)
    }

    @Test("429 with Retry-After: 3 — the next attempt comes no sooner than 3 s later, then the queue drains")
    func retryAfterIsHonoured() throws {
        let (rig, proxy, ca, id) = try prepared()
        defer { rig.stop() }
        try rig.withLogs {
            proxy.setFault(.respond(status: 429, retryAfter: 3), times: 1)
            let before = proxy.requestCount
            try ca.call("note.add", ["sermonId": .string(id), "text": "throttled", "timestamp": 1])
            #expect(try ca.callError("sync.now", ["wait": true]).code == -32005)
            let status = try ca.call("sync.status")
            #expect(status["state"] == "backoff")
            #expect(status["lastError"]?.stringValue?.contains("429") == true, "\(status.text)")

            let seen = proxy.seen
            let faulted = try #require(seen.dropFirst(before).first { $0.fault != .passThrough })
            #expect(faulted.fault == .respond(status: 429, retryAfter: 3))
            let next = try #require(status["nextAttemptAt"]?.stringValue.flatMap(Timestamp.parse))
            let failedAtMillis = faulted.at.timeIntervalSince1970 * 1000
            #expect(Double(next) - failedAtMillis >= 2_990, "nextAttemptAt \(next) vs failure at \(failedAtMillis)")

            #expect(try rig.waitDrained(0, timeout: 15), "\(rig.logs())")
            let all = proxy.seen
            let index = try #require(all.firstIndex { $0.at == faulted.at && $0.fault == faulted.fault })
            let retry = try #require(all.dropFirst(index + 1).first)
            #expect(retry.at.timeIntervalSince(faulted.at) >= 2.99, "retried after \(retry.at.timeIntervalSince(faulted.at)) s")
            #expect(proxy.faultsInjected == 1)
            #expect(try rig.serverChanges().contains { $0["record"]?["text"] == "throttled" })
        }
    }

    @Test("503 and 500 answers keep the queue and retry with growing attempts; pass-through drains it")
    func serverErrorsBackOffAndHeal() throws {
        let (rig, proxy, ca, id) = try prepared()
        defer { rig.stop() }
        try rig.withLogs {
            proxy.setFault(.respond(status: 503))
            try ca.call("note.add", ["sermonId": .string(id), "text": "during 503", "timestamp": 1])
            #expect(try ca.callError("sync.now", ["wait": true]).code == -32005)
            let status = try ca.call("sync.status")
            #expect(status["lastError"]?.stringValue?.contains("503") == true, "\(status.text)")
            #expect(status["pendingOps"]?.int64Value == 1)

            proxy.setFault(.respond(status: 500))
            var last = status
            #expect(try eventually(timeout: 10) {
                last = try ca.call("sync.status")
                return last["lastError"]?.stringValue?.contains("500") == true && (last["attempt"]?.int64Value ?? 0) >= 3
            }, "\(last.text)")
            #expect(last["pendingOps"]?.int64Value == 1)

            proxy.passThrough()
            #expect(try rig.waitDrained(0, timeout: 10), "\(rig.logs())")
            #expect(proxy.faultsInjected >= 3)
            #expect(try rig.serverChanges().filter { $0["record"]?["text"] == "during 503" }.count == 1)
        }
    }

    /// A push the daemon makes is always valid, so the proxy corrupts one change on the wire (its
    /// collection becomes unknown); the server rejects that one and applies the rest of the batch.
    @Test("a change the server rejects is marked failed and does not block later changes")
    func rejectedChangeDoesNotBlock() throws {
        let (rig, proxy, ca, id) = try prepared(devices: 2)
        defer { rig.stop() }
        try rig.withLogs {
            proxy.setRewriter { method, path, body in
                guard method == "POST", path.hasPrefix("/v1/sync/push"), case .object(var o)? = try? JSON.parse(body),
                      let changes = o["changes"]?.arrayValue
                else { return nil }
                o["changes"] = .array(changes.map { c in
                    guard c["record"]?["text"] == "REJECT ME", case .object(var co) = c else { return c }
                    co["collection"] = "bogus"
                    return .object(co)
                })
                return JSON.object(o).bytes
            }
            let bad = try #require(try ca.call("note.add", ["sermonId": .string(id), "text": "REJECT ME", "timestamp": 1])["id"]?.stringValue)
            let good1 = try #require(try ca.call("note.add", ["sermonId": .string(id), "text": "fine 1", "timestamp": 2])["id"]?.stringValue)
            let report = try ca.call("sync.now", ["wait": true])
            #expect(report["pushed"]?.int64Value == 1)
            #expect(report["rejected"]?.int64Value == 1)

            let pending = try ca.call("sync.pending").arrayValue ?? []
            #expect(pending.count == 1)
            #expect(pending.first?["recordId"]?.stringValue == bad)
            #expect(pending.first?["state"] == "failed")
            #expect(pending.first?["lastError"]?.stringValue?.isEmpty == false)
            let status = try ca.call("sync.status")
            #expect(status["failedOps"]?.int64Value == 1)
            #expect(status["pendingOps"]?.int64Value == 0)

            // A later change goes through; the failed one stays failed and is not resent.
            let good2 = try #require(try ca.call("note.add", ["sermonId": .string(id), "text": "fine 2", "timestamp": 3])["id"]?.stringValue)
            let pushesBefore = proxy.seen(method: "POST", pathPrefix: "/v1/sync/push").count
            let report2 = try ca.call("sync.now", ["wait": true])
            #expect(report2["pushed"]?.int64Value == 1)
            #expect(report2["rejected"]?.int64Value == 0)
            #expect(proxy.seen(method: "POST", pathPrefix: "/v1/sync/push").count == pushesBefore + 1)

            let onServer = Set(try rig.serverChanges().compactMap { $0["id"]?.stringValue })
            #expect(onServer.contains(good1) && onServer.contains(good2))
            #expect(!onServer.contains(bad))
            let cb = try rig.rpc(1)
            try cb.call("sync.now", ["wait": true])
            let texts = (try cb.call("sermon.get", ["id": .string(id)])["notes"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
            #expect(texts == ["fine 1", "fine 2"])
            #expect(try ca.call("sermon.get", ["id": .string(id)])["notes"]?.arrayValue?.count == 3)
        }
    }

    @Test("the response to an applied push is lost: after recovery each change is on the server exactly once, queue empty")
    func droppedResponseIsIdempotent() throws {
        let (rig, proxy, ca, id) = try prepared()
        defer { rig.stop() }
        try rig.withLogs {
            proxy.setFault(.dropResponse, method: "POST", pathPrefix: "/v1/sync/push", times: 1)
            var ids = [String]()
            for i in 0..<3 {
                let n = try ca.call("note.add", ["sermonId": .string(id), "text": .string("lost answer \(i)"), "timestamp": .int(Int64(i))])
                ids.append(try #require(n["id"]?.stringValue))
            }
            #expect(try ca.callError("sync.now", ["wait": true]).code == -32005)
            let dropped = try #require(proxy.seen.first { $0.fault == .dropResponse })
            #expect(dropped.upstreamStatus == 200)
            // The server applied the batch although the daemon never heard so.
            let applied = Set(try rig.serverChanges().compactMap { $0["id"]?.stringValue })
            #expect(ids.allSatisfy { applied.contains($0) })

            #expect(try rig.waitDrained(0, timeout: 10), "\(rig.logs())")
            #expect(try ca.call("sync.pending") == [])
            let changes = try rig.serverChanges()
            for n in ids { #expect(changes.filter { $0["id"]?.stringValue == n }.count == 1) }
            #expect(proxy.faultsInjected == 1)
            #expect(proxy.seen(method: "POST", pathPrefix: "/v1/sync/push").count >= 2)
            let notes = try ca.call("sermon.get", ["id": .string(id)])["notes"]?.arrayValue ?? []
            #expect(notes.count == 3)
        }
    }

    @Test("latency and blackhole: a slow server still syncs; a silent one fails the wait with -32005, then heals")
    func latencyAndBlackhole() throws {
        let (rig, proxy, ca, id) = try prepared()
        defer { rig.stop() }
        try rig.withLogs {
            proxy.latency = 0.3
            try ca.call("note.add", ["sermonId": .string(id), "text": "slow", "timestamp": 1])
            let started = Date()
            try ca.call("sync.now", ["wait": true])
            #expect(Date().timeIntervalSince(started) >= 0.3)
            proxy.latency = 0

            proxy.setFault(.blackhole)
            try ca.call("note.add", ["sermonId": .string(id), "text": "into the void", "timestamp": 2])
            let t0 = Date()
            let error = try ca.callError("sync.now", ["wait": true])
            #expect(error.code == -32005)
            #expect(Date().timeIntervalSince(t0) < 30)
            proxy.passThrough()
            #expect(try rig.waitDrained(0, timeout: 30), "\(rig.logs())")
            #expect(try rig.serverChanges().filter { $0["record"]?["text"] == "into the void" }.count == 1)
        }
    }
}
