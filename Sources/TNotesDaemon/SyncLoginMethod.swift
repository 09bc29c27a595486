import Logging
import Synchronization
import SystemPackage
import TNotesConfig
import TNotesCore
import TNotesDesktop
import TNotesLifecycle
import TNotesRPC
import TNotesSync

#if canImport(Glibc)
import Glibc
#endif

/// `sync.login` (contract §8.6): pairs this device with a code and starts syncing, without a restart. The
/// exchange is the daemon's (the CLI has no HTTP client); the token goes to `sync.token_file` at mode 0600, and
/// a config without `server_url` or `token_file` gains them, so the next start syncs too.
struct SyncLoginMethod {
    let slot: SyncSlot
    let configFile: String
    let env: [String: String]
    let caFile: String?
    /// Builds the engine for a server (its token read from `slot.tokenFile`), when the daemon had none.
    let makeEngine: @Sendable (_ serverURL: String) -> SyncEngine
    let desktop: DesktopBus?
    let logger: Logger
    /// One login at a time: two at once would each write a token and a config.
    let inProgress = LoginGate()

    final class LoginGate: Sendable {
        private let busy = Mutex(false)
        func begin() -> Bool { busy.withLock { b in defer { b = true }; return !b } }
        func end() { busy.withLock { $0 = false } }
    }

    func register(into table: inout MethodTable) {
        let method = self
        table.add(MethodSpec(SyncLogin.self, summary: """
            Pair this device with a code from tnotes-server user add / user pair: trades it for this device's token \
            (POST /v1/devices/pair), writes sync.token_file (0600) and, when missing, server_url and token_file into \
            the config, and syncs now. A used, expired or unknown code is -32602 naming code.
            """, notes: [\.url: "the sync server's base URL, http(s)", \.code: "as printed, e.g. ABCD-EFGH (case and hyphen do not matter)",
                         \.name: "this device's name on the server (default: the host name)"],
                             result: ["type": "object"]) { p, _ in
            try await method.login(p).fieldJSON
        })
    }

    func login(_ p: SyncLogin.Params) async throws -> SyncLogin.Result {
        let url = try Self.serverURL(p.url)
        guard inProgress.begin() else { throw RPCError.unavailable("another sync.login is under way; try again when it has answered") }
        defer { inProgress.end() }
        // The server this daemon syncs with, or the one its config file names now (it may have been edited since).
        let configFile = self.configFile
        let onDisk = try? await BlockingWork.run { () -> String? in
            guard case .success(let text) = Daemon.readFile(configFile) else { return nil }
            return try DaemonConfig.parse(text, file: configFile).sync.serverURL
        }
        if let configured = slot.serverURL ?? onDisk ?? nil, Self.trimmed(configured) != url {
            throw RPCError.invalidParams(field: SyncLogin.Params.name(\.url),
                                         reason: "this daemon syncs with \(configured); change sync.server_url in \(configFile) to move to another server")
        }
        let name = Devices.name(p.name ?? Self.hostName())
        guard !name.isEmpty else { throw RPCError.invalidParams(field: SyncLogin.Params.name(\.name), reason: "must have a visible character") }
        let (deviceId, token) = try await pair(url: url, code: p.code, name: name)

        let tokenFile = slot.tokenFile ?? "\(DurableFile.directory(of: configFile))/token"
        let configWritten: Bool
        do {
            configWritten = try await BlockingWork.run {
                try DaemonPaths.makeDirectory(DurableFile.directory(of: tokenFile))
                try DurableFile.write(Array((token + "\n").utf8), to: tokenFile)
                return try Self.addToConfig(configFile, serverURL: url, tokenFile: tokenFile)
            }
        } catch {
            // The device is paired on the server but its token could not be kept: say where, and what to do.
            throw RPCError.unavailable("paired as device \(deviceId), but \(tokenFile) or \(configFile) could not be written (\(error)); "
                + "revoke that device (tnotes devices revoke \(deviceId)) from another device or pair again")
        }
        slot.tokenFile = tokenFile
        logger.info("device paired", metadata: ["server": "\(url)", "device": "\(deviceId)", "tokenFile": "\(tokenFile)"])

        if let engine = slot.engine {
            await engine.trigger(.manual)
        } else {
            let engine = makeEngine(url)
            if slot.install(engine), let state = desktop?.current {
                await engine.desktop(metered: state.metered, onBattery: state.onBattery)
            }
            await slot.engine?.trigger(.manual)
        }
        var result = SyncLogin.Result()
        result.deviceId = deviceId
        result.name = name
        result.serverUrl = url
        result.tokenFile = tokenFile
        result.configFile = configFile
        result.configWritten = configWritten
        if let t = env["TNOTES_TOKEN"], !t.isEmpty {
            result.warning = "TNOTES_TOKEN is set in the daemon's environment and is used instead of \(tokenFile)"
        }
        return result
    }

