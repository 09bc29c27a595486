import Crypto
import HTTPTypes
import Hummingbird
import Synchronization
import TNotesCore

/// Bearer tokens: 256 random bits shown once, one per device; only their SHA-256 is stored. A presented
/// token is hashed and looked up by hash, so no comparison ever runs over the secret itself, and the lookup
/// key reveals nothing about it (timing on the hash tells an attacker nothing usable).
public struct TokenAuth: Sendable {
    let storage: any ServerStorage
    let metrics: ServerMetrics
    let seen = DeviceSeen()
    /// Tokens found valid, by their rate-limit key: the rate limit keys a request by its token only then.
    let verified: VerifiedTokens

    /// Who a request is: the user, and which of their devices.
    struct Caller: Sendable {
        let user: Int64
        let device: String
    }

    public static func newToken() -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        for _ in 0..<32 { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
        return "tn_" + Hex.encode(bytes)
    }

    public static func hash(_ token: String) -> String { Hex.encode(SHA256.hash(data: Array(token.utf8))) }

    /// The bearer token a request carries, if it carries one of a sane length.
    static func bearer(_ request: Request) -> Substring? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].drop(while: { $0 == " " })
        guard !token.isEmpty, token.count <= 512 else { return nil }
        return token
    }

    /// The user the request's token belongs to; 401 otherwise.
    func user(_ request: Request) async throws -> Int64 { try await caller(request).user }

    /// The request's user and device; 401 `unauthorized` for no token or an unknown one, 401 `revoked` for a
    /// revoked device's (or revoked user's) token.
    func caller(_ request: Request) async throws -> Caller {
        guard let token = Self.bearer(request) else {
            metrics.refused(status: 401, reason: "no_token")
            throw APIError.unauthorized
        }
        let hash = Self.hash(String(token))
        guard let credential = try await storage.device(tokenHash: hash) else {
            metrics.refused(status: 401, reason: "unknown_token")
            throw APIError.unauthorized
        }
        if credential.revoked {
            verified.forget(hash)
            metrics.refused(status: 401, reason: "revoked")
            throw APIError.revoked
        }
        verified.remember(hash)
        let now = Timestamp.nowMillis()
        // Best effort: a request is not refused because its device's last-seen time could not be written.
        if seen.due(credential, nowMillis: now) { try? await storage.touchDevice(credential.device, at: Timestamp.format(millis: now)) }
        return Caller(user: credential.user, device: credential.device)
    }
}

/// Tokens the server found valid, by the key the rate limit uses (the first 128 bits of the token's hash). A
/// request is counted against its token only when the token is here; any other is counted against its address,
/// so made-up tokens (one per request) cannot each have a bucket of their own. Bounded: past the limit it starts
/// again, and a token forgotten that way is counted by address until its next request proves it again.
final class VerifiedTokens: Sendable {
    static let limit = 100_000
    private let keys = Mutex<Set<Substring>>([])

    static func key(hash: String) -> Substring { hash.prefix(32) }

    func remember(_ hash: String) {
        keys.withLock { keys in
            if keys.count >= Self.limit { keys.removeAll(keepingCapacity: true) }
            keys.insert(Self.key(hash: hash))
        }
    }

    func forget(_ hash: String) { _ = keys.withLock { $0.remove(Self.key(hash: hash)) } }

    func contains(hash: String) -> Bool { keys.withLock { $0.contains(Self.key(hash: hash)) } }
}

/// When a device was last written as seen: a device's `lastSeenAt` is written at most once a minute, so a
/// syncing device's requests do not each queue a write behind pushes. Shared by the requests of one
/// process; with several instances each writes at most once a minute.
/// A Mutex, not an actor: it is taken for a dictionary look-up on every authenticated request.
final class DeviceSeen: Sendable {
    static let intervalMillis: Int64 = 60_000
    private let written = Mutex<[String: Int64]>([:])

    /// True when this request should write `now` as the device's `lastSeenAt` (and it is then counted written).
    func due(_ credential: DeviceCredential, nowMillis: Int64) -> Bool {
        if let stored = credential.lastSeenAt.flatMap(Timestamp.parse), nowMillis - stored < Self.intervalMillis { return false }
        return written.withLock { map in
            if let last = map[credential.device], nowMillis - last < Self.intervalMillis { return false }
            if map.count > 100_000 { map.removeAll(keepingCapacity: true) }
            map[credential.device] = nowMillis
            return true
        }
    }
}
