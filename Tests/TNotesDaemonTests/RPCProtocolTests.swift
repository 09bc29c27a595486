import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Integration tests of contract §2 / §7 (JSON-RPC 2.0 over the Unix socket) against a real tnotesd.
// Every test runs its own daemon in its own temp dir, so the tests may run in parallel.

// MARK: - Helpers (fileprivate: other test files of this target may use the same names)

/// Starts a daemon (optionally with a config file) and returns it.
fileprivate func startDaemon(config: String? = nil) throws -> DaemonProcess {
    let d = DaemonProcess()
    if let config {
        let path = try d.dir.write("tnotesd.toml", config)
        d.extraArguments += ["--config", path]
    }
    return try d.start()
}

/// Runs `body` against a fresh daemon, then stops it and expects a clean exit (status 0).
fileprivate func withDaemon(config: String? = nil, _ body: (DaemonProcess) throws -> Void) throws {
    let d = try startDaemon(config: config)
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
fileprivate func readReply(_ c: RPCClient, timeout: Double = 30) throws -> JSON {
    guard let line = try c.readLine(timeout: timeout) else { throw HarnessError("no reply line within \(timeout) s") }
    return try JSON.parse(line)
}

/// Checks that `reply` is a JSON-RPC error response with `code` (and `id`, and `data.field` when given).
fileprivate func expectError(_ reply: JSON, code: Int64, id: JSON = .null, field: String? = nil,
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
fileprivate func expectResult(_ reply: JSON, id: JSON, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply["jsonrpc"] == "2.0", "reply: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["id"] == id, "reply id, reply: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["error"] == nil, "unexpected error: \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["result"] != nil, "no result: \(reply.text)", sourceLocation: sourceLocation)
}

/// The -32602 error of a call, checked for its field.
fileprivate func expectInvalidParams(_ c: RPCClient, _ method: String, _ params: JSON, field: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws
{
    let e = try c.callError(method, params)
    #expect(e.code == -32602, "\(method) \(params.text): \(e)", sourceLocation: sourceLocation)
    #expect(e.field == field, "\(method) \(params.text): \(e)", sourceLocation: sourceLocation)
    #expect(e.data?["reason"]?.stringValue != nil, "\(method): data.reason missing: \(e)", sourceLocation: sourceLocation)
}

fileprivate func request(_ id: JSON?, _ method: String, _ params: JSON? = nil) -> JSON {
    var o: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
    if let id { o["id"] = id }
    if let params { o["params"] = params }
    return .object(o)
}

fileprivate let aUUID = "0b9e2a57-3f3c-4c7e-9a43-5a3e0c1d2e4f"

/// Thread-safe collection of results from worker threads.
fileprivate final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    private var count = 0
    func fail(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    func succeed() { lock.lock(); count += 1; lock.unlock() }
    var failures: [String] { lock.lock(); defer { lock.unlock() }; return items }
    var successes: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// Lets `n` threads wait until all of them arrived.
fileprivate final class Barrier: @unchecked Sendable {
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
fileprivate func runThreads(_ n: Int, timeout: Double, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
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

// MARK: - Tests

@Suite("JSON-RPC 2.0 protocol over the Unix socket (contract §2, §7)")
struct RPCProtocolTests {

    // MARK: Error codes

    @Test("-32700 parse error: truncated JSON, garbage, invalid UTF-8; the connection stays usable")
    func parseErrors() throws {
        try withDaemon { d in
            let c = try d.client()
            try c.send(line: #"{"jsonrpc":"2.0","id":1,"method":"daemon.status""#)
            expectError(try readReply(c), code: -32700)

            try c.send(line: "hello, this is not json")
            expectError(try readReply(c), code: -32700)

            try c.send(line: #"{"jsonrpc":"2.0","id":1,"method":"daemon.status"} trailing"#)
            expectError(try readReply(c), code: -32700)

            // Bytes that are not UTF-8 at all.
            try c.send(bytes: [0xFF, 0xFE, 0xFD, 0x00, 0x80, 0x0A])
            expectError(try readReply(c), code: -32700)

            // Valid JSON structure, but an invalid UTF-8 sequence inside a string.
            var bad = Array(#"{"jsonrpc":"2.0","id":2,"method":"daemon.st"#.utf8)
            bad += [0xC3, 0x28]
            bad += Array(#"atus"}"#.utf8) + [0x0A]
            try c.send(bytes: bad)
            expectError(try readReply(c), code: -32700)

            // A lone continuation byte / overlong encoding of '/'.
            var overlong = Array(#"{"jsonrpc":"2.0","id":3,"method":"x"#.utf8)
            overlong += [0xC0, 0xAF]
            overlong += Array(#""}"#.utf8) + [0x0A]
            try c.send(bytes: overlong)
            expectError(try readReply(c), code: -32700)

            // The same connection still answers.
            let r = try c.exchange(request(7, "daemon.status"))
            expectResult(r, id: 7)
        }
    }

    @Test("-32600 invalid request: wrong jsonrpc, bad method, bad id type, non-object request, empty batch")
    func invalidRequests() throws {
        try withDaemon { d in
            let c = try d.client()
            expectError(try c.exchange(raw: #"{"jsonrpc":"1.0","id":11,"method":"daemon.status"}"#), code: -32600, id: 11)
            expectError(try c.exchange(raw: #"{"id":12,"method":"daemon.status"}"#), code: -32600, id: 12)
            expectError(try c.exchange(raw: #"{"jsonrpc":2.0,"id":13,"method":"daemon.status"}"#), code: -32600, id: 13)
            expectError(try c.exchange(raw: #"{"jsonrpc":"2.0","id":14,"method":42}"#), code: -32600, id: 14)
            expectError(try c.exchange(raw: #"{"jsonrpc":"2.0","id":15}"#), code: -32600, id: 15)
            expectError(try c.exchange(raw: #"{"jsonrpc":"2.0","id":16,"method":null}"#), code: -32600, id: 16)
            // An id of a type JSON-RPC does not allow: the reply's id is null.
            expectError(try c.exchange(raw: #"{"jsonrpc":"2.0","id":{"a":1},"method":"daemon.status"}"#), code: -32600)
            expectError(try c.exchange(raw: #"{"jsonrpc":"2.0","id":[1],"method":"daemon.status"}"#), code: -32600)
            expectError(try c.exchange(raw: #"{"jsonrpc":"2.0","id":true,"method":"daemon.status"}"#), code: -32600)
            // Requests that are not objects.
            expectError(try c.exchange(raw: "42"), code: -32600)
            expectError(try c.exchange(raw: #""daemon.status""#), code: -32600)
            expectError(try c.exchange(raw: "null"), code: -32600)
            expectError(try c.exchange(raw: "true"), code: -32600)
            // params must be structured.
            expectError(try c.exchange(raw: #"{"jsonrpc":"2.0","id":17,"method":"daemon.status","params":"x"}"#),
                        code: -32600, id: 17)
            // An empty batch: one error object, not an array.
            let empty = try c.exchange(raw: "[]")
            #expect(empty.arrayValue == nil, "empty batch must answer a single error object: \(empty.text)")
            expectError(empty, code: -32600)
            // A batch of non-objects: one error per element, in an array.
            let bad = try c.exchange(raw: "[1,2,3]")
            let items = try #require(bad.arrayValue, "batch reply must be an array: \(bad.text)")
            #expect(items.count == 3)
            for item in items { expectError(item, code: -32600) }

            expectResult(try c.exchange(request("after", "daemon.status")), id: "after")
        }
    }

    @Test("-32601 method not found, with the id echoed")
    func methodNotFound() throws {
        try withDaemon { d in
            let c = try d.client()
            expectError(try c.exchange(request("abc", "no.such.method")), code: -32601, id: "abc")
            expectError(try c.exchange(request(5, "sermon.Create", ["title": "x"])), code: -32601, id: 5)
            expectError(try c.exchange(request(6, "")), code: -32601, id: 6)
            let e = try c.callError("sermon.explode")
            #expect(e.code == -32601)
        }
    }

    @Test("-32602 invalid params name the field: unknown, missing, wrong type, bad UUID, bad enum, negative timestamp")
    func invalidParams() throws {
        try withDaemon { d in
            let c = try d.client()
            let sermon = try c.call("sermon.create", ["title": "Params"])
            let sid = try #require(sermon["id"]?.stringValue)

            // Unknown param.
            try expectInvalidParams(c, "sermon.create", ["title": "x", "bogus": 1], field: "bogus")
            try expectInvalidParams(c, "sermon.get", ["id": .string(sid), "extra": true], field: "extra")
            // A param with an empty name (found by the RPC fuzzer): the error still names a field.
            try expectInvalidParams(c, "sermon.list", ["limit": 2, "": true], field: "params")
            // Missing param.
            try expectInvalidParams(c, "sermon.create", [:], field: "title")
            try expectInvalidParams(c, "sermon.get", [:], field: "id")
            try expectInvalidParams(c, "note.add", ["sermonId": .string(sid), "text": "t"], field: "timestamp")
            try expectInvalidParams(c, "summary.set", ["sermonId": .string(sid), "title": "t", "text": "x"], field: "type")
            // Wrong type.
            try expectInvalidParams(c, "sermon.create", ["title": 5], field: "title")
            try expectInvalidParams(c, "sermon.update", ["id": .string(sid), "isArchived": "yes"], field: "isArchived")
            try expectInvalidParams(c, "note.add", ["sermonId": .string(sid), "text": "t", "timestamp": "12"],
                                    field: "timestamp")
            try expectInvalidParams(c, "sermon.list", ["limit": "10"], field: "limit")
            try expectInvalidParams(c, "sermon.create", ["title": "x", "date": "yesterday"], field: "date")
            // Bad UUID.
            try expectInvalidParams(c, "sermon.get", ["id": "not-a-uuid"], field: "id")
            try expectInvalidParams(c, "sermon.get", ["id": 12345], field: "id")
            try expectInvalidParams(c, "note.add", ["sermonId": "1234", "text": "t", "timestamp": 1], field: "sermonId")
            try expectInvalidParams(c, "sermon.create", ["title": "x", "id": "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"],
                                    field: "id")
            // Enum outside its set.
            try expectInvalidParams(c, "summary.set",
                                    ["sermonId": .string(sid), "title": "t", "text": "x", "type": "poem"], field: "type")
            try expectInvalidParams(c, "chat.append", ["sermonId": .string(sid), "role": "system", "content": "hi"],
                                    field: "role")
            try expectInvalidParams(c, "sermon.update", ["id": .string(sid), "transcriptionStatus": "done"],
                                    field: "transcriptionStatus")
            try expectInvalidParams(c, "transcript.set", ["sermonId": .string(sid), "text": "x", "status": "unknown"],
                                    field: "status")
            // Negative timestamp.
            try expectInvalidParams(c, "note.add", ["sermonId": .string(sid), "text": "t", "timestamp": -1], field: "timestamp")
            try expectInvalidParams(c, "note.add", ["sermonId": .string(sid), "text": "t", "timestamp": -0.5],
                                    field: "timestamp")

            // Over the wire: the whole error object.
            let r = try c.exchange(request("p", "sermon.get", ["id": "nope"]))
            expectError(r, code: -32602, id: "p", field: "id")

            // Nothing of the above was written: the sermon has no notes, no summary.
            let got = try c.call("sermon.get", ["id": .string(sid)])
            #expect(got["notes"]?.arrayValue?.count == 0)
            #expect(got["summary"] == .null)
            #expect(got["transcriptionStatus"] == "pending")
        }
    }

    @Test("-32001 not found for unknown ids")
    func notFound() throws {
        try withDaemon { d in
            let c = try d.client()
            let u: JSON = .string(aUUID)
            let calls: [(String, JSON)] = [
                ("sermon.get", ["id": u]),
                ("sermon.update", ["id": u, "title": "x"]),
                ("sermon.delete", ["id": u]),
                ("note.update", ["id": u, "text": "x"]),
                ("note.delete", ["id": u]),
                ("note.add", ["sermonId": u, "text": "x", "timestamp": 1]),
                ("transcript.set", ["sermonId": u, "text": "x"]),
                ("summary.set", ["sermonId": u, "title": "t", "text": "x", "type": "bullet"]),
                ("chat.append", ["sermonId": u, "role": "user", "content": "x"]),
                ("chat.list", ["sermonId": u]),
                ("audio.path", ["sermonId": u]),
                ("audio.import", ["sermonId": u, "path": "/etc/passwd"]),
            ]
            for (method, params) in calls
            {
                let e = try c.callError(method, params)
                #expect(e.code == -32001, "\(method): \(e)")
            }
            let r = try c.exchange(request(99, "sermon.get", ["id": .string(aUUID)]))
            expectError(r, code: -32001, id: 99)
        }
    }

    @Test("-32002 conflict when creating with an id that exists")
    func duplicateIdConflict() throws {
        try withDaemon { d in
            let c = try d.client()
            let s = try c.call("sermon.create", ["title": "First", "id": .string(aUUID)])
            #expect(s["id"] == .string(aUUID))
            let e = try c.callError("sermon.create", ["title": "Second", "id": .string(aUUID)])
            #expect(e.code == -32002, "\(e)")
            // The first one is untouched.
            #expect(try c.call("sermon.get", ["id": .string(aUUID)])["title"] == "First")

            let noteId = "5d0a3b1e-8c2f-4e6a-b7d9-0f1e2d3c4b5a"
            _ = try c.call("note.add", ["sermonId": .string(aUUID), "text": "n", "timestamp": 1, "id": .string(noteId)])
            let e2 = try c.callError("note.add", ["sermonId": .string(aUUID), "text": "m", "timestamp": 2, "id": .string(noteId)])
            #expect(e2.code == -32002, "\(e2)")

            let chatId = "6e1b4c2f-9d30-4f7b-88ea-1a2b3c4d5e6f"
            _ = try c.call("chat.append", ["sermonId": .string(aUUID), "role": "user", "content": "q", "id": .string(chatId)])
            let e3 = try c.callError("chat.append",
                                     ["sermonId": .string(aUUID), "role": "user", "content": "q2", "id": .string(chatId)])
            #expect(e3.code == -32002, "\(e3)")
        }
    }

    @Test("-32003 for a line over limits.max_request_bytes: reply, connection closed, nothing stored")
    func oversizedLine() throws {
        try withDaemon(config: "[limits]\nmax_request_bytes = 2048\n") { d in
            let c = try d.client()
            // A line under the limit works.
            let small = try c.call("sermon.list", [:])
            #expect(small["items"]?.arrayValue?.count == 0)

            let title = String(repeating: "x", count: 5000)
            try c.send(line: request(1, "sermon.create", ["title": .string(title)]).text)
            let reply = try readReply(c)
            expectError(reply, code: -32003)
            #expect(c.isClosedByPeer(timeout: 15), "the connection must be closed after -32003")

            // Nothing was stored: a new connection sees no sermon, deleted or not.
            let c2 = try d.client()
            let list = try c2.call("sermon.list", ["includeDeleted": true, "includeArchived": true])
            #expect(list["items"]?.arrayValue?.count == 0, "\(list.text)")
            #expect(try c2.call("sync.status")["pendingOps"]?.int64Value == 0)

            // A batch over the limit is refused the same way.
            let c3 = try d.client()
            let batch: JSON = .array((0..<40).map { i in request(.int(Int64(i)), "sermon.create", ["title": .string("batch title \(i) padding padding")]) })
            #expect(batch.text.utf8.count > 2048)
            try c3.send(line: batch.text)
            expectError(try readReply(c3), code: -32003)
            #expect(c3.isClosedByPeer(timeout: 15))
            let c4 = try d.client()
            #expect(try c4.call("sermon.list", ["includeDeleted": true])["items"]?.arrayValue?.count == 0)
        }
    }

    @Test("-32005 unavailable for sync.now and sync.pending while sync is disabled")
    func syncUnavailable() throws {
        try withDaemon { d in
            let c = try d.client()
            for (method, params) in [("sync.now", JSON.object([:])), ("sync.now", ["wait": true]), ("sync.now", ["wait": false]),
                                     ("sync.pending", JSON.object([:]))]
            {
                let e = try c.callError(method, params)
                #expect(e.code == -32005, "\(method) \(params.text): \(e)")
            }
            expectError(try c.exchange(request("s", "sync.now", ["wait": true])), code: -32005, id: "s")
            expectError(try c.exchange(request("p", "sync.pending")), code: -32005, id: "p")
        }
    }

    // MARK: Ids and notifications

    @Test("ids of string, number and null are echoed")
    func idsEchoed() throws {
        try withDaemon { d in
            let c = try d.client()
            let ids: [JSON] = ["abc", "", "ünïcödé-ïd", 0, 42, -7, 9_007_199_254_740_991, 1.5, .null]
            for id in ids {
                let r = try c.exchange(request(id, "daemon.status"))
                expectResult(r, id: id)
            }
            // Raw text, so the id's form on the wire is exactly what we sent.
            let r = try c.exchange(raw: #"{"id":"x-1","method":"sermon.list","jsonrpc":"2.0","params":{}}"#)
            expectResult(r, id: "x-1")
            let e = try c.exchange(raw: #"{"jsonrpc":"2.0","id":null,"method":"no.such"}"#)
            expectError(e, code: -32601, id: .null)
        }
    }

    @Test("notifications (no id) get no reply, but are executed")
    func notificationsGetNoReply() throws {
        try withDaemon { d in
            let c = try d.client()
            try c.send(line: request(nil, "sermon.create", ["title": "from a notification"]).text)
            try c.send(line: request(nil, "no.such.method").text)
            try c.send(line: request(nil, "sermon.get", ["id": "not-a-uuid"]).text)
            try c.send(line: request(nil, "sync.now").text)
            try c.send(line: request(1, "sermon.list").text)
            let first = try readReply(c)
            expectResult(first, id: 1)
            let titles = first["result"]?["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
            #expect(titles == ["from a notification"], "\(first.text)")
        }
    }

    // MARK: Batches

    @Test("a mixed batch replies only for its calls (including the invalid element)")
    func mixedBatch() throws {
        try withDaemon { d in
            let c = try d.client()
            let batch: JSON = [
                request(1, "sermon.create", ["title": "batch one"]),
                request(nil, "sermon.create", ["title": "batch notification"]),
                42,
                request("b", "daemon.status"),
                request(3, "no.such.method"),
                request(nil, "no.such.method"),
                request(4, "sermon.get", ["id": "bad"]),
            ]
            let reply = try c.exchange(batch)
            let items = try #require(reply.arrayValue, "a batch reply is an array: \(reply.text)")
            #expect(items.count == 5, "\(reply.text)")
            func item(_ id: JSON) -> JSON? { items.first { $0["id"] == id } }
            let one = try #require(item(1))
            expectResult(one, id: 1)
            #expect(one["result"]?["title"] == "batch one")
            expectResult(try #require(item("b")), id: "b")
            expectError(try #require(item(3)), code: -32601, id: 3)
            expectError(try #require(item(4)), code: -32602, id: 4, field: "id")
            let invalid = items.filter { $0["id"] == .null }
            #expect(invalid.count == 1, "\(reply.text)")
            if let inv = invalid.first { expectError(inv, code: -32600) }

            // Both creates ran.
            let list = try c.call("sermon.list")
            let titles = Set(list["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? [])
            #expect(titles == ["batch one", "batch notification"])
        }
    }

    @Test("a batch's writes share group commits yet behave as if run one after another, replies in order")
    func batchWritesInOrder() throws {
        try withDaemon { d in
            let c = try d.client()
            let sermon = Identifier.make(), note = Identifier.make(), missing = Identifier.make()
            var calls: [JSON] = [
                request(1, "sermon.create", ["id": .string(sermon), "title": "grouped"]),
                // Sees the sermon created by the call before it (queued, not yet committed when this one starts).
                request(2, "note.add", ["id": .string(note), "sermonId": .string(sermon), "text": "first", "timestamp": 1]),
                request(3, "note.update", ["id": .string(note), "text": "second"]),
                // A failing write in the middle changes nothing and stops nothing.
                request(4, "note.add", ["sermonId": .string(missing), "text": "orphan", "timestamp": 2]),
                request(5, "note.add", ["id": .string(note), "sermonId": .string(sermon), "text": "duplicate id", "timestamp": 3]),
                // A read: it waits for the writes before it, so it sees all of them.
                request(6, "sermon.get", ["id": .string(sermon)]),
            ]
            for k in 0..<200 {
                calls.append(request(.int(Int64(100 + k)), "note.add", ["sermonId": .string(sermon), "text": .string("bulk \(k)"),
                                                                         "timestamp": .int(Int64(10 + k))]))
            }
            calls.append(request(7, "note.delete", ["id": .string(note)]))
            calls.append(request(8, "sermon.get", ["id": .string(sermon)]))
            let reply = try c.exchange(.array(calls))
            let items = try #require(reply.arrayValue, "\(reply.text.prefix(300))")
            #expect(items.map { $0["id"] } == calls.map { $0["id"] }, "replies in request order")
            expectResult(items[0], id: 1)
            #expect(items[1]["result"]?["text"] == "first")
            #expect(items[2]["result"]?["text"] == "second")
            expectError(items[3], code: -32001, id: 4)
            #expect(items[4]["error"]?["code"] != nil, "a second note with the same id is refused: \(items[4].text)")
            let seen = items[5]["result"]?["notes"]?.arrayValue ?? []
            #expect(seen.map { $0["text"] } == ["second"], "the read saw every write before it: \(items[5].text)")
            for item in items[6..<206] { #expect(item["result"]?["sermonId"] == .string(sermon), "\(item.text)") }
            expectResult(items[206], id: 7)
            let last = items[207]["result"]?["notes"]?.arrayValue ?? []
            #expect(last.count == 200 && !last.contains { $0["id"] == .string(note) })
        }
    }

    @Test("a batch of only notifications gets no reply")
    func batchOfNotifications() throws {
        try withDaemon { d in
            let c = try d.client()
            let batch: JSON = [
                request(nil, "sermon.create", ["title": "n1"]),
                request(nil, "daemon.status"),
                request(nil, "no.such.method"),
            ]
            try c.send(line: batch.text)
            try c.send(line: request("after", "sermon.list").text)
            let first = try readReply(c)
            expectResult(first, id: "after")
            #expect(first["result"]?["items"]?.arrayValue?.count == 1)
        }
    }

    // MARK: Framing

    @Test("a request split across two writes with a pause is answered")
    func splitRequest() throws {
        try withDaemon { d in
            let c = try d.client()
            let bytes = Array(request(1, "sermon.create", ["title": "split"]).text.utf8)
            let half = bytes.count / 2
            try c.send(bytes: Array(bytes[..<half]))
            usleep(500_000)
            try c.send(bytes: Array(bytes[half...]))
            usleep(200_000)
            try c.send(bytes: [0x0A])
            let r = try readReply(c)
            expectResult(r, id: 1)
            #expect(r["result"]?["title"] == "split")
            // Split inside a multi-byte UTF-8 character.
            let u = Array(request(2, "sermon.create", ["title": "é€😀"]).text.utf8) + [0x0A]
            let cut = u.firstIndex(of: 0xF0)! + 2
            try c.send(bytes: Array(u[..<cut]))
            usleep(300_000)
            try c.send(bytes: Array(u[cut...]))
            let r2 = try readReply(c)
            expectResult(r2, id: 2)
            #expect(r2["result"]?["title"] == "é€😀")
        }
    }

    @Test("several requests in one write are answered in order")
    func severalRequestsInOneWrite() throws {
        try withDaemon { d in
            let c = try d.client()
            var text = ""
            for i in 1...8 { text += request(.int(Int64(i)), "sermon.create", ["title": .string("t\(i)")]).text + "\n" }
            text += request(9, "sermon.list", ["limit": 100]).text + "\n"
            try c.send(bytes: Array(text.utf8))
            for i in 1...8 {
                let r = try readReply(c)
                expectResult(r, id: .int(Int64(i)))
                #expect(r["result"]?["title"] == .string("t\(i)"))
            }
            let list = try readReply(c)
            expectResult(list, id: 9)
            #expect(list["result"]?["items"]?.arrayValue?.count == 8)
        }
    }

    /// Lines that arrive together are answered together (one write); order and completeness must hold
    /// however the stream is cut, and lines before an over-limit line are still answered before the refusal.
    @Test("500 pipelined requests in one write: 500 answers in order; good lines before an over-limit one are answered first")
    func pipelinedBatchesAndOverflow() throws {
        try withDaemon(config: "[limits]\nmax_request_bytes = 4096\n") { d in
            let c = try d.client()
            let sermon = try #require(try c.call("sermon.create", ["title": "pipelined"])["id"])
            var text = ""
            for i in 1...500 {
                let r = i % 2 == 0 ? request(.int(Int64(i)), "sermon.get", ["id": sermon])
                    : request(.int(Int64(i)), "note.add", ["sermonId": sermon, "text": .string("n\(i)"), "timestamp": .int(Int64(i))])
                text += r.text + "\n"
            }
            try c.send(bytes: Array(text.utf8))
            for i in 1...500 {
                let r = try readReply(c)
                expectResult(r, id: .int(Int64(i)))
                if i % 2 == 0 {
                    // Each read sees every write answered before it on this connection.
                    #expect(r["result"]?["notes"]?.arrayValue?.count == i / 2)
                }
            }

            let c2 = try d.client()
            let good = request(1, "sermon.create", ["title": "before the overflow"]).text + "\n"
                + request(2, "daemon.status").text + "\n"
            let huge = request(3, "sermon.create", ["title": .string(String(repeating: "x", count: 6000))]).text + "\n"
            try c2.send(bytes: Array((good + huge).utf8))
            expectResult(try readReply(c2), id: 1)
            expectResult(try readReply(c2), id: 2)
            expectError(try readReply(c2), code: -32003)
            #expect(c2.isClosedByPeer(timeout: 15))
            let titles = try d.client().call("sermon.list", [:])["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
            #expect(Set(titles) == ["pipelined", "before the overflow"])
        }
    }

    @Test("\\r\\n line endings are accepted")
    func crlfLineEndings() throws {
        try withDaemon { d in
            let c = try d.client()
            let text = request(1, "daemon.status").text + "\r\n" + request(2, "sermon.create", ["title": "crlf"]).text + "\r\n"
            try c.send(bytes: Array(text.utf8))
            expectResult(try readReply(c), id: 1)
            let r = try readReply(c)
            expectResult(r, id: 2)
            #expect(r["result"]?["title"] == "crlf")
            // Blank lines between requests are not requests.
            try c.send(bytes: Array(("\r\n\n" + request(3, "daemon.status").text + "\r\n").utf8))
            expectResult(try readReply(c), id: 3)
        }
    }

    @Test("a last line without newline, then shutdown of the write side, is answered")
    func lastLineWithoutNewline() throws {
        try withDaemon { d in
            let c = try d.client()
            try c.send(bytes: Array(request(1, "sermon.create", ["title": "no newline"]).text.utf8))
            #expect(shutdown(c.fd, Int32(SHUT_WR)) == 0)
            let line = try c.readLine(timeout: 30)
            #expect(line != nil, "no reply to a last line ended by SHUT_WR; log tail:\n\(String(d.log.suffix(1500)))")
            if let line {
                let r = try JSON.parse(line)
                expectResult(r, id: 1)
                #expect(r["result"]?["title"] == "no newline")
            }
            #expect(c.isClosedByPeer(timeout: 15))

            // A complete line followed by an unterminated one, then SHUT_WR: both answered, in order.
            let c2 = try d.client()
            let text = request(2, "daemon.status").text + "\n" + request(3, "sermon.list").text
            try c2.send(bytes: Array(text.utf8))
            #expect(shutdown(c2.fd, Int32(SHUT_WR)) == 0)
            let first = try c2.readLine(timeout: 30)
            #expect(first != nil, "no reply to the complete line before the unterminated one")
            if let first { expectResult(try JSON.parse(first), id: 2) }
            let last = first == nil ? nil : try c2.readLine(timeout: 30)
            #expect(last != nil, "no reply to the unterminated last line")
            if let last { expectResult(try JSON.parse(last), id: 3) }

            // The answered write was stored.
            let c3 = try d.client()
            let titles = try c3.call("sermon.list")["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
            #expect(titles == ["no newline"])
        }
    }

    // MARK: Concurrency

    @Test("70 concurrent clients all succeed while another client stalls mid-line")
    func concurrentClientsWithStaller() throws {
        try withDaemon { d in
            // The staller: half a request, then nothing.
            let staller = try d.client()
            try staller.send(bytes: Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8))

            let n = 70
            let results = Collector()
            let barrier = Barrier(n)
            let finished = runThreads(n, timeout: 240) { i in
                var client: RPCClient?
                do { client = try d.client() } catch { results.fail("client \(i): connect: \(error)") }
                barrier.arriveAndWait()
                guard let c = client else { return }
                do {
                    let s = try c.call("sermon.create", ["title": .string("client \(i)")], timeout: 120)
                    guard let sid = s["id"]?.stringValue else { throw HarnessError("no id in \(s.text)") }
                    _ = try c.call("note.add", ["sermonId": .string(sid), "text": .string("note \(i)"), "timestamp": .int(Int64(i))],
                                   timeout: 120)
                    let g = try c.call("sermon.get", ["id": .string(sid)], timeout: 120)
                    guard g["title"] == .string("client \(i)"), g["notes"]?.arrayValue?.count == 1 else {
                        throw HarnessError("wrong sermon: \(g.text)")
                    }
                    _ = try c.call("daemon.status", timeout: 120)
                    _ = try c.call("sermon.list", ["limit": 5], timeout: 120)
                    results.succeed()
                } catch {
                    results.fail("client \(i): \(error)")
                }
            }
            #expect(finished, "not all clients finished within 240 s")
            #expect(results.failures.isEmpty, "\(results.failures.prefix(5))")
            #expect(results.successes == n)

            // The staller still works once it finishes its line.
            try staller.send(line: #"od":"daemon.status"}"#)
            expectResult(try readReply(staller), id: 1)

            let c = try d.client()
            #expect(try c.call("sermon.list", ["limit": 1000])["items"]?.arrayValue?.count == n)
        }
    }

    @Test("a client that never reads its replies does not block other clients")
    func nonReadingClientDoesNotBlockOthers() throws {
        try withDaemon { d in
            let hog = try d.client()
            let sent = Collector()
            let flood = DispatchGroup()
            flood.enter()
            let hogThread = Thread {
                // Many requests with large replies; nobody reads them.
                let line = Array((request(1, "rpc.discover").text + "\n").utf8)
                var chunk = [UInt8]()
                for _ in 0..<50 { chunk += line }
                for _ in 0..<200 {
                    do { try hog.send(bytes: chunk); sent.succeed() } catch { break }
                }
                flood.leave()
            }
            hogThread.start()
            // Give the flood a head start (not a timing assertion: the check below holds either way).
            let deadline = Date().addingTimeInterval(10)
            while sent.successes < 20 && Date() < deadline { usleep(50_000) }
            usleep(500_000)

            let other = try d.client()
            for i in 0..<20 {
                let s = try other.call("sermon.create", ["title": .string("other \(i)")], timeout: 60)
                #expect(s["title"] == .string("other \(i)"))
                _ = try other.call("rpc.discover", timeout: 60)
            }
            let fresh = try d.client()
            #expect(try fresh.call("sermon.list", ["limit": 100], timeout: 60)["items"]?.arrayValue?.count == 20)

            // Let go of the hog: its blocked writes fail, the daemon drops the connection.
            shutdown(hog.fd, Int32(SHUT_RDWR))
            #expect(flood.wait(timeout: .now() + 60) == .success)
            #expect(try fresh.call("daemon.status", timeout: 60)["pid"]?.int64Value == Int64(d.pid))
        }
    }

    // MARK: Events and discovery

    @Test("events.subscribe, then a sermon.create on another connection delivers a record.changed event")
    func eventsDelivered() throws {
        try withDaemon { d in
            let sub = try d.client()
            let r = try sub.call("events.subscribe", [:])
            let subscribed = r["subscribed"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            #expect(subscribed.contains("record.changed"), "\(r.text)")

            let writer = try d.client()
            let s = try writer.call("sermon.create", ["title": "evented"])
            let sid = try #require(s["id"]?.stringValue)

            var found: JSON?
            let deadline = Date().addingTimeInterval(30)
            while found == nil, deadline.timeIntervalSinceNow > 0 {
                guard let line = try sub.readLine(timeout: deadline.timeIntervalSinceNow) else { break }
                let msg = try JSON.parse(line)
                #expect(msg["jsonrpc"] == "2.0")
                #expect(msg["id"] == nil, "a notification has no id: \(msg.text)")
                if msg["method"] == "event", msg["params"]?["topic"] == "record.changed", msg["params"]?["id"] == .string(sid) {
                    found = msg
                }
            }
            let event = try #require(found, "no record.changed event for \(sid)")
            #expect(event["params"]?["collection"] == "sermons", "\(event.text)")

            // A subscription to a specific topic, and an unknown topic named as the field.
            let sub2 = try d.client()
            let r2 = try sub2.call("events.subscribe", ["topics": ["record.changed"]])
            #expect(r2["subscribed"] == ["record.changed"])
            let e = try sub2.callError("events.subscribe", ["topics": ["no.such.topic"]])
            #expect(e.code == -32602, "\(e)")
            #expect(e.field?.hasPrefix("topics") == true, "\(e)")
        }
    }

    @Test("rpc.discover returns an OpenRPC document listing every method of contract §2")
    func discover() throws {
        try withDaemon { d in
            let c = try d.client()
            let doc = try c.call("rpc.discover")
            #expect(doc["openrpc"]?.stringValue != nil, "\(doc.text.prefix(300))")
            #expect(doc["info"]?["title"]?.stringValue != nil)
            #expect(doc["info"]?["version"]?.stringValue != nil)
            let methods = try #require(doc["methods"]?.arrayValue)
            let names = Set(methods.compactMap { $0["name"]?.stringValue })
            let contract = ["daemon.status", "rpc.discover", "sermon.create", "sermon.get", "sermon.list", "sermon.update",
                            "sermon.delete", "note.add", "note.update", "note.delete", "transcript.set", "summary.set",
                            "chat.append", "chat.list", "audio.import", "audio.path", "sync.now", "sync.status",
                            "sync.pending", "events.subscribe"]
            for name in contract { #expect(names.contains(name), "rpc.discover lacks \(name)") }
            for m in methods {
                #expect(m["params"]?.arrayValue != nil, "method without params list: \(m.text)")
                #expect(m["result"] != nil, "method without result: \(m.text)")
            }
            let create = try #require(methods.first { $0["name"] == "sermon.create" })
            let paramNames = Set(create["params"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
            #expect(paramNames == ["title", "date", "serviceType", "speaker", "id"])
            let title = create["params"]?.arrayValue?.first { $0["name"] == "title" }
            #expect(title?["required"] == true)
        }
    }
}
