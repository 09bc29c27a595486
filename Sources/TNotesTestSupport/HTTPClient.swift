import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TNotesCore

/// A small blocking HTTP client for tests (URLSession underneath).
public struct HTTPResponse: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: Data
    public var json: JSON? { try? JSON.parse(Array(body)) }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// Unchecked because: `baseURL` and `session` (URLSession is thread-safe) never change; `token` is set by the
/// owning test between requests, from its own thread; each request has its own task and result box.
public final class HTTPTestClient: @unchecked Sendable {
    public let baseURL: String
    public var token: String?
    private let session: URLSession

    public init(baseURL: String, token: String? = nil) {
        self.baseURL = baseURL
        self.token = token
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = 60
        session = URLSession(configuration: config)
    }

    public func request(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) throws -> HTTPResponse {
        var req = URLRequest(url: URL(string: baseURL + path)!)
        req.httpMethod = method
        req.httpBody = body
        if let token { req.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
        let box = ResponseBox()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: req) { data, response, error in
            box.data = data
            box.response = response as? HTTPURLResponse
            box.error = error
            done.signal()
        }.resume()
        done.wait()
        if let error = box.error { throw HarnessError("\(method) \(path): \(error)") }
        guard let r = box.response else { throw HarnessError("\(method) \(path): no response") }
        var headers = [String: String]()
        for (k, v) in r.allHeaderFields { headers["\(k)"] = "\(v)" }
        return HTTPResponse(status: r.statusCode, headers: headers, body: box.data ?? Data())
    }

    public func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        try request("GET", path, headers: headers)
    }

    public func post(_ path: String, json: JSON, headers: [String: String] = [:]) throws -> HTTPResponse {
        var h = headers
        h["Content-Type"] = "application/json"
        return try request("POST", path, body: Data(json.bytes), headers: h)
    }
}

/// Unchecked because: the completion handler writes it once before `done.signal()`, and the caller reads
/// it only after `done.wait()`; the semaphore orders the two.
final class ResponseBox: @unchecked Sendable {
    var data: Data?
    var response: HTTPURLResponse?
    var error: (any Error)?
}
