import Foundation

/// A loopback HTTP/1.1 endpoint that reads each request body and answers 200: the cost of moving the
/// bytes, with no work done on them.
final class HTTPSink {
    let fd: Int32
    let port: Int

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
        fd = listener
        port = Int(UInt16(bigEndian: addr.sin_port))
        listen(listener, 16)
        Thread.detachNewThread {
            while true {
                let c = accept(listener, nil, nil)
                if c < 0 { return }
                Thread.detachNewThread { HTTPSink.serve(c) }
            }
        }
    }

    static func serve(_ c: Int32) {
        var buf = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // Headers.
            var headerEnd: Int?
            while headerEnd == nil {
                if let r = find(buf, Array("\r\n\r\n".utf8)) { headerEnd = r; break }
                let n = recv(c, &chunk, chunk.count, 0)
                if n <= 0 { close(c); return }
                buf += chunk[0..<n]
            }
            let head = String(decoding: buf[0..<headerEnd!], as: UTF8.self).lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            buf.removeFirst(headerEnd! + 4)
            while buf.count < length {
                let n = recv(c, &chunk, chunk.count, 0)
                if n <= 0 { close(c); return }
                buf += chunk[0..<n]
            }
            buf.removeFirst(length)
            let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".utf8)
            _ = reply.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    static func find(_ hay: [UInt8], _ needle: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }

    final class Client {
        let fd: Int32
        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = UInt16(port).bigEndian
            let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            if rc != 0 { throw BenchError("connect to sink failed") }
        }
        deinit { close(fd) }

        func post(_ body: [UInt8]) throws {
            let head = Array("POST /v1/sync/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
            for part in [head, body] {
                var off = 0
                while off < part.count {
                    let n = part[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { throw BenchError("sink send failed") }
                    off += n
                }
            }
            var got = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 256)
            while HTTPSink.find(got, Array("\r\n\r\n{}".utf8)) == nil {
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { throw BenchError("sink closed") }
                got += chunk[0..<n]
            }
        }
    }
}
