import Foundation
import TNotesClient

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
                        guard (try? SocketWriter(fd: c).send(buf[..<n])) != nil else { close(c); return }
                    }
                }
            }
        }
    }

    func stop() { shutdown(fd, Int32(SHUT_RDWR)); close(fd); unlink(path) }
}
