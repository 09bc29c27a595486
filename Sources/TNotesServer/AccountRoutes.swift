import HTTPTypes
import Hummingbird
import TNotesCore

/// The account's routes (contract §8.5, §8.6): its handle, use and limits; its devices; pairing a new one.
struct AccountRoutes: Sendable {
    let storage: any ServerStorage
    let auth: TokenAuth
    let metrics: ServerMetrics
    let maxBody: Int

    func add(to router: Router<ServerRequestContext>) {
        let routes = self
        ServerApp.getAndHead(router, "/v1/account") { request, _ in try await routes.account(request) }
        router.patch("/v1/account") { request, _ in try await routes.setHandle(request) }
        router.post("/v1/devices/pair") { request, _ in try await routes.pair(request) }
        ServerApp.getAndHead(router, "/v1/devices") { request, _ in try await routes.devices(request) }
        router.delete("/v1/devices/:deviceId") { request, context in
            try await routes.revoke(request, id: context.parameters.get("deviceId") ?? "")
        }
    }

    /// `{handle, usage: {records, audioBytes}, quota: {records, audioBytes}}`, a limit null when there is none.
    func account(_ request: Request) async throws -> Response {
        let user = try await auth.user(request)
        let handle = try await storage.handle(user: user)
        let usage = try await storage.usage(user: user)
        let quota = try await storage.quota(user: user)
        return JSONResponse.make([
            "handle": handle.map(JSON.string) ?? .null,
            "usage": ["records": .int(usage.records), "audioBytes": .int(usage.audioBytes)],
            "quota": ["records": quota.records.map(JSON.int) ?? .null, "audioBytes": quota.audioBytes.map(JSON.int) ?? .null],
        ])
    }

    func setHandle(_ request: Request) async throws -> Response {
        let user = try await auth.user(request)
        let o = try await object(request, allowed: ["handle"])
        guard case .string(let raw)? = o["handle"] else { throw APIError.badRequest("handle", "a handle (string) is required") }
        let handle = raw.lowercased()
        guard Account.isHandle(handle) else {
            throw APIError.badRequest("handle", "must be 2 to 40 letters, digits, '-' or '_', starting with a letter or digit")
        }
        do {
            try await storage.setHandle(user: user, handle)
        } catch ServerError.conflict {
            throw APIError.conflict("handle", "the handle \(handle) is taken")
        }
        return JSONResponse.make(["handle": .string(handle)])
    }

    /// `{code, name}` → `{deviceId, token}`, no auth: the code is the permission. The token is shown once.
    func pair(_ request: Request) async throws -> Response {
        let o = try await object(request, allowed: ["code", "name"])
        guard case .string(let typed)? = o["code"] else { throw APIError.badRequest("code", "a pairing code (string) is required") }
        guard case .string(let rawName)? = o["name"] else { throw APIError.badRequest("name", "a device name (string) is required") }
        let name = Devices.name(rawName)
        guard !name.isEmpty else { throw APIError.badRequest("name", "must have a visible character") }
        guard let code = PairingCode.normalize(typed) else {
            throw APIError.badRequest("code", "a pairing code is 8 letters and digits, as tnotes-server user pair prints it")
        }
        let token = TokenAuth.newToken()
        let outcome = try await storage.redeemPairingCode(codeHash: PairingCode.hash(normalized: code), now: Timestamp.now(),
                                                          deviceName: name, tokenHash: TokenAuth.hash(token))
        switch outcome {
        case .paired(_, let device):
            return JSONResponse.make(["deviceId": .string(device), "token": .string(token)])
        case .unknown:
            var e = APIError(status: .notFound, error: "not_found", detail: "no such pairing code (check it, or make another with tnotes-server user pair NAME)")
            e.field = "code"
            throw e
        case .used:
            var e = APIError(status: .badRequest, error: "code_used", detail: "this pairing code was used already; make another with tnotes-server user pair NAME")
            e.field = "code"
            throw e
        case .expired:
            var e = APIError(status: .badRequest, error: "code_expired", detail: "this pairing code expired (codes last 15 minutes); make another with tnotes-server user pair NAME")
            e.field = "code"
            throw e
        }
    }

    /// `{items: [{id, name, createdAt, lastSeenAt, current}]}`: the user's live devices, oldest first.
    func devices(_ request: Request) async throws -> Response {
        let caller = try await auth.caller(request)
        let items = try await storage.devices(user: caller.user).map { d -> JSON in
            [
                "id": .string(d.id), "name": .string(d.name), "createdAt": .string(d.createdAt),
                "lastSeenAt": d.lastSeenAt.map(JSON.string) ?? .null, "current": .bool(d.id == caller.device),
            ]
        }
        return JSONResponse.make(["items": .array(items)])
    }

    /// Revokes one of the user's devices (the caller's own included): its token answers 401 `revoked` from now on.
    func revoke(_ request: Request, id: String) async throws -> Response {
        let caller = try await auth.caller(request)
        guard let id = Identifier.normalize(id) else { throw APIError.badRequest("deviceId", "must be a UUID") }
        guard try await storage.revokeDevice(user: caller.user, id: id, at: Timestamp.now()) else {
            throw APIError.notFound("device \(id)")
        }
        return Response(status: .noContent)
    }

    private func object(_ request: Request, allowed: Set<String>) async throws -> JSONObject {
        guard case .object(let o) = try await ServerApp.jsonBody(request, limit: maxBody) else {
            throw APIError.badRequest("body", "must be a JSON object")
        }
        for key in o.keys.sorted() where !allowed.contains(key) { throw APIError.badRequest(key, "unknown field") }
        return o
    }
}
