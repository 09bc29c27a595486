import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// The server goes away: local writes go on, sync reports unavailable and backs off, and once the server
/// is back the queue drains by itself — each change exactly once. A daemon restarted with a queue sends it.
@Suite("sync outage")
struct SyncOutageTests {
    @Test("server down: writes succeed, -32005 within 30 s, backoff attempts grow; server back: queue drains once; restart sends the queue")
    func serverDownThenBack() throws {
        let rig = try SyncRig(devices: 1, backoffBase: 0.2, backoffMax: 1)
        defer { rig.stop() }
        try rig.withLogs {
            var ca = try rig.rpc(0)
            let sermonId = try #require(try ca.call("sermon.create", ["title": "Before the outage"])["id"]?.stringValue)
            try ca.call("sync.now", ["wait": true])
            let port = rig.server.port
            #expect(rig.server.stop() != nil)

            // Local writes succeed while the server is down.
            var noteIds = [String]()
            for i in 0..<3 {
                let n = try ca.call("note.add", ["sermonId": .string(sermonId), "text": .string("offline \(i)"), "timestamp": .int(Int64(i))])
                noteIds.append(try #require(n["id"]?.stringValue))
            }
            try ca.call("sermon.update", ["id": .string(sermonId), "title": "Edited offline"])
            let transcriptId = try #require(try ca.call("transcript.set", ["sermonId": .string(sermonId), "text": "offline tx"])["id"]?.stringValue)

            let started = Date()
            let failure = try ca.callError("sync.now", ["wait": true])
            #expect(failure.code == -32005)
            #expect(Date().timeIntervalSince(started) < 30)

            let status = try ca.call("sync.status")
            #expect(["backoff", "offline"].contains(status["state"]?.stringValue ?? ""), "\(status.text)")
            // 3 notes, the sermon edit, the transcript, and the sermon again (its transcriptionStatus follows the transcript).
            #expect(status["pendingOps"]?.int64Value == 6)
            #expect(status["lastError"]?.stringValue != nil)
            let firstAttempt = status["attempt"]?.int64Value ?? 0
            #expect(firstAttempt >= 1)
            // Retries continue on the backoff timer alone (no more triggers from the test).
            var lastStatus = status
            let grew = try eventually(timeout: 10, every: 0.1) {
                lastStatus = try ca.call("sync.status")
                return (lastStatus["attempt"]?.int64Value ?? 0) >= firstAttempt + 2
            }
            #expect(grew, "attempt stayed at \(lastStatus["attempt"]?.text ?? "?"): \(lastStatus.text)")
            let pending = try ca.call("sync.pending").arrayValue ?? []
            #expect(pending.count == 6)
            #expect(pending.allSatisfy { $0["state"] == "queued" && ($0["attempts"]?.int64Value ?? 0) >= 1 })

            // The server comes back on the same port: the backoff timer drains the queue without any manual sync.
            try restartServer(rig, port: port)
            #expect(try rig.waitDrained(0, timeout: 20), "\(rig.logs())")
            let after = try ca.call("sync.status")
            #expect(after["state"] == "idle")
            #expect(after["attempt"]?.int64Value == 0)
            #expect(after["lastError"]?.isNull == true)
            #expect(after["triggers"]?["manual"]?.int64Value == 2)

            let changes = try rig.serverChanges()
            func count(_ id: String) -> Int { changes.filter { $0["id"]?.stringValue == id }.count }
            for n in noteIds { #expect(count(n) == 1) }
            #expect(count(transcriptId) == 1)
            #expect(count(sermonId) == 3)  // created, edited offline, then its transcriptionStatus followed the transcript
            #expect(try rig.serverRecord(sermonId)?["title"] == "Edited offline")
            #expect(Self.duplicateVersions(changes).isEmpty)

            // The daemon is stopped with a queue that the server never saw; on restart the startup trigger sends it.
            #expect(rig.server.stop() != nil)
            let late = try ca.call("note.add", ["sermonId": .string(sermonId), "text": "queued across a restart", "timestamp": 99])
            let lateId = try #require(late["id"]?.stringValue)
            #expect(try ca.call("sync.status")["pendingOps"]?.int64Value == 1)
            #expect(rig.a.stop() == 0)
            try restartServer(rig, port: port)
            try rig.a.start()
            ca = try rig.rpc(0)
            #expect(try rig.waitDrained(0, timeout: 15), "\(rig.logs())")
            let restarted = try ca.call("sync.status")
            #expect(restarted["triggers"]?["startup"]?.int64Value == 1)
            #expect(restarted["triggers"]?["manual"]?.int64Value == 0)
            let final = try rig.serverChanges()
            #expect(final.filter { $0["id"]?.stringValue == lateId }.count == 1)
            #expect(final.count == changes.count + 1)
            #expect(Self.duplicateVersions(final).isEmpty)
        }
    }

    /// Versions (collection, id, updatedAt, deviceId) that the server logged more than once.
    static func duplicateVersions(_ changes: [JSON]) -> [String] {
        var seen = [String: Int]()
        for c in changes {
            let key = [c["collection"], c["id"], c["updatedAt"], c["deviceId"]].map { $0?.text ?? "-" }.joined(separator: " ")
            seen[key, default: 0] += 1
        }
        return seen.filter { $0.value > 1 }.map(\.key)
    }

    /// Starts the rig's server again on `port` (the daemons' configured URL); retries while the port is busy.
    func restartServer(_ rig: SyncRig, port: Int) throws {
        var lastError: (any Error)?
        for _ in 0..<20 {
            do {
                try rig.server.start(port: port)
                return
            } catch {
                lastError = error
                usleep(250_000)
            }
        }
        throw lastError ?? HarnessError("server did not restart")
    }
}
