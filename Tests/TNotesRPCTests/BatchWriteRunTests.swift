import Logging
import Synchronization
import Testing
import TNotesCore
import TNotesRPC

/// The dispatcher's side of a batch's write runs (`Dispatcher.answerBatch`, `Store.openWriteRun`): a run opens
/// before two or more consecutive writing calls, closes before any other call runs (so that call never waits
/// behind writes held for the run), and every run opened is closed, whatever the calls answer. The store's side
/// (what a run does to group commits) is `GroupCommitTests`.
@Suite("JSON-RPC batches: consecutive writes as one write run")
struct BatchWriteRunTests {
    /// What happened, in order: `open`, `close`, and each call as `name:argument` with whether a run was open.
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        private let runs = Mutex(0)

        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }

        func open() -> @Sendable () -> Void {
            runs.withLock { $0 += 1 }
            note("open")
            let closed = Mutex(false)
            return { [self] in
                // A second close of one run would unbalance the store's count of open runs: recorded, and the
                // test fails on it.
                let again = closed.withLock { c in defer { c = true }; return c }
                runs.withLock { $0 -= 1 }
                note(again ? "close again" : "close")
            }
        }

        var runsOpen: Int { runs.withLock { $0 } }
    }

    /// `write` queues one write (it fires the batch's signal, as `Store.write` does); `read` only reads.
    static func dispatcher(_ journal: Journal) -> Dispatcher {
        var table = MethodTable(title: "test", version: "0")
        table.add(MethodSpec("write", summary: "a write", params: [ParamSpec("n", .integer(min: 0, max: 100), required: true)], queuesOneWrite: true) { p, _ in
            let n = p.int("n") ?? -1, inRun = journal.runsOpen > 0
            journal.note("write:\(n)\(inRun ? " in run" : "")")
            WriteQueuedSignal.current?.fire()
            // As the store does, a write held for its run is answered only once the run has closed (bounded
            // here, so that a run never closed shows as a wrong journal, not as a hung test).
            if inRun {
                let clock = ContinuousClock(), deadline = clock.now + .seconds(2)
                while journal.runsOpen > 0, clock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
                journal.note("write:\(n) answered")
            }
            return ["n": .int(Int64(n))]
        })
        table.add(MethodSpec("failingWrite", summary: "a write that fails after it was queued", queuesOneWrite: true) { _, _ in
            journal.note("failingWrite")
            WriteQueuedSignal.current?.fire()
            throw RPCError.internalError("the write failed")
        })
        table.add(MethodSpec("read", summary: "a read", params: [ParamSpec("n", .integer(min: 0, max: 100), required: true)], readOnly: true) { p, _ in
            journal.note("read:\(p.int("n") ?? -1)\(journal.runsOpen > 0 ? " in run" : "")")
            return ["n": .int(Int64(p.int("n") ?? -1))]
        })
        return Dispatcher(table: table, logger: Logger(label: "test"), openWriteRun: { journal.open() })
    }

    static func batch(_ calls: [(String, JSON)]) -> [UInt8] {
        JSON.array(calls.enumerated().map { k, call in
            ["jsonrpc": "2.0", "id": .int(Int64(k)), "method": .string(call.0), "params": call.1]
        }).bytes
    }

    static func answers(_ reply: JSON?) throws -> [JSON] {
        guard case .array(let items)? = reply else { throw BatchTestError("the batch's reply is not an array: \(String(describing: reply))") }
        return items
    }

    struct BatchTestError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    @Test("a run opens before consecutive writes and closes before the read after them; a lone write opens none")
    func runsAroundConsecutiveWrites() async throws {
        let journal = Journal()
        let d = Self.dispatcher(journal)
        let line = Self.batch([
            ("write", ["n": 1]), ("write", ["n": 2]), ("read", ["n": 3]),
            ("write", ["n": 4]), ("read", ["n": 5]),
            ("write", ["n": 6]), ("write", ["n": 7]), ("write", ["n": 8]),
        ])
        let replies = try Self.answers(await d.handle(line: line, context: ConnectionContext(id: 1, peerUID: 0, peerPID: 0)))
        // The run closes before the read waits for the writes before it: the writes held for the run are
        // answered after the close, and the read runs after their answers. The held writes' answers may come
        // in either order, so they are compared as a set.
        let entries = journal.all
        let read3 = try #require(entries.firstIndex(of: "read:3"))
        #expect(Array(entries[..<4]) == ["open", "write:1 in run", "write:2 in run", "close"])
        #expect(Set(entries[4..<read3]) == ["write:1 answered", "write:2 answered"])
        let afterRead3 = Array(entries[read3...])
        #expect(afterRead3.prefix(7) == ["read:3", "write:4", "read:5", "open", "write:6 in run", "write:7 in run", "write:8 in run"])
        #expect(afterRead3.dropFirst(7).first == "close")
        #expect(Set(afterRead3.dropFirst(8)) == ["write:6 answered", "write:7 answered", "write:8 answered"])
        #expect(journal.runsOpen == 0)
        // Answers in request order, each the result of its own call.
        #expect(replies.map { $0["id"] } == (0..<8).map { JSON.int(Int64($0)) })
        #expect(replies.map { $0["result"]?["n"] } == (1...8).map { JSON.int(Int64($0)) })
    }

    @Test("a write that fails validation inside a run neither stops the run nor the batch, and the run still closes")
    func invalidCallInsideARun() async throws {
        let journal = Journal()
        let d = Self.dispatcher(journal)
        let line = Self.batch([("write", ["n": 1]), ("write", ["n": "two"]), ("write", ["n": 3])])
        let replies = try Self.answers(await d.handle(line: line, context: ConnectionContext(id: 1, peerUID: 0, peerPID: 0)))
        #expect(journal.all.filter { !$0.hasSuffix("answered") } == ["open", "write:1 in run", "write:3 in run", "close"])
        #expect(journal.runsOpen == 0)
        #expect(replies.count == 3)
        #expect(replies[0]["result"]?["n"] == .int(1))
        #expect(replies[1]["error"]?["code"] == .int(-32602))
        #expect(replies[1]["error"]?["data"]?["field"] == .string("n"))
        #expect(replies[2]["result"]?["n"] == .int(3))
    }

    @Test("a write whose handler throws after it was queued fails alone; the run goes on and closes")
    func throwingWriteInsideARun() async throws {
        let journal = Journal()
        let d = Self.dispatcher(journal)
        let line = Self.batch([("write", ["n": 1]), ("failingWrite", [:]), ("write", ["n": 3]), ("read", ["n": 4])])
        let replies = try Self.answers(await d.handle(line: line, context: ConnectionContext(id: 1, peerUID: 0, peerPID: 0)))
        #expect(journal.all.filter { !$0.hasSuffix("answered") } == ["open", "write:1 in run", "failingWrite", "write:3 in run", "close", "read:4"])
        #expect(journal.runsOpen == 0)
        #expect(replies[0]["result"]?["n"] == .int(1))
        #expect(replies[1]["error"]?["code"] == .int(-32603))
        #expect(replies[2]["result"]?["n"] == .int(3))
        #expect(replies[3]["result"]?["n"] == .int(4))
    }

    @Test("a batch that is only reads, a write alone after a read, or a single write call, opens no run")
    func noRunWithoutConsecutiveWrites() async throws {
        let journal = Journal()
        let d = Self.dispatcher(journal)
        let context = ConnectionContext(id: 1, peerUID: 0, peerPID: 0)
        _ = try Self.answers(await d.handle(line: Self.batch([("read", ["n": 1]), ("read", ["n": 2])]), context: context))
        let tail = try Self.answers(await d.handle(line: Self.batch([("read", ["n": 3]), ("write", ["n": 4])]), context: context))
        #expect(tail.map { $0["result"]?["n"] } == [.int(3), .int(4)])
        _ = try Self.answers(await d.handle(line: Self.batch([("write", ["n": 5])]), context: context))
        let single: JSON = ["jsonrpc": "2.0", "id": 9, "method": "write", "params": ["n": 9]]
        let reply = await d.handle(line: single.bytes, context: context)
        #expect(reply?["result"]?["n"] == .int(9))
        #expect(journal.all == ["read:1", "read:2", "read:3", "write:4", "write:5", "write:9"])
    }
}
