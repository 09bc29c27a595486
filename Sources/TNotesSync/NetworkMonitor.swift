import CCurlShim
import Dispatch
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Watches rtnetlink for link and address changes. A burst of messages is debounced (250 ms), then the
/// whole interface state is compared with the previous one, ignoring loopback and link-local noise;
/// only a real change is reported: usable (some interface up with a global address) or not.
public final class NetworkMonitor: @unchecked Sendable {
    public typealias Handler = @Sendable (_ usable: Bool) -> Void

    private let logger: Logger
    private let handler: Handler
    private var fd: Int32 = -1
    private let queue = DispatchQueue(label: "tnotes.netlink")
    private var lastState: Set<String>?
    private var pending: DispatchWorkItem?
    private var stopped = false

    public init(logger: Logger, handler: @escaping Handler) {
        self.logger = logger
        self.handler = handler
    }

    /// Opens the netlink socket and starts reading; false when netlink is not available (then nothing is reported).
    @discardableResult
    public func start() -> Bool {
        let s = tn_netlink_open()
        guard s >= 0 else {
            logger.notice("network monitor unavailable", metadata: ["errno": "\(errno)"])
            return false
        }
        fd = s
        queue.sync { lastState = Self.snapshot() }
        Thread.detach { [self] in readLoop() }
        return true
    }

    public func stop() {
        queue.sync { stopped = true }
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)); close(fd); fd = -1 }
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ENOBUFS { schedule(); continue }  // we missed messages: re-read the state
                return
            }
            if n == 0 { return }
            logger.debug("netlink message", metadata: ["bytes": "\(n)"])
            schedule()
        }
    }

    private func schedule() {
        queue.async { [self] in
            guard !stopped else { return }
            pending?.cancel()
            let item = DispatchWorkItem { [self] in evaluate() }
            pending = item
            queue.asyncAfter(deadline: .now() + .milliseconds(250), execute: item)
        }
    }

    private func evaluate() {
        let state = Self.snapshot()
        guard state != lastState else {
            logger.debug("network change without effect")
            return
        }
        lastState = state
        let usable = !state.isEmpty
        logger.debug("network state changed", metadata: ["usable": "\(usable)", "addresses": "\(state.sorted())"])
        handler(usable)
    }

    /// Global addresses of interfaces that are up and running (loopback and link-local left out).
    static func snapshot() -> Set<String> {
        var out = Set<String>()
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return out }
        defer { freeifaddrs(list) }
        var p = list
        while let ifa = p {
            defer { p = ifa.pointee.ifa_next }
            let flags = Int32(ifa.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0,
                  flags & Int32(IFF_LOOPBACK) == 0, let sa = ifa.pointee.ifa_addr else { continue }
            let name = String(cString: ifa.pointee.ifa_name)
            switch Int32(sa.pointee.sa_family) {
            case AF_INET:
                let a = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                let host = UInt32(bigEndian: a)
                if host >> 16 == 0xA9FE { continue }  // 169.254/16 link-local
                out.insert("\(name) v4 \(host)")
            case AF_INET6:
                let bytes = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr.__in6_u.__u6_addr8 }
                if bytes.0 == 0xFE && (bytes.1 & 0xC0) == 0x80 { continue }  // fe80::/10 link-local
                out.insert("\(name) v6 \(bytes)")
            default: continue
            }
        }
        return out
    }
}

extension Thread {
    static func detach(_ body: @escaping @Sendable () -> Void) {
        var t = pthread_t()
        let box = Unmanaged.passRetained(ThreadBody(body))
        pthread_create(&t, nil, { arg in
            let b = Unmanaged<ThreadBody>.fromOpaque(arg!).takeRetainedValue()
            b.body()
            return nil
        }, box.toOpaque())
        pthread_detach(t)
    }
}

final class ThreadBody: @unchecked Sendable {
    let body: @Sendable () -> Void
    init(_ b: @escaping @Sendable () -> Void) { body = b }
}

enum Thread {}
