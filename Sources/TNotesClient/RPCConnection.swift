import SystemPackage
import TNotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON-RPC error object answered by the daemon.
public struct RPCFailure: Error, Sendable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSON?

    public init(code: Int, message: String, data: JSON?) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The offending param of an invalid-params (-32602) error.
    public var field: String? { LenientRecord<JSONRPCMessage.ErrorData>(data).field }
    public var reason: String? { LenientRecord<JSONRPCMessage.ErrorData>(data).reason }

    /// One line for people: the message, the reason when the message does not already say it, the field.
    public var description: String {
        var s = message
        if let r = reason, !s.contains(r) { s += ": \(r)" }
        if let f = field { s += " (field: \(f))" }
        return s
    }
}

/// The daemon could not be reached, or the connection broke.
public enum ConnectionError: Error, Sendable, CustomStringConvertible {
    /// socket()/connect() failed; `errno` says why (ENOENT, ECONNREFUSED, EACCES…).
    case unreachable(path: String, errno: Int32)
    /// The daemon closed the connection before answering.
    case closed(path: String)
    /// A read or write failed.
    case io(path: String, what: String, errno: Int32)
    /// The daemon answered something that is not a JSON-RPC reply.
    case badReply(String)
    /// Nothing came within the time the caller gave (`call(_:_:timeout:)` and the other reads with a timeout).
    case timedOut(path: String, seconds: Double)

    public var description: String {
        switch self {
        case .unreachable(let path, let e): return "cannot connect to tnotesd at \(path): \(String(cString: strerror(e)))"
        case .closed(let path): return "tnotesd at \(path) closed the connection"
        case .io(let path, let what, let e): return "\(what) on \(path): \(String(cString: strerror(e)))"
        case .badReply(let s): return "unexpected reply from tnotesd: \(s)"
        case .timedOut(let path, let s): return "no reply from tnotesd at \(path) within \(s) s"
        }
    }
}

/// The project's one client of the daemon's Unix socket: JSON-RPC 2.0, one JSON text per line, both directions.
/// The CLI, the tests (`TNotesTestSupport.RPCClient` is a thin wrapper) and the bench all use it.
///
/// - Calls (`call`, `exchange`) are answered in order; event notifications that arrive in between are set aside
///   for `nextNotification()`.
/// - Raw lines (`send(bytes:)`, `readLine`) are for protocol tests and for pipelining: they see the stream as
///   it is (what a call set aside is not read again).
/// - Every read blocks, forever or until a `timeout` (seconds; a `poll` before each read).
/// - Pipelining from two threads: `writer` is a Sendable handle that only sends, so one thread may write
///   requests while the connection's owner reads the answers (the bench's pipelined figure).
///
/// Not Sendable: a connection belongs to one thread at a time (its read buffer and ids are unguarded).
public final class RPCConnection {
    public let path: String
    /// The socket, for a caller's `shutdown(2)` (half-close tests) or `setsockopt`. Closed when the connection is
    /// released.
    public let fd: Int32
    /// Bytes read and not yet handed out: lines start at `start`. Consumed lines are dropped only when a read
    /// needs room (not per line): a pipelined run hands out thousands of lines from one buffer.
    private var buffer = [UInt8]()
    private var start = 0
    /// Where each read writes, made once. A fresh zeroed 64 KiB array per read was a cost of the client, not of
    /// the daemon the bench measures: one-client `note.add` went from 4,083-4,538 to 4,434-4,925 writes/s with
    /// the same daemon, interleaved runs.
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var nextId: Int64 = 1
    private var pendingNotifications = [JSON]()

    /// Sends on this connection's socket from any thread (see the type's notes on pipelining). It must not
    /// outlive the connection.
    public var writer: SocketWriter { SocketWriter(fd: fd) }

