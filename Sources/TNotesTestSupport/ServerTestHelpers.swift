import Foundation
import TNotesCore

// Generic helpers for the tnotes-server integration tests: backends, record and change builders in the
// contract §4 shapes, push/pull over HTTP, and a SHA-256 for checking audio bodies.

/// The server's storage backends; the server suites run the same tests on each.
public enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    public var description: String { rawValue }

    /// A server (not yet started) with its own fresh database on this backend.
    public func makeServer() throws -> ServerProcess {
        switch self {
        case .sqlite: return ServerProcess()
        case .postgres: return ServerProcess(database: try PostgresServer.shared.get().makeDatabase())
        }
    }
}

/// Builders for records and changes exactly as contract §2/§4 spell them (every field present, canonical
/// times, lowercase UUID ids), so that what a test pushes can be compared field for field with what it pulls.
public enum Wire {
    /// `2025-11-06T10:00:00.000Z`, the base time of every test record.
    public static let t0 = "2025-11-06T10:00:00.000Z"

    /// `t0` plus `seconds` (may be fractional: milliseconds count), canonical.
    public static func time(_ seconds: Double) -> String {
        Timestamp.format(millis: Timestamp.parse(t0)! + Int64((seconds * 1000).rounded()))
    }

    public static func id() -> String { Identifier.make() }

    public static func sermon(_ id: String, title: String = "Sunday Service", updatedAt: String = t0,
                              deletedAt: String? = nil, speaker: String? = "Pastor John",
                              audio: JSON = .null) -> JSONObject
    {
        [
            "id": .string(id), "title": .string(title), "date": .string(t0), "serviceType": "Sunday Service",
            "speaker": JSON(speaker), "isArchived": false, "transcriptionStatus": "complete",
            "summaryStatus": "processing", "audio": audio, "createdAt": .string(t0), "updatedAt": .string(updatedAt),
            "deletedAt": JSON(deletedAt),
        ]
    }

    public static func note(_ id: String, sermonId: String, text: String = "Key point", timestamp: JSON = 120.5,
                            updatedAt: String = t0, deletedAt: String? = nil) -> JSONObject
    {
        [
            "id": .string(id), "sermonId": .string(sermonId), "text": .string(text), Note.name(\.timestamp): timestamp,
            "createdAt": .string(t0), "updatedAt": .string(updatedAt), "deletedAt": JSON(deletedAt),
        ]
    }

    public static let sampleSegments: JSON = [
        ["start": 0, "end": 4.25, "text": "Grace and peace to you.", "speaker": "Pastor John"],
        ["start": 4.25, "end": 9.5, "text": "Open your Bibles to Romans 8."],
        ["start": 9.5, "end": 15, "text": "\"There is therefore now no condemnation\" — Röm 8,1 ✝"],
    ]

    public static func transcript(_ id: String, sermonId: String, text: String = "Full transcribed text...",
                                  segments: JSON = sampleSegments, updatedAt: String = t0,
                                  deletedAt: String? = nil) -> JSONObject
    {
        [
            "id": .string(id), "sermonId": .string(sermonId), "text": .string(text), "status": "complete",
            "segments": segments, "updatedAt": .string(updatedAt), "deletedAt": JSON(deletedAt),
        ]
    }

    public static func summary(_ id: String, sermonId: String, title: String = "Summary Title",
                               text: String = "Summary text...", updatedAt: String = t0,
                               deletedAt: String? = nil) -> JSONObject
    {
        [
            "id": .string(id), "sermonId": .string(sermonId), "title": .string(title), "text": .string(text),
            "type": "devotional", "status": "complete", "updatedAt": .string(updatedAt), "deletedAt": JSON(deletedAt),
        ]
    }

    public static func chat(_ id: String, sermonId: String, role: String = "user", content: String = "What is grace?",
                            createdAt: String = t0, deviceId: String = "devA") -> JSONObject
    {
        [
            "id": .string(id), "sermonId": .string(sermonId), "role": .string(role), "content": .string(content),
            "createdAt": .string(createdAt), "deviceId": .string(deviceId),
        ]
    }

    /// A `Change` (contract §4) carrying `record`; `updatedAt` is the record's (a chat message's `createdAt`).
    public static func change(_ collection: RecordCollection, _ record: JSONObject, op: String? = nil,
                              deviceId: String = "devA", opId: String = Identifier.make()) -> JSON
    {
        let updatedAt = record["updatedAt"]?.stringValue ?? record["createdAt"]?.stringValue ?? t0
        let op = op ?? ((record["deletedAt"].map { !$0.isNull } ?? false) ? "delete" : "upsert")
        return [
            "opId": .string(opId), "collection": .string(collection.rawValue), "id": record["id"] ?? .null,
            "op": .string(op), "updatedAt": .string(updatedAt), "deviceId": .string(deviceId),
            "record": .object(record),
        ]
    }

    /// The value as the server would hand it back after a trip through JSON text (9.0 and 9 alike).
    public static func canonical(_ value: JSON) -> JSON { (try? JSON.parse(value.text)) ?? value }
}

