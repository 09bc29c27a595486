import Foundation
import TNotesCore

/// A blocking Unix-socket line client, with pipelining (write many, then read many).
/// Unchecked because: it is used from one reader and one writer thread at a time (pipelining), and send and
/// recv never share state (the read buffer is the reader's alone; the fd is fixed).
final class LineSocket: @unchecked Sendable {
    let fd: Int32
    private var buffer = [UInt8]()
    private var start = 0
    /// Where `recv` writes, made once. A fresh zeroed 64 KiB array per read was a cost of this harness, not of
    /// the daemon it measures: one-client `note.add` went from 4,083-4,538 to 4,434-4,925 writes/s with the
    /// same daemon, interleaved runs.
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(path: String) throws { fd = try Self.connect(path) }
    deinit { close(fd) }

    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 { close(fd); throw BenchError("connect \(path): \(errno)") }
        return fd
    }

    func send(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }

    func readLine() -> ArraySlice<UInt8>? {
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[start..<nl]
                start = nl + 1
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { if n < 0 && errno == EINTR { continue }; return nil }
            buffer += chunk[0..<n]
        }
    }

    private var nextId = 0

    func call(_ method: String, _ params: JSON) throws -> JSON {
        nextId += 1
        var req: JSON = ["jsonrpc": "2.0", "id": .int(Int64(nextId)), "method": .string(method)]
        if !params.isNull, case .object(var o) = req {
            o["params"] = params
            req = .object(o)
        }
        send(req.bytes + [0x0A])
        guard let line = readLine() else { throw BenchError("connection closed") }
        let reply = try JSON.parse(Array(line))
        if let e = reply["error"] { throw BenchError("\(method): \(e.text)") }
        return reply["result"] ?? .null
    }
}

/// A Unix-socket echo server: the floor for any request/response over a local socket.
final class EchoServer {
    let path: String
    let fd: Int32

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        listen(fd, 16)
        let listener = fd
        Thread.detachNewThread {
            while true {
                let c = accept(listener, nil, nil)
                if c < 0 { return }
                Thread.detachNewThread {
                    var buf = [UInt8](repeating: 0, count: 1 << 16)
                    while true {
                        let n = recv(c, &buf, buf.count, 0)
                        if n <= 0 { close(c); return }
                        var off = 0
                        while off < n {
                            let w = buf[off..<n].withUnsafeBytes { Glibc.send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                            if w <= 0 { close(c); return }
                            off += w
                        }
                    }
                }
            }
        }
    }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)); close(fd); unlink(path) }
}
