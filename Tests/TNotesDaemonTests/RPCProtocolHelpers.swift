import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Integration tests of contract §2 / §7 (JSON-RPC 2.0 over the Unix socket) against a real tnotesd.
// Every test runs its own daemon in its own temp dir, so the tests may run in parallel.

// Helpers of the JSON-RPC protocol tests (RPCProtocolTests, RPCFramingTests); named apart from other
// test files' helpers of the same kind.

/// Starts a daemon (optionally with a config file) and returns it.
func startRPCDaemon(config: String? = nil) throws -> DaemonProcess {
    let d = DaemonProcess()
    if let config {
        let path = try d.dir.write("tnotesd.toml", config)
        d.extraArguments += ["--config", path]
    }
    return try d.start()
}

/// Runs `body` against a fresh daemon, then stops it and expects a clean exit (status 0).
func withRPCDaemon(config: String? = nil, _ body: (DaemonProcess) throws -> Void) throws {
    let d = try startRPCDaemon(config: config)
    do {
        try body(d)
    } catch {
        _ = d.stop()
        throw error
    }
    let status = d.stop()
    #expect(status == 0, "tnotesd did not exit 0 on SIGTERM (status \(String(describing: status))); log:\n\(d.log)")
}

/// Reads one line and parses it (throws when there is none within `timeout`).
func readReply(_ c: RPCClient, timeout: Double = 30) throws -> JSON {
    guard let line = try c.readLine(timeout: timeout) else { throw HarnessError("no reply line within \(timeout) s") }
    return try JSON.parse(line)
}

/// Checks that `reply` is a JSON-RPC error response with `code` (and `id`, and `data.field` when given).
func expectError(_ reply: JSON, code: Int64, id: JSON = .null, field: String? = nil,
                             sourceLocation: SourceLocation = #_sourceLocation)
{
    #expect(reply["jsonrpc"] == "2.0", "reply: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["id"] == id, "reply id, reply: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["result"] == nil, "an error reply has no result: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["error"]?["code"]?.int64Value == code, "reply: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["error"]?["message"]?.stringValue?.isEmpty == false, "error message: \(reply.text)",
            sourceLocation: sourceLocation)
    if let field {
        #expect(reply["error"]?["data"]?["field"]?.stringValue == field, "data.field, reply: \(reply.text)",
                sourceLocation: sourceLocation)
        #expect(reply["error"]?["data"]?["reason"]?.stringValue != nil, "data.reason, reply: \(reply.text)",
                sourceLocation: sourceLocation)
    }
}

/// Checks that `reply` is a successful response with `id`.
func expectResult(_ reply: JSON, id: JSON, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply["jsonrpc"] == "2.0", "reply: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["id"] == id, "reply id, reply: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["error"] == nil, "unexpected error: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["result"] != nil, "no result: \(reply.text)", sourceLocation: sourceLocation)
}

/// The -32602 error of a call, checked for its field.
func expectInvalidParams(_ c: RPCClient, _ method: String, _ params: JSON, field: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws
{
    let e = try c.callError(method, params)
    #expect(e.code == -32602, "\(method) \(params.text): \(e)", sourceLocation: sourceLocation)
    #expect(e.field == field, "\(method) \(params.text): \(e)", sourceLocation: sourceLocation)
    #expect(e.data?["reason"]?.stringValue != nil, "\(method): data.reason missing: \(e)", sourceLocation: sourceLocation)
}

func rpcRequest(_ id: JSON?, _ method: String, _ params: JSON? = nil) -> JSON {
    var o: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
    if let id { o["id"] = id }
    if let params { o["params"] = params }
    return .object(o)
}

let aUUID = "0b9e2a57-3f3c-4c7e-9a43-5a3e0c1d2e4f"

/// Thread-safe collection of results from worker threads.
final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    private var count = 0
    func fail(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    func succeed() { lock.lock(); count += 1; lock.unlock() }
    var failures: [String] { lock.lock(); defer { lock.unlock() }; return items }
    var successes: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// Lets `n` threads wait until all of them arrived.
final class Barrier: @unchecked Sendable {
    private let cond = NSCondition()
    private var waiting: Int
    init(_ n: Int) { waiting = n }
    func arriveAndWait(timeout: Double = 60) {
        cond.lock()
        waiting -= 1
        if waiting <= 0 { cond.broadcast() }
        let deadline = Date().addingTimeInterval(timeout)
        while waiting > 0 && cond.wait(until: deadline) {}
        cond.unlock()
    }
}

/// Runs `body(i)` for i in 0..<n, each on its own thread (blocking clients); true when all finished in time.
func runThreads(_ n: Int, timeout: Double, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for i in 0..<n {
        group.enter()
        let t = Thread {
            body(i)
            group.leave()
        }
        t.stackSize = 1 << 20
        t.start()
    }
    return group.wait(timeout: .now() + timeout) == .success
}
