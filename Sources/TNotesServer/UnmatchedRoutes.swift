import HTTPTypes
import Hummingbird
import TNotesCore

/// What the router itself answers when no handler matched, made to follow HTTP and the contract's error
/// body (schemathesis found the bare 404s):
/// - a known path asked with a method it does not serve answers 405 with `Allow`;
/// (`HEAD` is served wherever `GET` is: `ServerApp.getAndHead` registers both);
/// - an unknown path answers 404 with the JSON `{error, detail}` body, like every other error.
/// The paths and their methods are read from the OpenAPI document the server serves, so the two agree.
struct UnmatchedRoutes: RouterMiddleware {
    typealias Context = BasicRequestContext

    /// Each documented path as segments (`nil` for a `{parameter}`) with the methods it serves.
    let routes: [(segments: [Substring?], methods: Set<String>)]

    init(openAPI: String) {
        var routes: [(segments: [Substring?], methods: Set<String>)] = []
        if let paths = (try? JSON.parse(Array(openAPI.utf8)))?["paths"]?.objectValue {
            for (path, item) in paths {
                let segments = path.split(separator: "/").map { $0.hasPrefix("{") ? nil : $0 }
                var methods = Set((item.objectValue ?? [:]).keys.map { $0.uppercased() }.filter { Self.httpMethods.contains($0) })
                if methods.contains("GET") { methods.insert("HEAD") }
                routes.append((segments, methods))
            }
        }
        self.routes = routes
    }

    static let httpMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]

    func methods(for path: String) -> Set<String>? {
        let parts = path.split(separator: "/")
        return routes.first { route in
            route.segments.count == parts.count && zip(route.segments, parts).allSatisfy { $0 == nil ? !$1.isEmpty : $0 == $1 }
        }?.methods
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // Only the router throws a bare HTTPError 404; the handlers' own 404s are APIErrors.
            guard let allowed = methods(for: request.uri.path) else {
                throw APIError(status: .notFound, error: "not_found", detail: "no route \(request.uri.path)")
            }
            var e = APIError(status: .methodNotAllowed, error: "method_not_allowed",
                             detail: "\(request.method) is not served at \(request.uri.path); allowed: \(allowed.sorted().joined(separator: ", "))")
            e.headers[.allow] = allowed.sorted().joined(separator: ", ")
            throw e
        }
    }
}
