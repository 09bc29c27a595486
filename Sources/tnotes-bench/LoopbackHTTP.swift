import Foundation

/// A minimal HTTP/1.1 client over one kept-alive loopback connection, for the bench's server figures.
/// Hand-written on purpose: the figure is the server's latency, and a client with its own event loop and
/// buffering (AsyncHTTPClient) would add its scheduling to every sample on this 2-core machine.
final class LoopbackHTTP {
    let fd: Int32
    private var buffer = [UInt8]()

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 { close(fd); throw BenchError("connect to 127.0.0.1:\(port) failed") }
    }
    deinit { close(fd) }

    /// Sends one request and reads its whole answer; returns the status code.
    @discardableResult
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> Int {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        try sendAll(Array(head.utf8))
        if !body.isEmpty { try sendAll(body) }
        let headerEnd = try readUntil(Array("\r\n\r\n".utf8))
        let headText = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        let status = Int(headText.split(separator: " ").dropFirst().first ?? "") ?? 0
        let length = headText.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count < length { try fill() }
        buffer.removeFirst(length)
        return status
    }

    private func sendAll(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw BenchError("send failed: \(String(cString: strerror(errno)))") }
            off += n
        }
    }

    private func readUntil(_ needle: [UInt8]) throws -> Int {
        while true {
            if let i = HTTPSink.find(buffer, needle) { return i }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { throw BenchError("connection closed") }
        buffer += chunk[0..<n]
    }
}
