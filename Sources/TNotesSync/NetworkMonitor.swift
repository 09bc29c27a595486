import CCurlShim
import Dispatch
import Logging
import ServiceLifecycle
import Synchronization
import TNotesLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Watches rtnetlink for link and address changes, as a `Service` of the daemon's group. A burst of
/// messages is debounced (250 ms), then the whole interface state is compared with the previous one,
/// ignoring loopback and link-local noise; only a real change is reported: usable (some interface up with
/// a global address) or not.
///
/// The blocking reads run on a thread of their own, which alone owns the netlink socket (it closes it on
/// the way out); `run` owns an eventfd that wakes that thread to stop, and closes it only once the thread
/// has ended. No descriptor is ever used by one thread while another closes it.
public struct NetworkMonitor: Service {
    public typealias Handler = @Sendable (_ usable: Bool) async -> Void

    private let logger: Logger
    private let handler: Handler

    public init(logger: Logger, handler: @escaping Handler) {
        self.logger = logger
        self.handler = handler
    }

    public func run() async throws {
        let netlink = tn_netlink_open()
        guard netlink >= 0 else {
            // Not fatal: sync still runs on its timer and on other triggers.
            logger.notice("network monitor unavailable", metadata: ["errno": "\(errno)"])
            try? await gracefulShutdown()
            return
        }
        let wake = tn_wake_fd_open()
        guard wake >= 0 else {
            close(netlink)
            logger.notice("network monitor unavailable: no eventfd", metadata: ["errno": "\(errno)"])
            try? await gracefulShutdown()
            return
        }
        let (changes, report) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        let ended = ThreadEnd()
        let logger = self.logger
        // A thread of its own, not one of a pool: `watch` blocks in poll(2) for the daemon's whole life.
        DedicatedThread.start {
            NetlinkThread.watch(netlink: netlink, wake: wake, logger: logger) { report.yield($0) }
            close(netlink)
            report.finish()
            ended.signal()
        }
        await withTaskCancellationHandler {
            await cancelWhenGracefulShutdown {
                for await usable in changes { await handler(usable) }
            }
        } onCancel: {
            var one: UInt64 = 1
            _ = write(wake, &one, 8)
        }
        // Graceful shutdown cancels the loop above: wake the thread, wait for it to end, then close.
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
        await ended.wait()
        close(wake)
    }
}

/// The reader thread's body and start.
enum NetlinkThread {
    /// Blocks in poll until `wake` is signalled; reports a debounced state change through `report`.
    static func watch(netlink: Int32, wake: Int32, logger: Logger, report: (Bool) -> Void) {
        var lastState = NetworkMonitor.snapshot()
        var buffer = [UInt8](repeating: 0, count: 16384)
        var pendingSince: ContinuousClock.Instant?
        while true {
            var fds = [pollfd(fd: netlink, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            // With a change pending, wait at most until its 250 ms are up; otherwise until something arrives.
            var timeout: Int32 = -1
            if let since = pendingSince {
                let left = Duration.milliseconds(250) - (ContinuousClock.now - since)
                timeout = max(0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            }
            // poll(2) and a non-blocking recv(2) of a netlink socket: calls swift-system does not wrap, so an
            // interrupted one is passed over here by hand.
            let n = poll(&fds, 2, timeout)
            if n < 0 && errno != EINTR { return }
            if fds[1].revents != 0 { return }
            if n > 0 && fds[0].revents & Int16(POLLIN) != 0 {
                let got = recv(netlink, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if got > 0 || (got < 0 && errno == ENOBUFS) {  // ENOBUFS: messages were missed; re-read the state
                    logger.debug("netlink message", metadata: ["bytes": "\(got)"])
                    if pendingSince == nil { pendingSince = .now }
                } else if got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) {
                    return
                }
            } else if fds[0].revents & Int16(POLLERR | POLLHUP) != 0 {
                return
            }
            if let since = pendingSince, ContinuousClock.now - since >= .milliseconds(250) {
                pendingSince = nil
                let state = NetworkMonitor.snapshot()
                guard state != lastState else {
                    logger.debug("network change without effect")
                    continue
                }
                lastState = state
                logger.debug("network state changed", metadata: ["usable": "\(!state.isEmpty)", "addresses": "\(state.sorted())"])
                report(!state.isEmpty)
            }
        }
    }
}

extension NetworkMonitor {
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
