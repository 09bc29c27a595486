import HTTPTypes
import Hummingbird
import TNotesCore

/// What the router itself answers when no handler matched, made to follow HTTP and the contract's error
/// body (schemathesis found the bare 404s):
/// - a known path asked with a method it does not serve answers 405 with `Allow`;
/// (`HEAD` is served wherever `GET` is: `ServerApp.getAndHead` registers both);
/// - an unknown path answers 404 with the JSON `{error, detail}` body, like every other error.
/// The paths and their methods are the router's own (`Router.routes`, read once every route is added), so
/// the table cannot miss a route; `ServerAPIDescriptionTests` holds the OpenAPI document to the same list.
struct UnmatchedRoutes: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// Each served path with the methods it serves.
    let routes: [(path: RouterPath, methods: Set<String>)]

    init(routes served: [(path: RouterPath, method: HTTPRequest.Method)]) {
        var routes: [(path: RouterPath, methods: Set<String>)] = []
        for route in served {
            if let i = routes.firstIndex(where: { $0.path == route.path }) {
                routes[i].methods.insert(route.method.rawValue)
            } else {
                routes.append((route.path, [route.method.rawValue]))
            }
        }
        self.routes = routes
    }

    /// The methods served at `path`: those of the route the router's trie would take, the one whose
    /// components match the path's segments with the most of them literal (a literal outranks a parameter).
    func methods(for path: String) -> Set<String>? {
        let parts = path.split(separator: "/")
        let matching = routes.filter { route in
            route.path.components.count == parts.count && zip(route.path.components, parts).allSatisfy { $0 ~= $1 }
        }
        func literals(_ route: (path: RouterPath, methods: Set<String>)) -> Int {
            zip(route.path.components, parts).count { $0 == $1 }
        }
        return matching.max { literals($0) < literals($1) }?.methods
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
