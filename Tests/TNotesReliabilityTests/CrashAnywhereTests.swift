import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Crash-anywhere: device A takes a steady stream of writes while it syncs, and is killed with SIGKILL
/// at random moments (mid-write, mid-push, mid-pull), restarted, and killed again. At the end every
/// write that was acknowledged exists exactly once on A, on the server and on device B; the database
/// passes its integrity check; nothing is left stuck in the outbox.
///
/// CI: 30 kills. Long mode: `TNOTES_RELIABILITY_KILLS=500 swift test --filter CrashAnywhere`.
@Suite("reliability: crash anywhere", .serialized)
struct CrashAnywhereTests {
    static var kills: Int { Int(ProcessInfo.processInfo.environment["TNOTES_RELIABILITY_KILLS"] ?? "") ?? 30 }

    @Test("kill -9 at random moments loses and duplicates nothing")
    func killAnywhere() throws {
        let rig = try SyncRig(devices: 2, interval: 1, backoffBase: 0.05, backoffMax: 0.5, startDevices: false)
        defer { rig.stop() }
        let a = rig.a
        try a.start()
        let sermonId = try #require(try a.client().call("sermon.create", ["title": "crash test"])["id"]?.stringValue)
        let acks = Acknowledged()  // note id → text
        var rng = SystemRandomNumberGenerator()

        for round in 0..<Self.kills {
            if !a.isRunning { try a.start() }
            // Writers hammer the socket until the kill cuts them off; only replies count as acknowledged.
            let stop = Flag()
            let group = DispatchGroup()
            for w in 0..<2 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    guard let c = try? a.client() else { return }
                    var i = 0
                    while !stop.isSet {
                        let text = "r\(round)-w\(w)-\(i)"
                        i += 1
                        guard let note = try? c.call("note.add", ["sermonId": .string(sermonId), "text": .string(text),
                                                                  "timestamp": .int(Int64(i))], timeout: 5),
                              let id = note["id"]?.stringValue else { return }
                        acks.record(id, text)
                        if i % 7 == 0 { _ = try? c.call("note.update", ["id": .string(id), "text": .string(text + "*")], timeout: 5) }
                    }
                }
            }
            usleep(UInt32.random(in: 20_000...600_000, using: &rng))
            a.kill9()
            stop.set()
            group.wait()
        }

        let acknowledged = acks.all
        // Recovery: the restarted daemon drains its queue by itself (startup + timers), then B pulls.
        try a.start()
        let drained = try rig.waitDrained(0, timeout: 60)
        #expect(drained, "A's outbox did not drain: \(rig.logs())")
        let pending = try a.client().call("sync.pending")
        #expect(pending == [], "entries left in A's outbox: \(pending.text)")
        try rig.b.start()
        try rig.b.client().call("sync.now", ["wait": true])

        // Compare by the text each write carried (edits append "*"): a text seen under two ids would be a duplicate.
        func notes(_ d: DaemonProcess) throws -> [String: String] {
            let s = try d.client().call("sermon.get", ["id": .string(sermonId)])
            var out = [String: String]()
            for n in s["notes"]?.arrayValue ?? [] { out[n["id"]!.stringValue!] = n["text"]!.stringValue! }
            return out
        }
        let onA = try notes(a), onB = try notes(rig.b)
        var onServer = [String: String]()
        for c in try rig.serverChanges() where c["collection"] == "notes" && c["op"] == "upsert" {
            onServer[c["id"]!.stringValue!] = c["record"]?["text"]?.stringValue
        }
        var lost = 0, duplicated = 0
        for (id, text) in acknowledged {
            for store in [onA, onB, onServer] {
                guard let t = store[id], t == text || t == text + "*" else { lost += 1; continue }
            }
        }
        for store in [onA, onB, onServer] {
            let bases = store.values.map { $0.hasSuffix("*") ? String($0.dropLast()) : $0 }
            duplicated += bases.count - Set(bases).count
        }
        print("crash-anywhere: kills: \(Self.kills), acknowledged: \(acknowledged.count), lost: \(lost), duplicated: \(duplicated)")
        #expect(acknowledged.count > Self.kills, "the workload barely ran")
        #expect(lost == 0)
        #expect(duplicated == 0)
        #expect(onA == onB, "A and B differ after sync")

        a.stop()
        let check = try ProcessRunner.run(Binaries.path("tnotesd"), ["--check-db", "--data-dir", a.dataDir])
        #expect(check.status == 0, "integrity check failed: \(check.stdout)")
        #expect(check.stdout.contains("integrity_check: ok"))
    }
}

final class Acknowledged: @unchecked Sendable {
    private let lock = NSLock()
    private var map = [String: String]()
    func record(_ id: String, _ text: String) { lock.withLock { map[id] = text } }
    var all: [String: String] { lock.withLock { map } }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
