import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Integration tests of contract §2 / §7 (JSON-RPC 2.0 over the Unix socket) against a real tnotesd.
// Every test runs its own daemon in its own temp dir, so the tests may run in parallel.

// MARK: - Tests

@Suite("JSON-RPC 2.0 protocol over the Unix socket (contract §2, §7)")
struct RPCProtocolTests {

    // MARK: Error codes

    @Test("-32700 parse error: truncated JSON, garbage, invalid UTF-8; the connection stays usable")
    func parseErrors() throws {
        try withRPCDaemon { d in
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
            let r = try c.exchange(rpcRequest(7, "daemon.status"))
            expectResult(r, id: 7)
        }
    }

    @Test("-32600 invalid request: wrong jsonrpc, bad method, bad id type, non-object request, empty batch")
    func invalidRequests() throws {
        try withRPCDaemon { d in
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

            expectResult(try c.exchange(rpcRequest("after", "daemon.status")), id: "after")
        }
    }

    @Test("-32601 method not found, with the id echoed")
    func methodNotFound() throws {
        try withRPCDaemon { d in
            let c = try d.client()
            expectError(try c.exchange(rpcRequest("abc", "no.such.method")), code: -32601, id: "abc")
            expectError(try c.exchange(rpcRequest(5, "sermon.Create", ["title": "x"])), code: -32601, id: 5)
            expectError(try c.exchange(rpcRequest(6, "")), code: -32601, id: 6)
            let e = try c.callError("sermon.explode")
            #expect(e.code == -32601)
        }
    }

    @Test("-32602 invalid params name the field: unknown, missing, wrong type, bad UUID, bad enum, negative timestamp")
    func invalidParams() throws {
        try withRPCDaemon { d in
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
            let r = try c.exchange(rpcRequest("p", "sermon.get", ["id": "nope"]))
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
        try withRPCDaemon { d in
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
            let r = try c.exchange(rpcRequest(99, "sermon.get", ["id": .string(aUUID)]))
            expectError(r, code: -32001, id: 99)
        }
    }

    @Test("-32002 conflict when creating with an id that exists")
    func duplicateIdConflict() throws {
        try withRPCDaemon { d in
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
        try withRPCDaemon(config: "[limits]\nmax_request_bytes = 2048\n") { d in
            let c = try d.client()
            // A line under the limit works.
            let small = try c.call("sermon.list", [:])
            #expect(small["items"]?.arrayValue?.count == 0)

            let title = String(repeating: "x", count: 5000)
            try c.send(line: rpcRequest(1, "sermon.create", ["title": .string(title)]).text)
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
            let batch: JSON = .array((0..<40).map { i in rpcRequest(.int(Int64(i)), "sermon.create", ["title": .string("batch title \(i) padding padding")]) })
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
        try withRPCDaemon { d in
            let c = try d.client()
            for (method, params) in [("sync.now", JSON.object([:])), ("sync.now", ["wait": true]), ("sync.now", ["wait": false]),
                                     ("sync.pending", JSON.object([:]))]
            {
                let e = try c.callError(method, params)
                #expect(e.code == -32005, "\(method) \(params.text): \(e)")
            }
            expectError(try c.exchange(rpcRequest("s", "sync.now", ["wait": true])), code: -32005, id: "s")
            expectError(try c.exchange(rpcRequest("p", "sync.pending")), code: -32005, id: "p")
        }
    }

    // MARK: Ids and notifications

    @Test("ids of string, number and null are echoed")
    func idsEchoed() throws {
        try withRPCDaemon { d in
            let c = try d.client()
            let ids: [JSON] = ["abc", "", "ünïcödé-ïd", 0, 42, -7, 9_007_199_254_740_991, 1.5, .null]
            for id in ids {
                let r = try c.exchange(rpcRequest(id, "daemon.status"))
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
        try withRPCDaemon { d in
            let c = try d.client()
            try c.send(line: rpcRequest(nil, "sermon.create", ["title": "from a notification"]).text)
            try c.send(line: rpcRequest(nil, "no.such.method").text)
            try c.send(line: rpcRequest(nil, "sermon.get", ["id": "not-a-uuid"]).text)
            try c.send(line: rpcRequest(nil, "sync.now").text)
            try c.send(line: rpcRequest(1, "sermon.list").text)
            let first = try readReply(c)
            expectResult(first, id: 1)
            let titles = first["result"]?["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
            #expect(titles == ["from a notification"], "\(first.text)")
        }
    }

    // MARK: Batches

    @Test("a mixed batch replies only for its calls (including the invalid element)")
    func mixedBatch() throws {
        try withRPCDaemon { d in
            let c = try d.client()
            let batch: JSON = [
                rpcRequest(1, "sermon.create", ["title": "batch one"]),
                rpcRequest(nil, "sermon.create", ["title": "batch notification"]),
                42,
                rpcRequest("b", "daemon.status"),
                rpcRequest(3, "no.such.method"),
                rpcRequest(nil, "no.such.method"),
                rpcRequest(4, "sermon.get", ["id": "bad"]),
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
        try withRPCDaemon { d in
            let c = try d.client()
            let sermon = Identifier.make(), note = Identifier.make(), missing = Identifier.make()
            var calls: [JSON] = [
                rpcRequest(1, "sermon.create", ["id": .string(sermon), "title": "grouped"]),
                // Sees the sermon created by the call before it (queued, not yet committed when this one starts).
                rpcRequest(2, "note.add", ["id": .string(note), "sermonId": .string(sermon), "text": "first", "timestamp": 1]),
                rpcRequest(3, "note.update", ["id": .string(note), "text": "second"]),
                // A failing write in the middle changes nothing and stops nothing.
                rpcRequest(4, "note.add", ["sermonId": .string(missing), "text": "orphan", "timestamp": 2]),
                rpcRequest(5, "note.add", ["id": .string(note), "sermonId": .string(sermon), "text": "duplicate id", "timestamp": 3]),
                // A read: it waits for the writes before it, so it sees all of them.
                rpcRequest(6, "sermon.get", ["id": .string(sermon)]),
            ]
            for k in 0..<200 {
                calls.append(rpcRequest(.int(Int64(100 + k)), "note.add", ["sermonId": .string(sermon), "text": .string("bulk \(k)"),
                                                                         "timestamp": .int(Int64(10 + k))]))
            }
            calls.append(rpcRequest(7, "note.delete", ["id": .string(note)]))
            calls.append(rpcRequest(8, "sermon.get", ["id": .string(sermon)]))
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
        try withRPCDaemon { d in
            let c = try d.client()
            let batch: JSON = [
                rpcRequest(nil, "sermon.create", ["title": "n1"]),
                rpcRequest(nil, "daemon.status"),
                rpcRequest(nil, "no.such.method"),
            ]
            try c.send(line: batch.text)
            try c.send(line: rpcRequest("after", "sermon.list").text)
            let first = try readReply(c)
            expectResult(first, id: "after")
            #expect(first["result"]?["items"]?.arrayValue?.count == 1)
        }
    }
}
