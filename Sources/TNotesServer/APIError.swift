import HTTPTypes
import Hummingbird
import NIOCore
import TNotesCore

/// An error answered as JSON `{error, detail}` with its HTTP status (contract §7).
public struct APIError: Error, HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let error: String
    public let detail: String
    public var headers: HTTPFields = [:]

    public init(status: HTTPResponse.Status, error: String, detail: String) {
        self.status = status
        self.error = error
        self.detail = detail
    }

    public static func badRequest(_ field: String, _ reason: String) -> APIError {
        var e = APIError(status: .badRequest, error: "invalid_request", detail: "\(field): \(reason)")
        e.field = field
        return e
    }
    public static func malformedJSON(_ detail: String) -> APIError {
        APIError(status: .badRequest, error: "malformed_json", detail: detail)
    }
    public static let unauthorized = APIError(status: .unauthorized, error: "unauthorized",
                                              detail: "a valid Authorization: Bearer token is required")
    /// 401 for a token that was valid once: its device (or its user) was revoked. Told apart from an unknown
    /// token so that the device can say so and stop retrying (contract §8.6).
    public static let revoked = APIError(status: .unauthorized, error: "revoked",
                                         detail: "this device's token was revoked; pair the device again (tnotes sync login)")
    /// 413 for an upload that would take the user past their audio quota.
    public static func audioQuota(limit: Int64, used: Int64) -> APIError {
        APIError(status: .contentTooLarge, error: "quota_exceeded",
                 detail: "the account's audio quota is \(limit) bytes and \(used) are used")
    }
    /// 413 for a legacy write that would take the user past their record quota (a push rejects the change instead).
    public static func recordQuota(limit: Int64) -> APIError {
        APIError(status: .contentTooLarge, error: "quota_exceeded", detail: "the account's limit of \(limit) records is reached")
    }
    /// 429 with the seconds to wait.
    public static func rateLimited(retryAfter seconds: Int) -> APIError {
        var e = APIError(status: .tooManyRequests, error: "rate_limited", detail: "too many requests; retry after \(seconds) s")
        e.headers[.retryAfter] = String(seconds)
        return e
    }
    public static func notFound(_ what: String) -> APIError { APIError(status: .notFound, error: "not_found", detail: "\(what) not found") }
    /// 409: the value is taken (a handle another user has).
    public static func conflict(_ field: String, _ detail: String) -> APIError {
        var e = APIError(status: .conflict, error: "conflict", detail: detail)
        e.field = field
        return e
    }
    public static func tooLarge(_ limit: Int64) -> APIError {
        APIError(status: .contentTooLarge, error: "too_large", detail: "the body is larger than the limit of \(limit) bytes")
    }

    /// Too many items in one request: a push of more changes than `[server] max_push_changes`, a legacy
    /// sermon with more notes than that. Answered at once (before any merge), with the limit in the body, so
    /// a client can split its request.
    public static func tooManyItems(_ what: String, count: Int, limit: Int) -> APIError {
        var e = APIError(status: .contentTooLarge, error: "too_many_items",
                         detail: "\(count) \(what) in one request; the limit is \(limit)")
        e.limit = limit
        e.field = what
        return e
    }

    var field: String?
    var limit: Int?

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body: JSONObject = ["error": .string(error), "detail": .string(detail)]
        if let field { body["field"] = .string(field) }
        if let limit { body["limit"] = .int(Int64(limit)) }
        var response = JSONResponse.make(.object(body), status: status)
        for h in headers { response.headers.append(h) }
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }
}

enum JSONResponse {
    static func make(_ json: JSON, status: HTTPResponse.Status = .ok) -> Response {
        var bytes = json.bytes
        bytes.append(UInt8(ascii: "\n"))
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