    /// Ends the connection from another thread: a read blocked in `nextNotification` returns (it throws
    /// `closed`); the descriptor itself is closed when the connection is released.
    public func shutdown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    public init(path: String) throws(ConnectionError) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .unreachable(path: path, errno: errno) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw .unreachable(path: path, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        var rc: Int32
        // A socket-level call swift-system does not wrap (it has no sockets), retried by hand.
        repeat {
            rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while rc != 0 && errno == EINTR
        if rc != 0 {
            let e = errno
            close(fd)
            throw .unreachable(path: path, errno: e)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    // MARK: Calls

    /// Calls `method` (`params` left out when nil); returns its result, or throws `RPCFailure` (an error reply)
    /// or `ConnectionError` (`timedOut` when no answer came within `timeout` seconds).
    public func call(_ method: String, _ params: JSON? = nil, timeout: Double? = nil) throws -> JSON {
        let id = nextId
        nextId += 1
        let request = JSONRPCMessage(method: method, params: params, id: .int(id))
        let reply = try exchange(request.fieldJSON.bytes, timeout: timeout)
        let message = LenientRecord<JSONRPCMessage>(reply)
        guard message.id == .int(id) else { throw ConnectionError.badReply(reply.text) }
        if let e = message.nested(\.error) {
            throw RPCFailure(code: Int(e.code ?? 0), message: e.message ?? "error", data: e.data)
        }
        guard let result = message.json(at: \.result) else { throw ConnectionError.badReply(reply.text) }
        return result
    }

    /// Calls a typed method with its params.
    public func call<M: SocketMethod>(_ method: M.Type, _ params: M.Params, timeout: Double? = nil) throws -> JSON {
        try call(M.name, .object(params.record), timeout: timeout)
    }

    /// Sends one request or batch as given and returns the answer (for a batch, the array of answers),
    /// notifications set aside. The caller checks ids and errors.
    public func exchange(_ request: JSON, timeout: Double? = nil) throws -> JSON {
        try exchange(request.bytes, timeout: timeout)
    }

    /// `exchange` with the request already written: one JSON text, with or without its newline (a batch built
    /// once and sent many times, as the bench's bulk import does).
    public func exchange(_ text: [UInt8], timeout: Double? = nil) throws -> JSON {
        try send(bytes: text.last == 0x0A ? text : text + [0x0A])
        let deadline = Self.deadline(timeout)
        while true {
            let message = try readMessage(deadline: deadline, timeout: timeout)
            if Self.isNotification(message) {
                pendingNotifications.append(message)
                continue
            }
            return message
        }
    }

    /// The next notification the daemon sends (`{"jsonrpc":"2.0","method":...,"params":...}`); blocks (at most
    /// `timeout` seconds, then throws `timedOut`).
    public func nextNotification(timeout: Double? = nil) throws -> JSON {
        if !pendingNotifications.isEmpty { return pendingNotifications.removeFirst() }
        let deadline = Self.deadline(timeout)
        while true {
            let message = try readMessage(deadline: deadline, timeout: timeout)
            if Self.isNotification(message) { return message }
        }
    }

    static func isNotification(_ message: JSON) -> Bool {
        let m = LenientRecord<JSONRPCMessage>(message)
        return m.json(at: \.id) == nil && m.json(at: \.method) != nil
    }

    /// One non-blank line from the daemon, parsed.
    private func readMessage(deadline: ContinuousClock.Instant?, timeout: Double?) throws -> JSON {
        while true {
            guard let line = try readLine(until: deadline) else {
                throw ConnectionError.timedOut(path: path, seconds: timeout ?? 0)
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            do { return try JSON.parse(line) } catch {
                throw ConnectionError.badReply(String(decoding: line.prefix(200), as: UTF8.self))
            }
        }
    }

    // MARK: Raw lines

    /// Sends `bytes` as they are (no newline added): a hand-made or malformed request, or many pipelined ones.
    public func send(bytes: [UInt8]) throws(ConnectionError) {
        do { try writer.send(bytes) } catch {
            if error == .brokenPipe || error == .connectionReset { throw .closed(path: path) }
            throw .io(path: path, what: "write", errno: error.rawValue)
        }
    }

    /// Sends `line` and a newline.
    public func send(line: String) throws(ConnectionError) { try send(bytes: Array((line + "\n").utf8)) }

    /// The next line as it came, without its newline; nil when none came within `timeout` seconds (nil: wait
    /// as long as it takes). Throws `closed` at the end of the stream. The slice is valid until the next read.
    public func readLine(timeout: Double? = nil) throws(ConnectionError) -> ArraySlice<UInt8>? {
        try readLine(until: Self.deadline(timeout))
    }

    /// True when the daemon closes the connection (end of stream, or a reset) within `timeout` seconds. What
    /// arrives before that is kept for the next read.
    public func isClosedByPeer(timeout: Double) -> Bool {
        let deadline = Self.deadline(timeout)
        while true {
            do {
                guard try fill(until: deadline) else { return false }
            } catch {
                return true
            }
        }
    }

    private func readLine(until deadline: ContinuousClock.Instant?) throws(ConnectionError) -> ArraySlice<UInt8>? {
        // How many bytes after `start` are known to hold no newline (an offset from `start`, which `fill` may
        // move to the front of the buffer).
        var scanned = 0
        while true {
            if let nl = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
                let line = buffer[start..<nl]
                start = nl + 1
                return line
            }
            scanned = buffer.count - start
            guard try fill(until: deadline) else { return nil }
        }
    }

    /// Reads what the socket has into `buffer`: true when something arrived, false when `deadline` passed first.
    /// Throws `closed` at the end of the stream.
    private func fill(until deadline: ContinuousClock.Instant?) throws(ConnectionError) -> Bool {
        if let deadline {
            // Waiting with a timeout needs poll(2), which swift-system does not wrap: an interrupted poll is
            // retried here.
            while true {
                let left = deadline - .now
                if left <= .zero { return false }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                let r = poll(&pfd, 1, Int32(min(ms, 1000)))
                if r < 0 {
                    if errno == EINTR { continue }
                    throw .io(path: path, what: "poll", errno: errno)
                }
                if r > 0 { break }
            }
        }
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let n: Int
        do {
            n = try chunk.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
        } catch let e as Errno {
            if e == .connectionReset { throw .closed(path: path) }
            throw .io(path: path, what: "read", errno: e.rawValue)
        } catch {
            throw .io(path: path, what: "read", errno: EIO)
        }
        if n == 0 { throw .closed(path: path) }
        buffer += chunk[0..<n]
        return true
    }

    private static func deadline(_ timeout: Double?) -> ContinuousClock.Instant? {
        timeout.map { .now + .milliseconds(Int64(max(0, min($0, 1e9)) * 1000)) }
    }
}

/// Sends on a connected socket until every byte is out: the project's one socket write loop (the daemon
/// client's, the test proxies' and relays').
///
/// Not swift-system's `FileDescriptor.writeAll`: `write(2)` on a socket whose peer has gone raises SIGPIPE,
/// which kills a process that has not ignored it (the tests, the bench); `send(2)` with `MSG_NOSIGNAL` fails
/// with EPIPE instead, and swift-system has no `send`. So this loop retries an interrupted send itself.
public struct SocketWriter: Sendable {
    public let fd: Int32

    public init(fd: Int32) { self.fd = fd }

    public func send(_ bytes: [UInt8]) throws(Errno) {
        try bytes.withUnsafeBytes { raw in Result { () throws(Errno) in try send(raw) } }.get()
    }

    public func send(_ bytes: ArraySlice<UInt8>) throws(Errno) {
        try bytes.withUnsafeBytes { raw in Result { () throws(Errno) in try send(raw) } }.get()
    }

    public func send(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var off = 0
        while off < bytes.count {
            let n = sendBytes(fd, bytes.baseAddress! + off, bytes.count - off)
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno(rawValue: errno)
            }
            off += n
        }
    }
}

private func sendBytes(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int {
    #if canImport(Glibc)
    return send(fd, p, n, Int32(MSG_NOSIGNAL))
    #else
    return send(fd, p, n, 0)
    #endif
}