    /// `POST <url>/v1/devices/pair {code, name}` → the device's id and token.
    func pair(url: String, code: String, name: String) async throws -> (String, String) {
        let body = JSON.object(["code": .string(code), "name": .string(name)])
        let request = TransportRequest(method: "POST", url: url + "/v1/devices/pair",
                                       headers: ["Content-Type: application/json", "Accept: application/json"],
                                       body: Array(body.text.utf8))
        let response: TransportResponse
        do {
            response = try await CurlTransport(caFile: caFile).perform(request)
        } catch {
            throw RPCError.unavailable("\(url) cannot be reached: \(error)")
        }
        let json = try? JSON.parse(response.body)
        let detail = json?["detail"]?.stringValue ?? "the server answered \(response.status)"
        switch response.status {
        case 200..<300:
            guard let id = json?["deviceId"]?.stringValue, let token = json?["token"]?.stringValue, !token.isEmpty,
                  !token.contains(where: { $0.isWhitespace })
            else { throw RPCError.unavailable("\(url) answered the pairing without a device token") }
            return (id, token)
        case 400, 404:
            throw RPCError.invalidParams(field: SyncLogin.Params.name(\.code), reason: detail)
        case 429:
            throw RPCError.unavailable("the server asks to wait before trying again (\(detail))")
        default:
            throw RPCError.unavailable("\(url) did not pair this device: \(detail)")
        }
    }

    static func trimmed(_ url: String) -> String {
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        return u
    }

    static func serverURL(_ raw: String) throws -> String {
        let url = trimmed(raw.trimmingSpaces)
        let lower = url.lowercased()
        guard (lower.hasPrefix("http://") || lower.hasPrefix("https://")), url.count > 8, url.count <= 2048,
              !url.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" })
        else { throw RPCError.invalidParams(field: SyncLogin.Params.name(\.url), reason: "must be the sync server's http(s) address") }
        return url
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "tnotes device" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "tnotes device" : name
    }

    /// Adds `server_url` and `token_file` to the config's `[sync]` table where they are missing (a new file when
    /// there is none), checked by parsing the result before it replaces the file. True when it wrote.
    static func addToConfig(_ path: String, serverURL: String, tokenFile: String) throws -> Bool {
        var text: String?
        switch Daemon.readFile(path) {
        case .success(let t): text = t
        case .failure(let e) where e == .noSuchFileOrDirectory: text = nil
        case .failure(let e): throw e
        }
        let current = try text.map { try DaemonConfig.parse($0, file: path) } ?? DaemonConfig()
        var lines = [String]()
        if current.sync.serverURL == nil { lines.append("server_url = \(JSON.string(serverURL).text)") }
        if current.sync.tokenFile == nil { lines.append("token_file = \(JSON.string(tokenFile).text)") }
        guard !lines.isEmpty else { return false }
        let edited = insert(lines, intoSyncTableOf: text ?? "")
        let check = try DaemonConfig.parse(edited, file: path)
        guard check.sync.serverURL != nil, check.sync.tokenFile != nil else {
            throw ConfigError(file: path, key: "sync", problem: "server_url and token_file could not be added; add them by hand")
        }
        try DaemonPaths.makeDirectory(DurableFile.directory(of: path))
        try DurableFile.write(Array(edited.utf8), to: path)
        return true
    }

    /// `lines` right under the `[sync]` header, or a new `[sync]` table at the end.
    static func insert(_ lines: [String], intoSyncTableOf text: String) -> String {
        var all = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let header = all.firstIndex(where: { line in
            let t = line.trimmingSpaces
            return t == "[sync]" || (t.hasPrefix("[sync]") && String(t.dropFirst(6)).trimmingSpaces.hasPrefix("#"))
        }) {
            all.insert(contentsOf: lines, at: header + 1)
            return all.joined(separator: "\n")
        }
        var out = text
        if !out.isEmpty && !out.hasSuffix("\n") { out += "\n" }
        if !out.isEmpty { out += "\n" }
        return out + "[sync]\n" + lines.joined(separator: "\n") + "\n"
    }
}
