import TNotesCore
import TNotesStore

/// Why a sync request failed. Every kind but `revoked` is retried by the backoff timer (an auth failure too:
/// the token file is read again on each attempt, so fixing it heals the queue without a restart). A revoked
/// device's token will never work again: the engine stops until it is paired again (contract §8.6).
public enum SyncFailure: Error, CustomStringConvertible, Sendable {
    case network(String)
    case server(status: Int, retryAfter: Double?, detail: String)
    case unauthorized(String)
    case revoked(String)
    case client(status: Int, detail: String)
    case malformed(String)

    public var retryAfter: Double? {
        if case .server(_, let r, _) = self { return r }
        return nil
    }

    public var description: String {
        switch self {
        case .network(let m): return "network: \(m)"
        case .server(let s, _, let d): return "server answered \(s)\(d.isEmpty ? "" : ": \(d)")"
        case .unauthorized(let d): return "unauthorized: \(d)"
        case .revoked(let d): return "revoked: \(d)"
        case .client(let s, let d): return "request refused (\(s))\(d.isEmpty ? "" : ": \(d)")"
        case .malformed(let m): return "unexpected answer: \(m)"
        }
    }
}

/// The sync HTTP API of contract §4, as the daemon calls it.
public struct SyncClient: Sendable {
    public let serverURL: String
    let token: @Sendable () throws -> String
    let transport: CurlTransport

    public init(serverURL: String, token: @escaping @Sendable () throws -> String, transport: CurlTransport = CurlTransport()) {
        var url = serverURL
        while url.hasSuffix("/") { url.removeLast() }
        self.serverURL = url
        self.token = token
        self.transport = transport
    }

    func authorized(_ method: String, _ path: String, body: [UInt8]? = nil, extra: [String] = []) throws -> TransportRequest {
        let t: String
        do { t = try token() } catch { throw SyncFailure.unauthorized("no token: \(error)") }
        var headers = ["Authorization: Bearer \(t)", "Accept: application/json"] + extra
        if body != nil { headers.append("Content-Type: application/json") }
        return TransportRequest(method: method, url: serverURL + path, headers: headers, body: body)
    }

    func exchange(_ request: TransportRequest) async throws -> TransportResponse {
        let response: TransportResponse
        do {
            response = try await transport.perform(request)
        } catch let e as TransportError {
            throw SyncFailure.network(e.message)
        }
        try Self.check(response)
        return response
    }

    static func check(_ r: TransportResponse) throws {
        switch r.status {
        case 200..<300: return
        case 401 where (try? JSON.parse(r.body))?["error"]?.stringValue == "revoked":
            throw SyncFailure.revoked("the server revoked this device; pair it again with tnotes sync login URL CODE (its data stays here)")
        case 401, 403: throw SyncFailure.unauthorized("the server refused the token (\(r.status))")
        case 408, 429, 500...599:
            throw SyncFailure.server(status: r.status, retryAfter: r.header("retry-after").flatMap(Self.retryAfter),
                                     detail: detail(r))
        default: throw SyncFailure.client(status: r.status, detail: detail(r))
        }
    }

    static func detail(_ r: TransportResponse) -> String {
        (try? JSON.parse(r.body))?["detail"]?.stringValue ?? ""
    }

    /// Retry-After in seconds (the HTTP-date form is rare for APIs and treated as absent).
    static func retryAfter(_ value: String) -> Double? {
        Double(value.trimmingSpaces).flatMap { $0 >= 0 ? min($0, 3600) : nil }
    }

    /// POST /v1/sync/push with the queued Change texts spliced in verbatim: what was queued is what is sent.
    /// A push's answer: each op's verdict, and (from servers that give it) the cursors just before and after
    /// the batch's changes in the user's log.
    struct PushAnswer: Sendable {
        var outcomes: [String: StoreSession.PushOutcome] = [:]
        var previousCursor: String?
        var cursor: String?
        /// The server database's epoch (servers before the reset guard send none).
        var serverEpoch: String?
    }