/// The answer of one push.
public struct PushAnswer: Sendable {
    public let results: [JSON]
    public let cursor: String?
    public var statuses: [String] { results.map { $0["status"]?.stringValue ?? "?" } }
    public func status(of opId: String) -> String? {
        results.first { $0["opId"]?.stringValue == opId }?["status"]?.stringValue
    }
}

/// One pull page.
public struct PullPage: Sendable {
    public let changes: [JSON]
    public let cursor: String
    public let hasMore: Bool
}

/// RFC 3986 unreserved characters: everything else in a query value is percent-encoded.
let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

/// Headers that keep any client-side HTTP cache out of the way of a GET.
public let noCache: [String: String] = ["Cache-Control": "no-cache, no-store", "Pragma": "no-cache"]

extension HTTPTestClient {
    /// POST /v1/sync/push; throws unless 200 with a `results` array.
    public func push(_ changes: [JSON], deviceId: String = "devA") throws -> PushAnswer {
        let r = try post("/v1/sync/push", json: ["deviceId": .string(deviceId), "changes": .array(changes)])
        guard r.status == 200, let results = r.json?["results"]?.arrayValue else {
            throw HarnessError("push answered \(r.status): \(r.text)")
        }
        return PushAnswer(results: results, cursor: r.json?["cursor"]?.stringValue)
    }

    /// One GET /v1/sync/pull; throws unless 200 with `changes`, `cursor`, `hasMore`.
    public func pullPage(cursor: String? = nil, limit: Int? = nil) throws -> PullPage {
        var query = [String]()
        if let cursor { query.append("cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: unreserved) ?? cursor)") }
        if let limit { query.append("limit=\(limit)") }
        let path = "/v1/sync/pull" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let r = try get(path, headers: noCache)
        guard r.status == 200, let json = r.json, let changes = json["changes"]?.arrayValue,
            let next = json["cursor"]?.stringValue, let hasMore = json["hasMore"]?.boolValue
        else { throw HarnessError("pull \(path) answered \(r.status): \(r.text)") }
        return PullPage(changes: changes, cursor: next, hasMore: hasMore)
    }

    /// Pulls page after page until `hasMore` is false; returns every change and the last cursor.
    public func pullAll(from cursor: String? = nil, limit: Int? = nil) throws -> (changes: [JSON], cursor: String) {
        var all = [JSON]()
        var cursor = cursor
        for _ in 0..<100_000 {
            let page = try pullPage(cursor: cursor, limit: limit)
            all += page.changes
            cursor = page.cursor
            if !page.hasMore { return (all, page.cursor) }
            if page.changes.isEmpty { throw HarnessError("pull said hasMore with an empty page") }
        }
        throw HarnessError("pull never ended")
    }

    /// PUT /v1/audio/{sermonId} with the given headers.
    public func putAudio(_ sermonId: String, _ bytes: [UInt8], headers: [String: String]) throws -> HTTPResponse {
        var h = headers
        h["Content-Type"] = "application/octet-stream"
        return try request("PUT", "/v1/audio/\(sermonId)", body: Data(bytes), headers: h)
    }
}

extension ServerProcess {
    /// Runs `tnotes-server ARGS… <storage arguments> EXTRA…` (e.g. `["user", "list"]`) to completion.
    public func cli(_ command: [String], _ extra: [String] = []) throws -> ProcessResult {
        try ProcessRunner.run(Binaries.path("tnotes-server"), command + storageArguments + extra)
    }

    public func client(_ token: String? = nil) -> HTTPTestClient { HTTPTestClient(baseURL: baseURL, token: token) }
}

/// Deterministic pseudo-random bytes (xorshift), so that a failing test can be rerun with the same data.
public func testBytes(_ n: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var x = seed | 1
    var out = [UInt8]()
    out.reserveCapacity(n)
    while out.count < n {
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        out.append(UInt8(truncatingIfNeeded: x >> 24))
    }
    return out
}

/// SHA-256 (FIPS 180-4), small and self-contained so the tests check digests independently of the server.
public enum TestSHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    public static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var m = message
        let bitLength = UInt64(message.count) * 8
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        for i in (0..<8).reversed() { m.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: m.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] = UInt32(m[j]) << 24 | UInt32(m[j + 1]) << 16 | UInt32(m[j + 2]) << 8 | UInt32(m[j + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
        }
        var out = [UInt8]()
        for v in h { out += [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
        return out
    }

    public static func hex(_ message: [UInt8]) -> String { Hex.encode(digest(message)) }
    public static func base64(_ message: [UInt8]) -> String { Data(digest(message)).base64EncodedString() }
}

/// Starts a server on `backend` (after `configure` and after adding `users`), runs `body` with it and the
/// users' tokens by name, and stops it whatever happens. Returns the server's exit status.
@discardableResult
public func withServer(_ backend: Backend, users: [String] = ["alice"],
                       configure: (ServerProcess) throws -> Void = { _ in },
                       _ body: (ServerProcess, [String: String]) throws -> Void) throws -> Int32?
{
    let server = try backend.makeServer()
    try configure(server)
    var tokens = [String: String]()
    for u in users { tokens[u] = try server.addUser(u) }
    try server.start()
    do {
        try body(server, tokens)
    } catch {
        server.stop()
        throw HarnessError("\(error)\n--- server log (\(backend)) ---\n\(server.log.suffix(4000))")
    }
    return server.stop()
}
