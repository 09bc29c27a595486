import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TNotesCore

/// The sync server's HTTP application: a router over `SyncService`, `LegacyAPI`, `AudioStore` and
/// `TokenAuth`, each passed in (no globals).
public struct ServerApp: Sendable {
    public struct Settings: Sendable {
        public var host = "127.0.0.1"
        public var port = 8787
        public var dataDir = "."
        public var maxBodyBytes: Int = 64 << 20
        public var maxAudioBytes: Int64 = 2 << 30
        /// Changes in one push (and notes in one legacy request): a request's work is bounded in items as
        /// well as bytes. 2,000,000 tiny changes fit in 26 MB and kept the server busy for over a minute.
        public var maxPushChanges: Int = 10_000
        /// How long a graceful stop may wait for in-flight requests before their connections are closed
        /// (`[server] shutdown_grace_seconds`). systemd's stop timeout (90 s) is far above it.
        public var shutdownGrace: Duration = .seconds(10)
        /// Requests per second per token (per address without one); 0 turns the limit off (`[server] rate_limit`).
        public var rateLimit = 50
        /// How many requests may come at once above the rate (`[server] rate_burst`).
        public var rateBurst = 200
        public init() {}
    }

    let sync: SyncService
    let legacy: LegacyAPI
    let audio: AudioStore
    let auth: TokenAuth
    let pages: PublicPages
    let settings: Settings
    let logger: Logger
    let metrics: ServerMetrics

    public init(storage: any ServerStorage, settings: Settings, logger: Logger) async throws {
        let clock = ServerClock(startingAfter: try await storage.newestUpdatedAt())
        sync = SyncService(storage: storage, clock: clock, logger: logger)
        legacy = LegacyAPI(sync: sync, maxItems: settings.maxPushChanges)
        audio = AudioStore(maxBytes: settings.maxAudioBytes, blobs: storage.audioBlobs(directory: "\(settings.dataDir)/audio"),
                           storage: storage)
        let metrics = ServerMetrics()
        self.metrics = metrics
        auth = TokenAuth(storage: storage, metrics: metrics, verified: VerifiedTokens())
        pages = PublicPages(storage: storage)
        self.settings = settings
        self.logger = logger
    }

