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
    public var field: String? { data?["field"]?.stringValue }
    public var reason: String? { data?["reason"]?.stringValue }

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

    public var description: String {
        switch self {
        case .unreachable(let path, let e): return "cannot connect to tnotesd at \(path): \(String(cString: strerror(e)))"
        case .closed(let path): return "tnotesd at \(path) closed the connection"
        case .io(let path, let what, let e): return "\(what) on \(path): \(String(cString: strerror(e)))"
        case .badReply(let s): return "unexpected reply from tnotesd: \(s)"
        }
    }
}

/// A blocking JSON-RPC 2.0 client of the daemon's Unix socket: one JSON text per line, both directions.
/// Calls on one connection are answered in order; event notifications that arrive in between are kept
/// for `nextNotification()`.
public final class RPCConnection {
    public let path: String
    private let fd: Int32
    private var buffer = [UInt8]()
    private var nextId: Int64 = 1
    private var pendingNotifications = [JSON]()

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

    /// Calls `method`; returns its result, or throws `RPCFailure` (an error reply) or `ConnectionError`.
    public func call(_ method: String, _ params: JSON? = nil) throws -> JSON {
        let id = nextId
        nextId += 1
        var request: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { request["params"] = params }
        try send(JSON.object(request).bytes + [0x0A])
        while true {
            let reply = try readMessage()
            if reply["id"] == nil, reply["method"] != nil {
                pendingNotifications.append(reply)
                continue
            }
            guard reply["id"] == .int(id) else { throw ConnectionError.badReply(reply.text) }
            if let e = reply["error"] {
                throw RPCFailure(code: Int(e["code"]?.int64Value ?? 0), message: e["message"]?.stringValue ?? "error",
                                 data: e["data"])
            }
            guard let result = reply["result"] else { throw ConnectionError.badReply(reply.text) }
            return result
        }
    }

    /// The next notification the daemon sends (`{"jsonrpc":"2.0","method":...,"params":...}`); blocks.
    public func nextNotification() throws -> JSON {
        if !pendingNotifications.isEmpty { return pendingNotifications.removeFirst() }
        while true {
            let message = try readMessage()
            if message["id"] == nil, message["method"] != nil { return message }
        }
    }

    private func send(_ bytes: [UInt8]) throws(ConnectionError) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { sendBytes(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .closed(path: path) }
                throw .io(path: path, what: "write", errno: errno)
            }
            off += n
        }
    }

    /// One line from the daemon, parsed.
    private func readMessage() throws -> JSON {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
                do { return try JSON.parse(line) } catch {
                    throw ConnectionError.badReply(String(decoding: line.prefix(200), as: UTF8.self))
                }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { throw ConnectionError.closed(path: path) }
                throw ConnectionError.io(path: path, what: "read", errno: errno)
            }
            if n == 0 { throw ConnectionError.closed(path: path) }
            buffer.append(contentsOf: chunk[0..<n])
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
