import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

#if canImport(Glibc)
import Glibc
#endif

// Integration tests of contract §2 / §7 (JSON-RPC 2.0 over the Unix socket) against a real tnotesd.
// Every test runs its own daemon in its own temp dir, so the tests may run in parallel.

@Suite("JSON-RPC 2.0 over the Unix socket: framing, concurrency, events and discovery (contract §2, §7)")
struct RPCFramingTests {
    // MARK: Framing

    @Test("a request split across two writes with a pause is answered")
    func splitRequest() throws {
        try withRPCDaemon { d in
            let c = try d.client()
            let bytes = Array(rpcRequest(1, "sermon.create", ["title": "split"]).text.utf8)
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
            let u = Array(rpcRequest(2, "sermon.create", ["title": "é€😀"]).text.utf8) + [0x0A]
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
        try withRPCDaemon { d in
            let c = try d.client()
            var text = ""
            for i in 1...8 { text += rpcRequest(.int(Int64(i)), "sermon.create", ["title": .string("t\(i)")]).text + "\n" }
            text += rpcRequest(9, "sermon.list", ["limit": 100]).text + "\n"
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
        try withRPCDaemon(config: "[limits]\nmax_request_bytes = 4096\n") { d in
            let c = try d.client()
            let sermon = try #require(try c.call("sermon.create", ["title": "pipelined"])["id"])
            var text = ""
            for i in 1...500 {
                let r = i % 2 == 0 ? rpcRequest(.int(Int64(i)), "sermon.get", ["id": sermon])
                    : rpcRequest(.int(Int64(i)), "note.add", ["sermonId": sermon, "text": .string("n\(i)"), "timestamp": .int(Int64(i))])
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
            let good = rpcRequest(1, "sermon.create", ["title": "before the overflow"]).text + "\n"
                + rpcRequest(2, "daemon.status").text + "\n"
            let huge = rpcRequest(3, "sermon.create", ["title": .string(String(repeating: "x", count: 6000))]).text + "\n"
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
        try withRPCDaemon { d in
            let c = try d.client()
            let text = rpcRequest(1, "daemon.status").text + "\r\n" + rpcRequest(2, "sermon.create", ["title": "crlf"]).text + "\r\n"
            try c.send(bytes: Array(text.utf8))
            expectResult(try readReply(c), id: 1)
            let r = try readReply(c)
            expectResult(r, id: 2)
            #expect(r["result"]?["title"] == "crlf")
            // Blank lines between requests are not requests.
            try c.send(bytes: Array(("\r\n\n" + rpcRequest(3, "daemon.status").text + "\r\n").utf8))
            expectResult(try readReply(c), id: 3)
        }
    }

    @Test("a last line without newline, then shutdown of the write side, is answered")
    func lastLineWithoutNewline() throws {
        try withRPCDaemon { d in
            let c = try d.client()
            try c.send(bytes: Array(rpcRequest(1, "sermon.create", ["title": "no newline"]).text.utf8))
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
            let text = rpcRequest(2, "daemon.status").text + "\n" + rpcRequest(3, "sermon.list").text
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
        try withRPCDaemon { d in
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
        try withRPCDaemon { d in
            let hog = try d.client()
            let sent = Collector()
            let flood = DispatchGroup()
            flood.enter()
            let hogThread = Thread {
                // Many requests with large replies; nobody reads them.
                let line = Array((rpcRequest(1, "rpc.discover").text + "\n").utf8)
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
        try withRPCDaemon { d in
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
        try withRPCDaemon { d in
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