    public func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: AccessLog(logger: logger, metrics: metrics))
        // After the log (a 429 is logged and counted), before every route (it is answered before any work).
        if settings.rateLimit > 0 {
            router.add(middleware: RateLimit(perSecond: settings.rateLimit, burst: settings.rateBurst, metrics: metrics,
                                             verified: auth.verified))
        }
        addRoutes(to: router)
        // Added after every route, from the routes themselves: the 405 table cannot miss one. A middleware wraps
        // the routes added after it and the not-found responder (built from every middleware), so this one
        // wraps only what the router answers when no handler matched: that is all it is for.
        router.add(middleware: UnmatchedRoutes(routes: router.routes.map { ($0.path, $0.method) }))
        return router
    }

    /// Every path and method the router serves, the path spelled as OpenAPI spells it (`/v1/audio/{sermonId}`):
    /// what `ServerAPIDescriptionTests` compares with the document's `paths`, both ways.
    public func servedRoutes() -> [(path: String, method: String)] {
        router().routes.map { ($0.path.description, $0.method.rawValue) }
    }

    private func addRoutes(to router: Router<ServerRequestContext>) {
        let sync = self.sync, legacy = self.legacy, audio = self.audio, auth = self.auth, metrics = self.metrics
        let maxBody = settings.maxBodyBytes
        let maxChanges = settings.maxPushChanges

        Self.getAndHead(router, "/healthz") { _, _ in
            JSONResponse.make(["status": "ok"])
        }

        // The API's own description (contract §6.6), no auth: what schemathesis and clients read. The bytes of
        // openapi.json as they are (OpenAPIDocument), in one buffer every response shares.
        let openAPI = ByteBuffer(string: OpenAPIDocument.json)
        Self.getAndHead(router, "/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                     body: .init(byteBuffer: openAPI))
        }

        Self.getAndHead(router, "/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.text())))
        }

        // Published sermons (contract §6.5), no auth: the link is the permission.
        let pages = self.pages
        Self.getAndHead(router, "/p/:publicId") { request, context in
            try await pages.respond(request, publicIdPath: context.parameters.get("publicId") ?? "")
        }
        router.get("/p/:publicId/audio") { request, context in
            try await pages.audio(request, context, publicId: context.parameters.get("publicId") ?? "", store: audio, head: false,
                                  metrics: metrics)
        }
        router.head("/p/:publicId/audio") { request, context in
            try await pages.audio(request, context, publicId: context.parameters.get("publicId") ?? "", store: audio, head: true,
                                  metrics: metrics)
        }
        // A user's published sermons and their podcast feed (contract §8.5), once the user chose a handle.
        let userPages = UserPages(storage: sync.storage)
        Self.getAndHead(router, "/u/:handle") { request, context in
            try await userPages.index(request, handle: context.parameters.get("handle") ?? "")
        }
        Self.getAndHead(router, "/u/:handle/feed.xml") { request, context in
            try await userPages.feed(request, handle: context.parameters.get("handle") ?? "")
        }
        AccountRoutes(storage: sync.storage, auth: auth, metrics: metrics, maxBody: maxBody).add(to: router)

        router.post("/v1/sync/push") { request, context in
            let user = try await auth.user(request)
            let (body, recordTexts) = try await Self.changesBody(request, limit: maxBody)
            let push: PushRequest
            if let count = body["changes"]?.arrayValue?.count, count > maxChanges {
                throw APIError.tooManyItems("changes", count: count, limit: maxChanges)
            }
            do { push = try PushRequest.decode(body, recordTexts: recordTexts) } catch let e as FieldError { throw APIError.badRequest(e.field, e.reason) }
            let outcome = try await sync.push(user: user, request: push)
            // One counter update per result kind: a registry look-up per change (the registry checks the
            // counter's name and help text on every call) was 2.4 % of the server's CPU over a push.
            var byStatus = [String: Int]()
            for r in outcome.results { byStatus[r.status, default: 0] += 1 }
            for (status, count) in byStatus { metrics.pushed(result: status, count: count) }
            // previousCursor → cursor spans exactly this push's changes: a device whose pull cursor is
            // previousCursor may move it to cursor instead of downloading its own changes again.
            let cursors = try await sync.cursors(around: outcome)
            return JSONResponse.make([
                "results": SyncService.PushResult.text(of: outcome.results),
                "cursor": .string(cursors.next), "previousCursor": .string(cursors.previous),
                "serverEpoch": .string(cursors.epoch),
            ])
        }

        Self.getAndHead(router, "/v1/sync/pull") { request, _ in
            let user = try await auth.user(request)
            let q = request.uri.queryParameters
            let limit = try Self.pageLimit(q.get("limit"))
            var wait = 0
            if let w = q.get("wait") {
                guard let n = Int(w), (0...SyncService.maxPullWait).contains(n) else {
                    throw APIError.badRequest("wait", "must be an integer number of seconds from 0 to \(SyncService.maxPullWait)")
                }
                wait = n
            }
            let page = try await sync.pull(user: user, cursor: q.get("cursor"), limit: limit, wait: .seconds(wait))
            metrics.pulled(page["changes"]?.arrayValue?.count ?? 0)
            return JSONResponse.make(page)
        }

        // A device that has never pulled: the records as they are now, then the log from the page's cursor.
        Self.getAndHead(router, "/v1/sync/snapshot") { request, _ in
            let user = try await auth.user(request)
            let q = request.uri.queryParameters
            let limit = try Self.pageLimit(q.get("limit"))
            var tombstones = false
            if let t = q.get("tombstones") {
                guard let b = Bool(t) else { throw APIError.badRequest("tombstones", "must be true or false") }
                tombstones = b
            }
            let page = try await sync.snapshot(user: user, after: q.get("after"), limit: limit,
                                               tombstones: tombstones)
            metrics.snapshot(page["changes"]?.arrayValue?.count ?? 0)
            return JSONResponse.make(page)
        }

        router.put("/v1/audio/:sermonId") { request, context in
            let user = try await auth.user(request)
            let sermonId = try Self.sermonId(context)
            let declared = try AudioStore.declaredDigest(request.headers)
            let info = try await audio.put(user: user, sermonId: sermonId, request: request, declared: declared, now: sync.stamp(),
                                           metrics: metrics)
            metrics.audio(direction: "in", bytes: info.sizeBytes)
            return JSONResponse.make(["sermonId": .string(info.sermonId), "sha256": .string(info.sha256),
                                      "sizeBytes": .int(info.sizeBytes)], status: .created)
        }

        router.get("/v1/audio/:sermonId") { request, context in
            try await Self.serveAudio(request, context, auth: auth, audio: audio, head: false, metrics: metrics)
        }
        router.head("/v1/audio/:sermonId") { request, context in
            try await Self.serveAudio(request, context, auth: auth, audio: audio, head: true, metrics: metrics)
        }

        // Legacy endpoints (seed 000 §5).
        router.post("/api/create-sermon") { request, _ in
            let user = try await auth.user(request)
            let body = try await Self.jsonBody(request, limit: maxBody)
            let saved = try await legacy.write(user: user, body: body, requireExisting: false)
            return JSONResponse.make(try await Self.legacyOne(legacy, user: user, id: saved.recordId, request: request),
                                     status: .created)
        }
        router.post("/api/update-sermon") { request, _ in
            let user = try await auth.user(request)
            let body = try await Self.jsonBody(request, limit: maxBody)
            let saved = try await legacy.write(user: user, body: body, requireExisting: true)
            return JSONResponse.make(try await Self.legacyOne(legacy, user: user, id: saved.recordId, request: request))
        }
        Self.getAndHead(router, "/api/get-sermons") { request, _ in
            // `userId` in the query is ignored: the token says who the user is.
            let user = try await auth.user(request)
            return JSONResponse.make(try await legacy.sermons(user: user, audioURL: { Self.audioURL(request, $0) }))
        }
        router.post("/api/generate-upload-url") { request, _ in
            _ = try await auth.user(request)
            let body = try await Self.jsonBody(request, limit: maxBody)
            let raw = body["sermonId"] ?? body["localId"] ?? body["id"]
            guard case .string(let s)? = raw, let id = Identifier.normalize(s) else {
                throw APIError.badRequest("sermonId", "a sermon UUID (sermonId or localId) is required")
            }
            let url = Self.audioURL(request, id)
            return JSONResponse.make([
                "uploadUrl": .string(url), "url": .string(url), "method": "PUT", "path": .string("/v1/audio/\(id)"),
                "headers": ["X-Content-SHA256": "<hex sha256 of the file>"],
            ])
        }
    }

    /// A GET route, and HEAD on the same path answering as GET without the body (RFC 9110 §9.3.2).
    static func getAndHead(_ router: Router<ServerRequestContext>, _ path: RouterPath,
                           _ handler: @escaping @Sendable (Request, ServerRequestContext) async throws -> Response) {
        router.get(path, use: handler)
        router.head(path) { request, context in
            var response = try await handler(request, context)
            let length = response.headers[.contentLength] ?? response.body.contentLength.map { String($0) }
            // Replacing the body sets Content-Length to the new body's (0): the GET's length is put back after.
            response.body = .init()
            response.headers[.contentLength] = length
            return response
        }
    }

    static func legacyOne(_ legacy: LegacyAPI, user: Int64, id: String, request: Request) async throws -> JSON {
        let all = try await legacy.sermons(user: user, audioURL: { audioURL(request, $0) })
        return all.arrayValue?.first { $0["id"]?.stringValue == id } ?? .null
    }

    static func audioURL(_ request: Request, _ id: String) -> String {
        let host = request.head.authority ?? "127.0.0.1"
        return "http://\(host)/v1/audio/\(id)"
    }

    /// A pull's or snapshot's `limit`: default 500, above 5000 counts as 5000.
    static func pageLimit(_ text: String?) throws -> Int {
        guard let text else { return SyncService.defaultPullLimit }
        guard let n = Int(text), n >= 1 else { throw APIError.badRequest("limit", "must be a positive integer") }
        return min(n, SyncService.maxPullLimit)
    }

    static func sermonId(_ context: ServerRequestContext) throws -> String {
        guard let raw = context.parameters.get("sermonId"), let id = Identifier.normalize(raw), id == raw.lowercased() else {
            throw APIError.badRequest("sermonId", "must be a UUID")
        }
        return id
    }

    /// Reads a JSON body: over the limit → 413; not JSON → 400 naming the problem.
    static func jsonBody(_ request: Request, limit: Int) async throws -> JSON {
        try await body(request, limit: limit) { try JSON.parse($0) }
    }

    /// Reads a push body as `jsonBody` does, with the records it wrote canonically (`JSON.parseChanges`).
    static func changesBody(_ request: Request, limit: Int) async throws -> (json: JSON, recordTexts: [Int: String]) {
        try await body(request, limit: limit) { try JSON.parseChanges($0) }
    }

    /// A request's body, whole, through `parse`: over the limit → 413; not JSON → 400 naming the problem.
    static func body<Parsed>(_ request: Request, limit: Int, parse: (ByteBufferView) throws -> Parsed) async throws -> Parsed {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw APIError.tooLarge(Int64(limit))
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.tooLarge(Int64(limit))
        }
        do {
            return try parse(buffer.readableBytesView)
        } catch {
            throw APIError.malformedJSON("the body is not valid JSON: \(error)")
        }
    }

    static func serveAudio(_ request: Request, _ context: ServerRequestContext, auth: TokenAuth, audio: AudioStore, head: Bool,
                           metrics: ServerMetrics) async throws -> Response
    {
        let user = try await auth.user(request)
        return try await serveAudio(request, context, user: user, sermonId: try sermonId(context), contentType: "application/octet-stream",
                                    audio: audio, head: head, metrics: metrics)
    }

    /// A user's audio of a sermon, whole or the asked Range (206, 416 outside the file), with its sha256 as ETag.
    static func serveAudio(_ request: Request, _ context: ServerRequestContext, user: Int64, sermonId: String, contentType: String,
                           audio: AudioStore, head: Bool, metrics: ServerMetrics) async throws -> Response
    {
        guard let info = try await audio.storage.audio(user: user, sermonId: sermonId) else {
            throw APIError.notFound("audio of sermon \(sermonId)")
        }
        var headers: HTTPFields = [.acceptRanges: "bytes", .eTag: "\"\(info.sha256)\"", .contentType: contentType]
        headers[HTTPField.Name("X-Content-SHA256")!] = info.sha256
        let range = try AudioStore.range(request.headers[.range], size: info.sizeBytes)
        let status: HTTPResponse.Status
        let span: ClosedRange<Int64>
        if let range {
            status = .partialContent
            span = range
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(info.sizeBytes)"
        } else {
            status = .ok
            span = 0...max(0, info.sizeBytes - 1)
        }
        let length = info.sizeBytes == 0 ? 0 : span.upperBound - span.lowerBound + 1
        headers[.contentLength] = String(length)
        if head || length == 0 { return Response(status: status, headers: headers, body: .init()) }
        metrics.audio(direction: "out", bytes: length)
        let body = try await audio.blobs.body(user: user, info, span: span, context: context)
        return Response(status: status, headers: headers, body: body)
    }
}

/// One log line per request (never the Authorization header), and the request counter.
struct AccessLog: RouterMiddleware {
    let logger: Logger
    let metrics: ServerMetrics

    func handle(_ request: Request, context: ServerRequestContext, next: (Request, ServerRequestContext) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status.code, start: start)
            return response
        } catch let e as any HTTPResponseError {
            log(request, status: e.status.code, start: start)
            throw e
        } catch {
            log(request, status: 500, start: start)
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw error
        }
    }

    func log(_ request: Request, status: Int, start: ContinuousClock.Instant) {
        metrics.request(method: request.method.rawValue, status: status)
        let ms = (ContinuousClock.now - start).components
        let millis = Double(ms.seconds) * 1000 + Double(ms.attoseconds) / 1e15
        logger.info("\(request.method) \(request.uri.path) \(status)", metadata: ["ms": "\(Int(millis))"])
    }
}
