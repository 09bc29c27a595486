import CCurlShim
import Dispatch
import Synchronization
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP request as the sync client makes it.
public struct TransportRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [String]
    public var body: [UInt8]?
    public var uploadPath: String?
    public var downloadPath: String?
    public var resumeFrom: Int64 = 0
    public var connectTimeoutMs = 10_000
    /// Whole-request limit for API calls; 0 for transfers, which are bounded by the low-speed limit instead.
    public var timeoutMs = 20_000
    public var lowSpeedTimeSeconds = 30
    /// The largest body kept in memory (a larger one fails the request).
    public var maxBodyBytes = 256 << 20

    public init(method: String, url: String, headers: [String] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct TransportResponse: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        return headers.first { $0.0 == n }?.1
    }
}

/// A request that got no HTTP answer (refused, reset, timed out, DNS…).
public struct TransportError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public var description: String { message }
}

/// HTTP over libcurl. Each exchange blocks one thread of a private queue, never a Swift concurrency thread.
///
/// Easy handles are kept and reused: each keeps libcurl's connection cache, so a sync session runs over a
/// handful of kept-alive connections (and TLS sessions) instead of one new connection per request (21
/// pushes used to open 24). A cancelled task aborts its transfer through libcurl's progress callback:
/// a stop never waits out an upload or a download.
public final class CurlTransport: Sendable {
    /// Concurrent, not a fixed pool: a long poll or a large transfer holds its thread for minutes, and nothing may
    /// wait behind it (TNotesLifecycle's BlockingWork.swift: the two ways blocking work leaves the loops).
    private let queue = DispatchQueue(label: "tnotes.http", attributes: .concurrent)
    /// Handles not in use; at most `maxIdle` are kept.
    private let idle = Mutex<[CurlHandle]>([])
    private static let maxIdle = 4
    /// PEM file of the CAs to trust (`[sync] ca_file`), else the system's.
    let caFile: String?

    /// libcurl is loaded (and initialised) by the first request, on the transport's own queue, not here: it is
    /// not linked (CCurlShim's tn_curl_api.h), and a load is a blocking call. Missing, every request fails with
    /// the reason.
    public init(caFile: String? = nil) {
        self.caFile = caFile
    }

    public func perform(_ request: TransportRequest) async throws -> TransportResponse {
        let abort = AbortFlag()
        let caFile = self.caFile
        let result: Result<TransportResponse, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { cont in
                queue.async {
                    let handle = self.take()
                    let r = Result { try Self.performBlocking(request, handle: handle, abort: abort, caFile: caFile) }
                    self.giveBack(handle)
                    cont.resume(returning: r)
                }
            }
        } onCancel: {
            abort.raise()
        }
        if Task.isCancelled, case .failure = result { throw CancellationError() }
        return try result.get()
    }

    private func take() -> CurlHandle? {
        if let h = idle.withLock({ $0.popLast() }) { return h }
        return CurlHandle()
    }

    private func giveBack(_ handle: CurlHandle?) {
        guard let handle else { return }
        idle.withLock { if $0.count < Self.maxIdle { $0.append(handle) } }
    }

    static func performBlocking(_ r: TransportRequest, handle: CurlHandle? = nil, abort: AbortFlag? = nil,
                                caFile: String? = nil) throws -> TransportResponse {
        var response = tn_http_response()
        defer { tn_http_response_free(&response) }
        let cHeaders = r.headers.map { strdup($0) }
        defer { cHeaders.forEach { free($0) } }
        let rc: Int32 = r.url.withCString { url in
            r.method.withCString { method in
                withOptionalCString(r.uploadPath) { upload in
                  withOptionalCString(caFile) { ca in
                    withOptionalCString(r.downloadPath) { download in
                        cHeaders.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { headerPtrs in
                            (r.body ?? []).withUnsafeBufferPointer { body in
                                var req = tn_http_request()
                                req.url = url
                                req.method = method
                                req.headers = headerPtrs.baseAddress
                                req.header_count = Int32(headerPtrs.count)
                                req.body = r.body == nil ? nil : body.baseAddress
                                req.body_len = body.count
                                req.upload_path = upload
                                req.download_path = download
                                req.resume_from = r.resumeFrom
                                req.connect_timeout_ms = r.connectTimeoutMs
                                req.timeout_ms = r.timeoutMs
                                req.low_speed_limit = 1
                                req.low_speed_time_s = r.lowSpeedTimeSeconds
                                req.max_body_bytes = r.maxBodyBytes
                                req.abort_flag = abort?.pointer
                                req.ca_file = ca
                                return tn_http_perform(handle?.pointer, &req, &response)
                            }
                        }
                    }
                  }
                }
            }
        }
        let message = withUnsafeBytes(of: response.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard rc == 0 else { throw TransportError(code: response.curl_code, message: message.isEmpty ? "transfer failed" : message) }
        let body = response.body.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: response.body_len)) } ?? []
        let headerText = response.headers.map { String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: response.headers_len), as: UTF8.self) } ?? ""
        var headers = [(String, String)]()
        for line in headerText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append((name, String(value)))
        }
        return TransportResponse(status: Int(response.status), headers: headers, body: body)
    }
}

/// A libcurl easy handle kept between requests. Unchecked because: a handle is used by one request at a
/// time; it leaves the transport's idle list (under its Mutex) before use and returns after.
final class CurlHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init?() {
        guard let p = tn_http_handle_new() else { return nil }
        pointer = p
    }

    deinit { tn_http_handle_free(pointer) }
}

/// The flag that aborts one transfer. Unchecked because: the C side reads and writes it with C11 atomics
/// only (`tn_abort_flag_set` from the cancelling thread, an atomic load in the progress callback).
final class AbortFlag: @unchecked Sendable {
    let pointer: OpaquePointer?

    init() { pointer = tn_abort_flag_new() }
    func raise() { tn_abort_flag_set(pointer) }
    deinit { tn_abort_flag_free(pointer) }
}

private func withOptionalCString<T>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
