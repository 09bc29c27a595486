import Foundation
import SystemPackage
import TNotesClient

#if canImport(Glibc)
import Glibc
#endif

/// A byte-for-byte TCP relay on loopback in front of a server: unlike `FaultProxy` it keeps connections
/// as the client made them (keep-alive passes through), so a test can count the TCP connections a client
/// really opens, and it can slow the bytes in either direction so a large upload or download lasts long
/// enough to be interrupted. Plain POSIX sockets, two threads per connection.
///
/// Unchecked because: every mutable field is read and written under `lock`; the listening fd and port are
/// fixed in `init`.
public final class TCPRelay: @unchecked Sendable {
    public let port: Int
    private let listenFd: Int32
    private let upstreamPort: Int
    private let lock = NSLock()
    private var accepted = 0
    private var upBytes = 0
    private var downBytes = 0
    private var rate: Int?
    private var stopped = false
    private var openFds = Set<Int32>()

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// TCP connections accepted from clients so far.
    public var connectionsAccepted: Int { lock.withLock { accepted } }
    /// Bytes relayed client → server and server → client.
    public var bytesUp: Int { lock.withLock { upBytes } }
    public var bytesDown: Int { lock.withLock { downBytes } }
    /// Caps each direction of each connection, in bytes per second (nil: as fast as they come).
    public var bytesPerSecond: Int? {
        get { lock.withLock { rate } }
        set { lock.withLock { rate = newValue } }
    }

    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        (listenFd, port) = try FaultProxy.listen(port: 0)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    public convenience init(frontOf server: ServerProcess) throws { try self.init(upstreamPort: server.port) }

    deinit { stop() }

    /// Stops accepting and cuts every relayed connection.
    public func stop() {
        lock.withLock {
            if stopped { return }
            stopped = true
            shutdown(listenFd, Int32(SHUT_RDWR))
            for fd in openFds { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let c = accept(listenFd, nil, nil)
            if c >= 0 { _ = fcntl(c, F_SETFD, FD_CLOEXEC) }
            if c < 0 {
                // accept(2): a socket call swift-system does not wrap.
                if errno == EINTR || errno == ECONNABORTED { continue }
                if lock.withLock({ stopped }) { break }
                usleep(10_000)
                continue
            }
            guard let u = FaultProxy.connect(host: "127.0.0.1", port: upstreamPort) else { close(c); continue }
            let ok: Bool = lock.withLock {
                if stopped { return false }
                accepted += 1
                openFds.formUnion([c, u])
                return true
            }
            guard ok else { close(c); close(u); break }
            // Each direction on its own thread; the connection closes when both have ended.
            let remaining = DirectionCount()
            for (from, to, up) in [(c, u, true), (u, c, false)] {
                Thread.detachNewThread { [self] in
                    pump(from: from, to: to, up: up)
                    if remaining.finishOne() {
                        lock.withLock {
                            openFds.subtract([c, u])
                            close(c)
                            close(u)
                        }
                    }
                }
            }
        }
        lock.withLock { _ = close(listenFd) }
    }

    private func pump(from: Int32, to: Int32, up: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let limit = lock.withLock { rate }
            let chunk = limit.map { max(1024, min(buffer.count, $0 / 20)) } ?? buffer.count
            // A blocking read(2) of the socket (swift-system retries it when interrupted); the write is TNotesClient's one
            // socket write loop (send with MSG_NOSIGNAL, see `SocketWriter`).
            let n = (try? buffer.withUnsafeMutableBytes { raw in
                try FileDescriptor(rawValue: from).read(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<chunk]))
            }) ?? -1
            if n <= 0 { break }
            guard (try? SocketWriter(fd: to).send(buffer[..<n])) != nil else {
                shutdown(from, Int32(SHUT_RDWR))
                return
            }
            lock.withLock { if up { upBytes += n } else { downBytes += n } }
            if let limit { usleep(UInt32(Double(n) / Double(limit) * 1_000_000)) }
        }
        // Pass the end on: the other side sees EOF, as it would without the relay.
        shutdown(to, Int32(SHUT_WR))
    }
}

/// Counts the two directions of one relayed connection down to zero.
/// Unchecked because: `left` is only touched under `lock`.
private final class DirectionCount: @unchecked Sendable {
    private let lock = NSLock()
    private var left = 2
    func finishOne() -> Bool { lock.withLock { left -= 1; return left == 0 } }
}
