import Foundation

/// A fault-injecting HTTP/1.1 proxy on 127.0.0.1 in front of a server (usually `tnotes-server`).
///
/// Every request is read (head and, with a Content-Length, its body), logged, matched against the
/// fault rules, and then answered according to the first rule that matches (pass-through when none does).
/// Each connection carries one request: the proxy asks the upstream to close after its answer and tells
/// the client the same, so faults apply per request and a byte count is per response.
///
/// Modes switch at run time (`setFault`, `addFault`, `passThrough`), optionally only for a method / path
/// prefix and only a number of times. Plain POSIX sockets, one thread per connection.
/// Unchecked because: every mutable field is read and written under `lock` (NSLock); the listening fd and
/// port are fixed in `init`.
public final class FaultProxy: @unchecked Sendable {
    public enum Fault: Sendable, Equatable, CustomStringConvertible {
        /// Forward the request and relay the answer.
        case passThrough
        /// Answer `status` without forwarding (`Retry-After: N` when given; a JSON `{error, detail}` body).
        case respond(status: Int, retryAfter: Int? = nil)
        /// Reset the connection (RST) after reading the request; nothing is forwarded.
        case reset
        /// Forward the request, let the upstream answer in full (so it applied it), then reset the client.
        case dropResponse
        /// Accept and read the request, never answer (until the client gives up or the proxy stops).
        case blackhole
        /// Forward; relay the answer's head and the first `n` bytes of its body, then reset the client.
        case resetAfterResponseBytes(Int)
        /// Hold the request `seconds`, then forward it: a request sent after it may overtake it.
        case delay(Double)

        public var description: String {
            switch self {
            case .passThrough: return "pass-through"
            case .respond(let s, let r): return "respond \(s)" + (r.map { " Retry-After: \($0)" } ?? "")
            case .reset: return "reset"
            case .dropResponse: return "drop response"
            case .blackhole: return "blackhole"
            case .resetAfterResponseBytes(let n): return "reset after \(n) response bytes"
            case .delay(let seconds): return "delay \(seconds) s"
            }
        }
    }

    /// Which requests a rule applies to, and how often.
    public struct Rule: Sendable {
        public var fault: Fault
        public var method: String?
        public var pathPrefix: String?
        /// nil: until replaced; else the number of requests it still applies to.
        public var remaining: Int?

        public init(_ fault: Fault, method: String? = nil, pathPrefix: String? = nil, times: Int? = nil) {
            self.fault = fault
            self.method = method
            self.pathPrefix = pathPrefix
            self.remaining = times
        }

        func matches(method m: String, path p: String) -> Bool {
            (method == nil || method!.uppercased() == m.uppercased()) && (pathPrefix == nil || p.hasPrefix(pathPrefix!))
        }
    }

    /// One request as the proxy saw it.
    public struct Seen: Sendable {
        public let method: String
        public let path: String
        /// Header names lowercased.
        public let headers: [String: String]
        public let at: Date
        public let fault: Fault
        /// The upstream's status, when the request was forwarded and answered.
        public var upstreamStatus: Int?
    }

    /// Rewrites a request body before it is forwarded (nil: unchanged). Only bodies with a
    /// Content-Length up to 16 MiB are offered.
    public typealias Rewriter = @Sendable (_ method: String, _ path: String, _ body: [UInt8]) -> [UInt8]?

    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let lock = NSLock()
    private var upstream: (host: String, port: Int)
    private var rules: [Rule] = []
    private var latencySeconds: Double = 0
    private var responseRate: Int?
    private var rewriter: Rewriter?
    private var targetRewriter: (@Sendable (String) -> String)?
    private var seenLog: [Seen] = []
    private var faultCount = 0
    private var connectionCount = 0
    private var stopped = false
    private var openFds = Set<Int32>()
    private let listenFd: Int32

