import Logging
import TNotesCore

/// Turns one received line into the line to send back (nil: nothing to send, as for notifications).
/// Knows JSON-RPC 2.0 — single calls, batches, notifications, error objects — and nothing of sockets.
public struct Dispatcher: Sendable {
    public let table: MethodTable
    let logger: Logger
    /// Told when each line starts and ends being answered (tnotesd's `ActivityMark`: an idle daemon gives back
    /// memory, a busy one not).
    let lines: LineObserver?

    public struct LineObserver: Sendable {
        let begin: @Sendable () -> Void
        let end: @Sendable () -> Void

        public init(begin: @escaping @Sendable () -> Void, end: @escaping @Sendable () -> Void) {
            self.begin = begin
            self.end = end
        }
    }

    /// Opens a run of writes and returns what closes it (tnotesd's `Store.openWriteRun`): a batch's consecutive
    /// writes then commit as one group.
    let openWriteRun: (@Sendable () -> @Sendable () -> Void)?

    public init(table: MethodTable, logger: Logger, lines: LineObserver? = nil,
                openWriteRun: (@Sendable () -> @Sendable () -> Void)? = nil) {
        self.table = table
        self.logger = logger
        self.lines = lines
        self.openWriteRun = openWriteRun
    }

    /// A received line, parsed, and whether answering it only reads (a single call of a `readOnly` method).
    public struct PreparedLine: Sendable {
        let parsed: Result<JSON, RPCError>
        public let readOnly: Bool
    }

    public func handle(line: [UInt8], context: ConnectionContext) async -> JSON? {
        await answer(prepare(line: line), context: context)
    }

    /// Parses a line; cheap, so that a connection can tell which of its pipelined lines may run side by side.
    public func prepare(line: [UInt8]) -> PreparedLine {
        let parsed: JSON
        do {
            parsed = try JSON.parse(line)
        } catch {
            return PreparedLine(parsed: .failure(.parseError("\(error)")), readOnly: false)
        }
        var readOnly = false
        if case .object(let o) = parsed, case .string(let name)? = o["method"], o["id"] != nil {
            readOnly = table[name]?.readOnly ?? false
        }
        return PreparedLine(parsed: .success(parsed), readOnly: readOnly)
    }

    /// The answer to a prepared line (nil: nothing to send, as for notifications).
    public func answer(_ line: PreparedLine, context: ConnectionContext) async -> JSON? {
        lines?.begin()
        defer { lines?.end() }
        let parsed: JSON
        switch line.parsed {
        case .failure(let e): return Self.response(id: .null, error: e)
        case .success(let json): parsed = json
        }
        switch parsed {
        case .array(let items):
            if items.isEmpty { return Self.response(id: .null, error: .invalidRequest("empty batch")) }
            let replies = await answerBatch(items, context: context).compactMap { $0 }
            return replies.isEmpty ? nil : .array(replies)
        default:
            return await handleOne(parsed, context: context)
        }
    }

    /// A batch's calls, in order. A call of a `queuesOneWrite` method lets the next call start once its write
    /// is queued (or it has ended without one), so consecutive writes share one group commit; any other call
    /// first waits for every call before it to finish, so whatever it reads includes their writes. Replies
    /// come back in request order.
    func answerBatch(_ items: [JSON], context: ConnectionContext) async -> [JSON?] {
        await withTaskGroup(of: (Int, JSON?).self) { group in
            var replies = [JSON?](repeating: nil, count: items.count)
            var running = 0
            // Consecutive writes are one run (`openWriteRun`), closed before anything waits for them.
            var closeRun: (@Sendable () -> Void)?
            defer { closeRun?() }
            for (k, item) in items.enumerated() {
                if queuesOneWrite(item) {
                    if closeRun == nil, k + 1 < items.count, queuesOneWrite(items[k + 1]) { closeRun = openWriteRun?() }
                    let queued = WriteQueuedSignal()
                    group.addTask {
                        let reply = await WriteQueuedSignal.$current.withValue(queued) { await handleOne(item, context: context) }
                        queued.fire()  // it ended without writing (an invalid call): the next may start too
                        return (k, reply)
                    }
                    running += 1
                    await queued.wait()
                } else {
                    closeRun?()
                    closeRun = nil
                    while running > 0, let (j, reply) = await group.next() {
                        replies[j] = reply
                        running -= 1
                    }
                    replies[k] = await handleOne(item, context: context)
                }
            }
            closeRun?()
            closeRun = nil
            for await (j, reply) in group { replies[j] = reply }
            return replies
        }
    }

    /// Whether a batch item calls a method that queues one write (`MethodSpec.queuesOneWrite`).
    func queuesOneWrite(_ item: JSON) -> Bool {
        guard let name = item["method"]?.stringValue else { return false }
        return table[name]?.queuesOneWrite == true
    }

    func handleOne(_ request: JSON, context: ConnectionContext) async -> JSON? {
        guard case .object(let o) = request else {
            return Self.response(id: .null, error: .invalidRequest("a request must be an object"))
        }
        // The id is echoed only when it is one JSON-RPC allows; otherwise the reply's id is null.
        let id = o["id"]
        if let id {
            switch id {
            case .string, .int, .double, .null: break
            default: return Self.response(id: .null, error: .invalidRequest("id must be a string, number or null"))
            }
        }
        let replyId = id ?? .null
        guard o["jsonrpc"] == .string("2.0") else {
            return Self.response(id: replyId, error: .invalidRequest("jsonrpc must be \"2.0\""))
        }
        guard case .string(let name)? = o["method"] else {
            return Self.response(id: replyId, error: .invalidRequest("method must be a string"))
        }
        if let p = o["params"] {
            switch p {
            case .object, .array: break
            default: return Self.response(id: replyId, error: .invalidRequest("params must be an object or an array"))
            }
        }
        let isNotification = id == nil
        let result: Result<JSON, RPCError>
        if let spec = table[name] {
            result = await call(spec, params: o["params"], context: context)
        } else {
            result = .failure(.methodNotFound(name))
        }
        if isNotification { return nil }
        switch result {
        case .success(let value): return ["jsonrpc": "2.0", "id": replyId, "result": value]
        case .failure(let e): return Self.response(id: replyId, error: e)
        }
    }

    func call(_ spec: MethodSpec, params: JSON?, context: ConnectionContext) async -> Result<JSON, RPCError> {
        do {
            let validated = try spec.validate(params)
            return .success(try await spec.handler(validated, context))
        } catch let e as RPCError {
            return .failure(e)
        } catch let e as any RPCErrorConvertible {
            return .failure(e.rpcError)
        } catch {
            logger.error("method failed", metadata: ["method": .string(spec.name), "error": .string("\(error)")])
            return .failure(.internalError("\(error)"))
        }
    }

    public static func response(id: JSON, error: RPCError) -> JSON {
        ["jsonrpc": "2.0", "id": id, "error": error.json]
    }
}
