import Foundation
import TNotesCore

/// A JSON-RPC error answered by the daemon.
public struct RPCCallError: Error, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSON?
    public var field: String? { data?["field"]?.stringValue }
    public var description: String { "RPC error \(code): \(message) \(data.map { $0.text } ?? "")" }
}

/// A blocking client of the daemon's socket, speaking the line protocol byte for byte as `socat` would.
/// Unchecked because: a client belongs to one test thread at a time (like a socket fd); its read buffer is
/// never shared.
public final class RPCClient: @unchecked Sendable {
    public let fd: Int32
    private var buffer = [UInt8]()
    private var nextId = 1

    public init(path: String) throws {
        fd = try Self.connectSocket(path)
    }

    deinit { close(fd) }

    static func connectSocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw HarnessError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 {
            let e = errno
            close(fd)
            throw HarnessError("connect \(path): errno \(e)")
        }
        return fd
    }

    /// Sends raw bytes as they are.
    public func send(bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HarnessError("send: errno \(errno)")
            }
            off += n
        }
    }

    public func send(line: String) throws { try send(bytes: Array((line + "\n").utf8)) }

    /// The next line from the daemon, or nil on timeout or end of stream.
    public func readLine(timeout: Double = 15) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, Int32(min(left, 1) * 1000))
            if r < 0 { if errno == EINTR { continue }; throw HarnessError("poll: errno \(errno)") }
            if r == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// True when the daemon closed the connection (EOF) within `timeout`.
    public func isClosedByPeer(timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, 200)
            if r > 0 {
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { return true }
                buffer += chunk[0..<n]
            }
        }
        return false
    }

    /// Sends one JSON text and reads one reply line, parsed.
    public func exchange(_ request: JSON, timeout: Double = 30) throws -> JSON {
        try send(line: request.text)
        guard let line = try readLine(timeout: timeout) else { throw HarnessError("no reply to \(request.text)") }
        return try JSON.parse(line)
    }

    public func exchange(raw: String, timeout: Double = 30) throws -> JSON {
        try send(line: raw)
        guard let line = try readLine(timeout: timeout) else { throw HarnessError("no reply to \(raw)") }
        return try JSON.parse(line)
    }

    /// Calls a method; returns its result or throws the RPC error.
    @discardableResult
    public func call(_ method: String, _ params: JSON? = nil, timeout: Double = 30) throws -> JSON {
        let id = nextId
        nextId += 1
        var req: JSONObject = ["jsonrpc": "2.0", "id": .int(Int64(id)), "method": .string(method)]
        if let params { req["params"] = params }
        var reply = try exchange(.object(req), timeout: timeout)
        // Skip event notifications that may arrive between replies.
        while reply["method"] != nil && reply["id"] == nil {
            guard let line = try readLine(timeout: timeout) else { throw HarnessError("no reply to \(method)") }
            reply = try JSON.parse(line)
        }
        guard reply["id"] == .int(Int64(id)) else { throw HarnessError("reply id mismatch: \(reply.text)") }
        if let e = reply["error"] {
            throw RPCCallError(code: Int(e["code"]?.int64Value ?? 0), message: e["message"]?.stringValue ?? "",
                               data: e["data"])
        }
        return reply["result"] ?? .null
    }

    /// The RPC error a call must fail with (a harness error if it succeeds).
    public func callError(_ method: String, _ params: JSON? = nil) throws -> RPCCallError {
        do {
            let r = try call(method, params)
            throw HarnessError("\(method) succeeded but should have failed: \(r.text)")
        } catch let e as RPCCallError {
            return e
        }
    }
}