    func push(deviceId: String, changes: [StoreSession.QueuedChange]) async throws -> PushAnswer {
        var body = Array("{\"deviceId\":".utf8)
        JSON.string(deviceId).write(to: &body)
        body += Array(",\"changes\":[".utf8)
        for (i, c) in changes.enumerated() {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            body += Array(c.text.utf8)
        }
        body += Array("]}".utf8)
        let r = try await exchange(try authorized("POST", "/v1/sync/push", body: body))
        guard let json = try? JSON.parse(r.body), case .array(let results)? = json["results"] else {
            throw SyncFailure.malformed("push answer without results")
        }
        var answer = PushAnswer(previousCursor: json["previousCursor"]?.stringValue, cursor: json["cursor"]?.stringValue,
                                serverEpoch: json["serverEpoch"]?.stringValue)
        var out = [String: StoreSession.PushOutcome]()
        out.reserveCapacity(results.count)
        for item in results {
            guard let opId = item["opId"]?.stringValue, let status = item["status"]?.stringValue else { continue }
            switch status {
            case "applied": out[opId] = .applied
            case "duplicate": out[opId] = .duplicate
            case "superseded": out[opId] = .superseded
            case "rejected":
                // `quota: …` is how the store knows to queue it again (`StoreSession.quotaRejected`).
                let error = item["error"]?.stringValue ?? "rejected by the server"
                out[opId] = .rejected(item["reason"]?.stringValue == "quota" ? "quota: \(error)" : error)
            case "merged":
                guard let change = Self.mergedChange(item, sent: changes.first { $0.opId == opId }) else { continue }
                out[opId] = .merged(change)
            default: continue
            }
        }
        answer.outcomes = out
        return answer
    }

    /// The stored version a `merged` result carries, as a change this device applies.
    static func mergedChange(_ item: JSON, sent: StoreSession.QueuedChange?) -> Change? {
        guard let sent, let collection = RecordCollection(rawValue: sent.collection), case .object(let record)? = item["record"],
              let updatedAt = item["updatedAt"]?.stringValue, let deviceId = item["deviceId"]?.stringValue else { return nil }
        let change = Change(opId: "", collection: collection, id: sent.recordId, op: record.deletedAt == nil ? .upsert : .delete,
                            updatedAt: updatedAt, deviceId: deviceId, record: record)
        return (try? change.validate()) == nil ? nil : change
    }

    public struct PullPage: Sendable {
        public let changes: [JSON]
        public let cursor: String
        public let hasMore: Bool
        public var serverEpoch: String? = nil
        /// By change index, the records the page wrote canonically (`JSON.parseChanges`).
        public var recordTexts: [Int: String] = [:]
    }

    /// One page after `cursor`. With `waitSeconds`, a long poll: the server holds the request until a
    /// change follows the cursor or the time passes (contract §6.4); the request's own limit allows for it.
    func pull(cursor: String?, limit: Int, waitSeconds: Int = 0) async throws -> PullPage {
        var path = "/v1/sync/pull?limit=\(limit)"
        if let cursor { path += "&cursor=\(Self.percentEncode(cursor))" }
        var request = try authorized("GET", path)
        if waitSeconds > 0 {
            request.url += "&wait=\(waitSeconds)"
            request.timeoutMs = (waitSeconds + 15) * 1000
            request.lowSpeedTimeSeconds = waitSeconds + 15
        }
        let r = try await exchange(request)
        guard let (json, recordTexts) = try? JSON.parseChanges(r.body), case .array(let changes)? = json["changes"],
              case .string(let next)? = json["cursor"]
        else { throw SyncFailure.malformed("pull answer without changes/cursor") }
        return PullPage(changes: changes, cursor: next, hasMore: json["hasMore"]?.boolValue ?? false,
                        serverEpoch: json["serverEpoch"]?.stringValue, recordTexts: recordTexts)
    }