    /// Listens on 127.0.0.1:`port` (0: a free port) and forwards to `upstreamHost:upstreamPort`.
    public init(upstreamPort: Int, upstreamHost: String = "127.0.0.1", port requested: Int = 0) throws {
        upstream = (upstreamHost, upstreamPort)
        (listenFd, port) = try Self.listen(port: requested)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// A proxy in front of a running `ServerProcess`.
    public convenience init(frontOf server: ServerProcess) throws {
        try self.init(upstreamPort: server.port)
    }

    deinit { stop() }

    // MARK: Control

    /// Replaces every rule with this one (`.passThrough` with no filter clears them).
    public func setFault(_ fault: Fault, method: String? = nil, pathPrefix: String? = nil, times: Int? = nil) {
        lock.withLock {
            rules = fault == .passThrough && method == nil && pathPrefix == nil
                ? [] : [Rule(fault, method: method, pathPrefix: pathPrefix, times: times)]
        }
    }

    /// Adds a rule after the existing ones (the first matching rule wins).
    public func addFault(_ fault: Fault, method: String? = nil, pathPrefix: String? = nil, times: Int? = nil) {
        lock.withLock { rules.append(Rule(fault, method: method, pathPrefix: pathPrefix, times: times)) }
    }

    /// Back to plain forwarding.
    public func passThrough() { lock.withLock { rules = [] } }

    /// Delay added before each request is handled (forwarded or faulted).
    public var latency: Double {
        get { lock.withLock { latencySeconds } }
        set { lock.withLock { latencySeconds = newValue } }
    }

    /// Caps how fast response bodies flow to clients, in bytes per second (nil: as fast as they come), so a
    /// test can make a large download last long enough to be interrupted.
    public var responseBytesPerSecond: Int? {
        get { lock.withLock { responseRate } }
        set { lock.withLock { responseRate = newValue } }
    }

    public func setRewriter(_ r: Rewriter?) { lock.withLock { rewriter = r } }
    /// Rewrites each request's target (path and query) before it is forwarded, e.g. to drop a parameter an
    /// older server would not know.
    public func setTargetRewriter(_ r: (@Sendable (String) -> String)?) { lock.withLock { targetRewriter = r } }

    /// Points the proxy at another upstream port (e.g. a restarted server).
    public func setUpstream(port: Int, host: String = "127.0.0.1") { lock.withLock { upstream = (host, port) } }

    // MARK: Counters

    /// Every request seen, in arrival order.
    public var seen: [Seen] { lock.withLock { seenLog } }
    public var requestCount: Int { lock.withLock { seenLog.count } }
    /// Requests that got a fault other than pass-through.
    public var faultsInjected: Int { lock.withLock { faultCount } }
    public var connectionsAccepted: Int { lock.withLock { connectionCount } }

    public func seen(method: String? = nil, pathPrefix: String? = nil) -> [Seen] {
        seen.filter { (method == nil || $0.method == method) && (pathPrefix == nil || $0.path.hasPrefix(pathPrefix!)) }
    }

    public func resetCounters() {
        lock.withLock {
            seenLog = []
            faultCount = 0
            connectionCount = 0
        }
    }

    /// Stops listening and cuts every open connection.
    public func stop() {
        // Under the lock, like every close of a tracked fd: a number shut down here must still be ours, never
        // one that a handler just closed and another test's socket already reuses (that cut an unrelated
        // RPC connection once, seen as EPIPE far away in another suite).
        lock.withLock {
            if stopped { return }
            stopped = true
            shutdown(listenFd, Int32(SHUT_RDWR))
            for fd in openFds { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Forgets and closes a tracked fd in one step under the lock (see `stop`).
    private func closeTracked(_ fd: Int32) {
        lock.withLock {
            openFds.remove(fd)
            close(fd)
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    // MARK: Connections

    private func acceptLoop() {
        while true {
            let c = accept(listenFd, nil, nil)
            if c >= 0 { _ = fcntl(c, F_SETFD, FD_CLOEXEC) }
            if c < 0 {
                // accept(2): a socket call swift-system does not wrap.
                if errno == EINTR || errno == ECONNABORTED { continue }
                if isStopped { break }
                usleep(10_000)
                continue
            }
            let ok: Bool = lock.withLock {
                if stopped { return false }
                openFds.insert(c)
                connectionCount += 1
                return true
            }
            guard ok else { close(c); break }
            Thread.detachNewThread { [self] in
                handle(client: c)
                closeTracked(c)
            }
        }
        lock.withLock { _ = close(listenFd) }
    }

    private func track(_ fd: Int32) -> Bool {
        lock.withLock {
            if stopped { return false }
            openFds.insert(fd)
            return true
        }
    }


    private func decide(method: String, path: String, headers: [String: String]) -> (Fault, Double, Rewriter?, Int) {
        lock.withLock {
            var fault = Fault.passThrough
            if let i = rules.firstIndex(where: { $0.matches(method: method, path: path) }) {
                fault = rules[i].fault
                if let r = rules[i].remaining {
                    if r <= 1 { rules.remove(at: i) } else { rules[i].remaining = r - 1 }
                }
            }
            if fault != .passThrough { faultCount += 1 }
            seenLog.append(Seen(method: method, path: path, headers: headers, at: Date(), fault: fault))
            return (fault, latencySeconds, rewriter, seenLog.count - 1)
        }
    }

    private func noteStatus(_ index: Int, _ status: Int) {
        lock.withLock { if index < seenLog.count { seenLog[index].upstreamStatus = status } }
    }

    /// Serves one client connection; the caller closes `c`.
    private func handle(client c: Int32) {
        setTimeouts(c)
        let conn = ProxyConnection(fd: c)
        guard let headBytes = conn.readHead(stop: { self.isStopped }) else { return }
        guard let head = ProxyHTTPHead(headBytes), head.isRequest else {
            _ = proxySendAll(c, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        let (fault, latency, rewriter, index) = decide(method: head.method, path: head.target, headers: head.headerMap)
        if latency > 0 { usleep(UInt32(latency * 1_000_000)) }
        let chunked = head.header("transfer-encoding")?.lowercased().contains("chunked") ?? false
        let contentLength = Int(head.header("content-length") ?? "") ?? 0

        switch fault {
        case .respond(let status, let retryAfter):
            if !chunked { _ = conn.drain(contentLength) }
            let body = Array("{\"error\":\"injected\",\"detail\":\"fault proxy answered \(status)\"}".utf8)
            var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: application/json\r\n"
            text += "Content-Length: \(body.count)\r\nConnection: close\r\n"
            if let retryAfter { text += "Retry-After: \(retryAfter)\r\n" }
            text += "\r\n"
            _ = proxySendAll(c, Array(text.utf8) + body)
            shutdown(c, Int32(SHUT_WR))
            _ = conn.drain(1 << 20, timeout: 1)
            return
        case .reset:
            Self.resetOnClose(c)
            return
        case .blackhole:
            while !isStopped {
                var pfd = pollfd(fd: c, events: Int16(POLLIN), revents: 0)
                let r = poll(&pfd, 1, 200)
                if r > 0 {
                    var buf = [UInt8](repeating: 0, count: 65536)
                    let n = recv(c, &buf, buf.count, 0)
                    if n <= 0 { return }
                }
            }
            return
        case .delay(let seconds):
            usleep(UInt32(seconds * 1_000_000))
        case .passThrough, .dropResponse, .resetAfterResponseBytes:
            break
        }

        // Forward.
        let target = lock.withLock { upstream }
        guard let u = Self.connect(host: target.host, port: target.port) else {
            // Upstream down: the client sees what it would see without the proxy, a failed connection.
            Self.resetOnClose(c)
            return
        }
        guard track(u) else { close(u); return }
        defer { closeTracked(u) }
        setTimeouts(u)

        var out = head
        out.setHeader("Connection", "close")
        if let rewrite = lock.withLock({ targetRewriter }) { out.target = rewrite(out.target) }
        if !chunked, let rewriter, contentLength > 0, contentLength <= 16 << 20 {
            guard let body = conn.read(exactly: contentLength) else { return }
            let newBody = rewriter(head.method, head.target, body) ?? body
            out.setHeader("Content-Length", String(newBody.count))
            guard proxySendAll(u, out.bytes + newBody) else { Self.resetOnClose(c); return }
        } else {
            guard proxySendAll(u, out.bytes) else { Self.resetOnClose(c); return }
            if chunked {
                // Relay what the client sends until the upstream answers (the request ends with the 0 chunk).
                if !conn.relayChunked(to: u) { Self.resetOnClose(c); return }
            } else if !conn.relay(contentLength, to: u) {
                Self.resetOnClose(c)
                return
            }
        }

        // The answer.
        let upConn = ProxyConnection(fd: u)
        guard let rHeadBytes = upConn.readHead(stop: { self.isStopped }, timeout: 300), var rHead = ProxyHTTPHead(rHeadBytes) else {
            Self.resetOnClose(c)
            return
        }
        noteStatus(index, rHead.status)
        let noBody = head.method == "HEAD" || rHead.status == 204 || rHead.status == 304 || (100..<200).contains(rHead.status)
        let rChunked = rHead.header("transfer-encoding")?.lowercased().contains("chunked") ?? false
        let rLength: Int? = noBody ? 0 : (rChunked ? nil : Int(rHead.header("content-length") ?? ""))

        switch fault {
        case .dropResponse:
            // Let the upstream finish its answer, so it has certainly committed, then cut the client off.
            _ = upConn.drain(rLength ?? Int.max, timeout: 60)
            Self.resetOnClose(c)
        case .resetAfterResponseBytes(let limit):
            rHead.setHeader("Connection", "close")
            guard proxySendAll(c, rHead.bytes) else { return }
            upConn.relay(min(limit, rLength ?? Int.max), to: c, untilEOF: true)
            Self.resetOnClose(c)
        default:
            rHead.setHeader("Connection", "close")
            guard proxySendAll(c, rHead.bytes) else { return }
            let rate = responseBytesPerSecond
            if let rLength {
                _ = upConn.relay(rLength, to: c, bytesPerSecond: rate)
            } else {
                _ = upConn.relay(Int.max, to: c, untilEOF: true, bytesPerSecond: rate)
            }
            shutdown(c, Int32(SHUT_WR))
            _ = conn.drain(1 << 20, timeout: 1)
        }
    }
}
