import Crypto
import HTTPTypes
import Hummingbird
import TNotesCore

/// Bearer tokens: 256 random bits shown once; only their SHA-256 is stored. A presented token is hashed
/// and looked up by hash, so no comparison ever runs over the secret itself, and the lookup key reveals
/// nothing about it (timing on the hash tells an attacker nothing usable).
public struct TokenAuth: Sendable {
    let storage: any ServerStorage

    public static func newToken() -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        for _ in 0..<32 { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
        return "tn_" + Hex.encode(bytes)
    }

    public static func hash(_ token: String) -> String { Hex.encode(SHA256.hash(data: Array(token.utf8))) }

    /// The user the request's token belongs to; 401 otherwise.
    func user(_ request: Request) async throws -> Int64 {
        guard let header = request.headers[.authorization] else { throw APIError.unauthorized }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw APIError.unauthorized }
        let token = parts[1].drop(while: { $0 == " " })
        guard !token.isEmpty, token.count <= 512 else { throw APIError.unauthorized }
        guard let id = try await storage.userId(tokenHash: Self.hash(String(token))) else { throw APIError.unauthorized }
        return id
    }
}