    /// One page of a snapshot (a first sync): the user's records as they are now, every page with the same
    /// log `cursor` to pull from after the last one; `after` is where the next page starts.
    public struct SnapshotPage: Sendable {
        public let changes: [JSON]
        public let cursor: String
        public let after: String?
        public var serverEpoch: String? = nil
        /// By change index, the records the page wrote canonically (`JSON.parseChanges`).
        public var recordTexts: [Int: String] = [:]
        public var hasMore: Bool { after != nil }
    }

    func snapshot(after: String?, limit: Int, tombstones: Bool) async throws -> SnapshotPage {
        var path = "/v1/sync/snapshot?limit=\(limit)"
        if tombstones { path += "&tombstones=true" }
        if let after { path += "&after=\(Self.percentEncode(after))" }
        let r = try await exchange(try authorized("GET", path))
        guard let (json, recordTexts) = try? JSON.parseChanges(r.body), case .array(let changes)? = json["changes"],
              case .string(let cursor)? = json["cursor"]
        else { throw SyncFailure.malformed("snapshot answer without changes/cursor") }
        let hasMore = json["hasMore"]?.boolValue ?? false
        let next = json["after"]?.stringValue
        if hasMore && (next ?? "").isEmpty { throw SyncFailure.malformed("snapshot answer with more to come but no 'after'") }
        return SnapshotPage(changes: changes, cursor: cursor, after: hasMore ? next : nil, serverEpoch: json["serverEpoch"]?.stringValue,
                            recordTexts: recordTexts)
    }

    /// `PATCH /v1/account {handle}` (contract §8.5): the handle as the server keeps it.
    func updateAccount(handle: String) async throws -> String {
        let req = try authorized("PATCH", "/v1/account", body: Array(JSON.object(["handle": .string(handle)]).text.utf8))
        let response = try await exchange(req)
        guard let json = try? JSON.parse(response.body), let kept = json["handle"]?.stringValue else {
            throw SyncFailure.malformed("the server's account answer has no handle")
        }
        return kept
    }

    /// `GET /v1/account`: the handle, use and limits, as the server answers them.
    func account() async throws -> JSON {
        let r = try await exchange(try authorized("GET", "/v1/account"))
        guard let json = try? JSON.parse(r.body), json["usage"] != nil else { throw SyncFailure.malformed("the server's account answer has no usage") }
        return json
    }

    /// `GET /v1/devices`: the account's devices.
    func devices() async throws -> JSON {
        let r = try await exchange(try authorized("GET", "/v1/devices"))
        guard let json = try? JSON.parse(r.body), case .array? = json["items"] else { throw SyncFailure.malformed("the server's devices answer has no items") }
        return json
    }

    /// `DELETE /v1/devices/{id}`.
    func revokeDevice(id: String) async throws {
        _ = try await exchange(try authorized("DELETE", "/v1/devices/\(id)"))
    }

    func uploadAudio(sermonId: String, path: String, sha256: String) async throws {
        var req = try authorized("PUT", "/v1/audio/\(sermonId)", extra: ["X-Content-SHA256: \(sha256)",
                                                                          "Content-Type: application/octet-stream"])
        req.uploadPath = path
        req.timeoutMs = 0
        _ = try await exchange(req)
    }

    /// Downloads into `path`, continuing after `resumeFrom` bytes already there.
    func downloadAudio(sermonId: String, to path: String, resumeFrom: Int64) async throws {
        var extra = [String]()
        if resumeFrom > 0 { extra.append("Range: bytes=\(resumeFrom)-") }
        var req = try authorized("GET", "/v1/audio/\(sermonId)", extra: extra)
        req.downloadPath = path
        req.resumeFrom = resumeFrom
        req.timeoutMs = 0
        _ = try await exchange(req)
    }

    static func percentEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(b)))
            default:
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }
}

extension String {
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
