import Crypto
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import NIOCore
import Synchronization
import TNotesCore

/// Requests per second per token, with a burst (contract §8.6: `[server] rate_limit`, `rate_burst`). A request
/// without a token the server has found valid (`/healthz`, public pages, pairing, a made-up token) counts against
/// its client's address instead: an IPv4 address, or an IPv6 /64 (one client commonly holds a whole /64). Over the
/// limit: 429 with `Retry-After`. Per process: several instances on one database each allow the rate.
///
/// The generic cell rate algorithm: one number per key, the time at which its bucket would be full again
/// (`due`); a request is allowed when `due` is at most `burst` intervals ahead of now. Keys whose bucket is
/// full again are forgotten when the table grows, so random tokens cannot grow it for good.
/// A Mutex, not an actor: every request takes it for one dictionary update, and an actor hop per request cost more.
struct RateLimit: RouterMiddleware {
    typealias Context = ServerRequestContext

    let interval: Double
    let burst: Double
    let metrics: ServerMetrics
    let verified: VerifiedTokens
    private let table = Table()
    static let tableLimit = 50_000

    init(perSecond: Int, burst: Int, metrics: ServerMetrics, verified: VerifiedTokens) {
        self.verified = verified
        interval = 1 / Double(perSecond)
        self.burst = Double(max(burst, 1))
        self.metrics = metrics
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let (key, scope) = key(request, context)
        if let wait = admit(key, now: Self.now()) {
            metrics.refused(status: 429, reason: scope)
            throw APIError.rateLimited(retryAfter: max(1, Int(wait.rounded(.up))))
        }
        return try await next(request, context)
    }

    /// Nil when the request may go on; else the seconds until it would be allowed.
    func admit(_ key: String, now: Double) -> Double? {
        table.due.withLock { table in
            let due = max(table[key] ?? now, now)
            let ahead = due + interval - now
            if ahead > burst * interval { return ahead - burst * interval }
            if table.count >= Self.tableLimit { table = table.filter { $0.value > now } }
            table[key] = due + interval
            return nil
        }
    }

    /// A valid token's hash (the token itself is not kept), or the client's address.
    func key(_ request: Request, _ context: Context) -> (String, scope: String) {
        if let token = TokenAuth.bearer(request) {
            let hash = TokenAuth.hash(String(token))
            if verified.contains(hash: hash) { return ("t" + VerifiedTokens.key(hash: hash), "token") }
        }
        return ("a" + Self.addressKey(context.remoteAddress?.ipAddress ?? "?"), "address")
    }

    /// An IPv4 address as it is; an IPv6 one as its /64 (its first four groups, spelled out).
    static func addressKey(_ ip: String) -> String {
        guard ip.contains(":") else { return ip }
        var groups = [Substring]()
        let halves = ip.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        let head = halves.first.map { $0.split(separator: ":", omittingEmptySubsequences: true) } ?? []
        groups.append(contentsOf: head.prefix(4))
        if groups.count < 4 {
            // "::" stands for zero groups; what follows it fills the address from the right.
            let tail = halves.count > 1 ? halves[1].split(separator: ":", omittingEmptySubsequences: true) : []
            let zeros = max(0, 8 - head.count - tail.count)
            groups.append(contentsOf: Array(repeating: "0", count: zeros).prefix(4 - groups.count))
            groups.append(contentsOf: tail.prefix(max(0, 4 - groups.count)))
        }
        return groups.map { $0.lowercased() }.joined(separator: ":") + "::/64"
    }

    /// Each key's `due` time (a class: a Mutex cannot be copied with the middleware).
    final class Table: Sendable {
        let due = Mutex<[String: Double]>([:])
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
