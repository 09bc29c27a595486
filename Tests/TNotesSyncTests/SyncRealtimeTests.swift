import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.4: with `[sync] realtime` (the default) a device keeps one long-poll pull open, so another
/// device's change arrives in about a second. Every device here has `interval = 600`: only the realtime
/// path can deliver within the test's deadlines.
@Suite("sync: realtime long-poll pulls")
struct SyncRealtimeTests {
    /// Reads a subscription connection until a `record.changed` event for `id` arrives; its arrival time.
    static func awaitRecordChanged(_ sub: RPCClient, id: String, timeout: Double) throws -> Date? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let line = try sub.readLine(timeout: deadline.timeIntervalSinceNow) else { return nil }
            let msg = try JSON.parse(line)
            if msg["params"]?["topic"] == "record.changed", msg["params"]?["id"] == .string(id) { return Date() }
        }
        return nil
    }

    static func subscribe(_ device: DaemonProcess) throws -> RPCClient {
        let sub = try device.client()
        _ = try sub.call("events.subscribe", ["topics": ["record.changed"]])
        return sub
    }

    /// Both devices have synced once and hold their long poll open.
    static func waitRealtime(_ rig: SyncRig) throws {
        for i in rig.devices.indices {
            let c = try rig.rpc(i)
            let ok = try eventually(timeout: 20) { try c.call("sync.status")["realtimeConnected"] == .bool(true) }
            #expect(ok, "device \(i) never opened its long poll:\n\(rig.logs())")
        }
    }

    /// Adds a note on A and returns how long B took to announce it (nil: not within `timeout`).
    static func deliver(_ rig: SyncRig, sermon: String, sub: RPCClient, text: String, timeout: Double = 5) throws -> Double? {
        let added = Date()
        let note = try rig.rpc(0).call("note.add", ["sermonId": .string(sermon), "text": .string(text), "timestamp": 1])
        let id = try #require(note["id"]?.stringValue)
        return try awaitRecordChanged(sub, id: id, timeout: timeout).map { $0.timeIntervalSince(added) }
    }

    @Test("a note added on A reaches B's events.subscribe within 5 s; a server killed for 3 s and restarted loses nothing",
          arguments: Backend.allCases)
    func realtimeDeliveryAndServerRestart(backend: Backend) throws {
        // realtime: nil leaves the key out of tnotesd.toml: the default must be on.
        let rig = try SyncRig(interval: 600, backoffBase: 0.2, backoffMax: 1, realtime: nil, server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let sermon = try #require(try rig.rpc(0).call("sermon.create", ["title": "Realtime"])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            try Self.waitRealtime(rig)
            let sub = try Self.subscribe(rig.b)

            let first = try Self.deliver(rig, sermon: sermon, sub: sub, text: "first")
            #expect(first != nil, "B did not see A's note within 5 s")

            // The server dies for 3 s and comes back on the same port and database.
            let port = rig.server.port
            rig.server.kill9()
            Thread.sleep(forTimeInterval: 3)
            try rig.server.start(port: port)

            // A's next note still reaches B through the realtime path (the devices reconnect by themselves).
            let second = try Self.deliver(rig, sermon: sermon, sub: sub, text: "after the restart", timeout: 15)
            #expect(second != nil, "B did not see a note added after the server restart")
            let onB = try rig.rpc(1).call("sermon.get", ["id": .string(sermon)])
            #expect(Set(onB["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []) == ["first", "after the restart"])
            let status = try rig.rpc(1).call("sync.status")
            #expect((status["triggers"]?["realtime"]?.int64Value ?? 0) >= 2, "\(status.text)")
            #expect(status["triggers"]?["periodic"]?.int64Value == 0, "\(status.text)")
        }
    }

    @Test("realtime = false: no long poll; the change waits for a sync")
    func realtimeOff() throws {
        let rig = try SyncRig(interval: 600, realtime: false)
        defer { rig.stop() }
        try rig.withLogs {
            let sermon = try #require(try rig.rpc(0).call("sermon.create", ["title": "Quiet"])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            let sub = try Self.subscribe(rig.b)
            let status = try rig.rpc(1).call("sync.status")
            #expect(status["realtime"] == false && status["realtimeConnected"] == false, "\(status.text)")
            #expect(try Self.deliver(rig, sermon: sermon, sub: sub, text: "waits", timeout: 3) == nil)
        }
    }

    @Test("a server that ignores wait (answers at once) still works: no busy loop, sync.now delivers")
    func serverIgnoringWait() throws {
        let rig = try SyncRig(devices: 1, proxied: [0], interval: 600, backoffBase: 0.2, backoffMax: 1, realtime: true)
        defer { rig.stop() }
        try rig.withLogs {
            let proxy = try #require(rig.proxy)
            // The proxy strips `wait` from pulls, as an older server would ignore it.
            proxy.setTargetRewriter { target in target.replacingOccurrences(of: "&wait=25", with: "") }
            try rig.syncAll()
            let before = proxy.requestCount
            Thread.sleep(forTimeInterval: 3)
            let during = proxy.requestCount - before
            // Backoff from 0.2 s capped at 1 s, with full jitter: a few pulls a second, never hundreds (a
            // busy loop on loopback makes thousands).
            #expect(during <= 30, "\(during) requests in 3 s")
            _ = try rig.rpc(0).call("sermon.create", ["title": "still syncs"])
            #expect(try rig.rpc(0).call("sync.now", ["wait": true])["pushed"]?.int64Value == 1)
        }
    }

    @Test("the server answers a held pull as soon as the user's change commits, and wait is checked")
    func serverLongPoll() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        let other = try server.addUser("bob")
        try server.start()
        defer { server.stop() }
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        let cursor = try http.pullAll().cursor

        for bad in ["-1", "61", "x", "1.5"] {
            let r = try http.get("/v1/sync/pull?cursor=\(cursor)&wait=\(bad)")
            #expect(r.status == 400, "wait=\(bad): \(r.status) \(r.text)")
            #expect(r.json?["detail"]?.stringValue?.contains("wait") == true, "\(r.text)")
        }

        // Nothing after the cursor: an empty page after about `wait` seconds.
        var t0 = Date()
        let idle = try http.get("/v1/sync/pull?cursor=\(cursor)&wait=1")
        #expect(idle.status == 200 && idle.json?["changes"]?.arrayValue?.isEmpty == true, "\(idle.text)")
        #expect(Date().timeIntervalSince(t0) >= 0.9)

        // Another user's push does not wake alice's pull; alice's own does, at once.
        let waiter = Background { try http.get("/v1/sync/pull?cursor=\(cursor)&wait=20") }
        Thread.sleep(forTimeInterval: 0.5)
        let sid = Wire.id()
        _ = try HTTPTestClient(baseURL: server.baseURL, token: other).push([Wire.change(.sermons, Wire.sermon(sid))])
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!waiter.isDone, "bob's push woke alice's pull")
        t0 = Date()
        _ = try http.push([Wire.change(.sermons, Wire.sermon(sid))])
        let woken = try waiter.value(timeout: 10)
        #expect(Date().timeIntervalSince(t0) < 2)
        #expect(woken.json?["changes"]?.arrayValue?.first?["id"] == .string(sid), "\(woken.text)")
    }
}

/// A blocking call run on a thread of its own, whose result the test collects later.
/// Unchecked because: `result` is written once by the thread before `done` is signalled, and read only after.
final class Background<T>: @unchecked Sendable {
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)
    private let finished = NSLock()
    private var isFinished = false

    init(_ body: @escaping @Sendable () throws -> T) {
        Thread.detachNewThread {
            let r = Result { try body() }
            self.finished.withLock { self.result = r; self.isFinished = true }
            self.done.signal()
        }
    }

    var isDone: Bool { finished.withLock { isFinished } }

    func value(timeout: Double) throws -> T {
        guard done.wait(timeout: .now() + timeout) == .success else { throw HarnessError("no result within \(timeout) s") }
        return try finished.withLock { result! }.get()
    }
}
