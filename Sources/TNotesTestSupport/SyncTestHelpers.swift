import Foundation
import TNotesCore

/// The `[sync]` section of a `tnotesd.toml` (contract §7 keys). `realtime` is off unless asked for (nil
/// leaves the key out: the daemon's default, on): a test that counts syncs or connections must not see the
/// long poll's; the realtime tests turn it on.
public func syncConfigText(serverURL: String, interval: Double = 300, backoffBase: Double? = nil,
                           backoffMax: Double? = nil, batchSize: Int? = nil, realtime: Bool? = false) -> String
{
    var s = "[sync]\nserver_url = \"\(serverURL)\"\ninterval = \(interval)\n"
    if let realtime { s += "realtime = \(realtime)\n" }
    if let backoffBase { s += "backoff_base = \(backoffBase)\n" }
    if let backoffMax { s += "backoff_max = \(backoffMax)\n" }
    if let batchSize { s += "batch_size = \(batchSize)\n" }
    return s
}

/// Polls `condition` every `every` seconds until it holds or `timeout` passes; whether it held.
@discardableResult
public func eventually(timeout: Double, every: Double = 0.1, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(UInt32(every * 1_000_000))
    }
}

/// One `tnotes-server` (SQLite) with one user, and `devices` daemons syncing to it as that user — each
/// either directly or through a shared `FaultProxy` (`proxied` lists device indexes).
/// Unchecked because: a test owns the rig and starts, stops and queries its processes from its own thread;
/// the processes and proxy it holds are themselves safe to share.
public final class SyncRig: @unchecked Sendable {
    public let server: ServerProcess
    public let token: String
    public let proxy: FaultProxy?
    public let devices: [DaemonProcess]
    public let proxied: Set<Int>

    public var a: DaemonProcess { devices[0] }
    public var b: DaemonProcess { devices[1] }

    /// Starts the server, the proxy (when some device uses it) and every daemon.
    public init(devices count: Int = 2, proxied: Set<Int> = [], interval: Double = 300, backoffBase: Double = 0.2,
                backoffMax: Double = 1, batchSize: Int? = nil, startDevices: Bool = true, realtime: Bool? = false,
                server given: ServerProcess? = nil, deviceURLs: [String]? = nil) throws
    {
        server = given ?? ServerProcess()
        token = try server.addUser("alice")
        try server.start()
        self.proxied = proxied
        proxy = proxied.isEmpty ? nil : try FaultProxy(frontOf: server)
        var ds = [DaemonProcess]()
        for i in 0..<count {
            let d = DaemonProcess(environment: ["TNOTES_TOKEN": token])
            let url = deviceURLs?[i] ?? (proxied.contains(i) ? proxy!.baseURL : server.baseURL)
            let path = try d.dir.write("tnotesd.toml", syncConfigText(serverURL: url, interval: interval, backoffBase: backoffBase,
                                                                      backoffMax: backoffMax, batchSize: batchSize, realtime: realtime))
            d.extraArguments = ["--config", path]
            ds.append(d)
        }
        devices = ds
        if startDevices {
            do {
                for d in devices { try d.start() }
            } catch {
                stop()
                throw error
            }
        }
    }

    /// A new socket connection to device `i`.
    public func rpc(_ i: Int) throws -> RPCClient { try devices[i].client() }

    /// The server's HTTP API as the rig's user.
    public var http: HTTPTestClient { HTTPTestClient(baseURL: server.baseURL, token: token) }

    /// Every change in the server's log for this user, in sequence order.
    public func serverChanges() throws -> [JSON] { try http.pullAll().changes }

    /// The server's current version of a record: the last logged change for `id` (nil when it has none).
    public func serverRecord(_ id: String) throws -> JSON? {
        try serverChanges().last { $0["id"]?.stringValue == id }?["record"]
    }

    /// `sync.now {wait: true}` on each device in turn, `rounds` times.
    public func syncAll(rounds: Int = 1, order: [Int]? = nil) throws {
        for _ in 0..<rounds {
            for i in order ?? Array(devices.indices) { try rpc(i).call("sync.now", ["wait": true]) }
        }
    }

    /// Polls device `i`'s `sync.status` until `pendingOps` is 0 and the engine is `idle` (the sync that
    /// pushed the last change has also finished its pull) — true — or `timeout` passes (false).
    public func waitDrained(_ i: Int, timeout: Double = 20) throws -> Bool {
        let c = try rpc(i)
        return try eventually(timeout: timeout, every: 0.1) {
            let s = try c.call("sync.status")
            return s["pendingOps"]?.int64Value == 0 && s["state"]?.stringValue == "idle"
        }
    }

    /// The tail of every log, for a failure message.
    public func logs(_ tail: Int = 3000) -> String {
        var s = "--- server ---\n\(server.log.suffix(tail))\n"
        for (i, d) in devices.enumerated() { s += "--- device \(i) ---\n\(d.log.suffix(tail))\n" }
        return s
    }

    /// Runs `body`; an error it throws comes back with the tail of every log attached.
    public func withLogs<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw HarnessError("\(error)\n\(logs())")
        }
    }

    public func stop() {
        for d in devices { d.stop() }
        proxy?.stop()
        server.stop()
    }

    deinit { stop() }
}

extension JSON {
    /// The value with the given object keys removed (at the top level).
    public func removing(_ keys: String...) -> JSON {
        guard case .object(var o) = self else { return self }
        for k in keys { o[k] = nil }
        return .object(o)
    }
}
