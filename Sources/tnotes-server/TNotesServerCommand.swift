import ArgumentParser
import Foundation
import Hummingbird
import Logging
import TNotesConfig
import TNotesCore
import TNotesLifecycle
import TNotesLogging
import TNotesServer
import UnixSignals

@main
struct TNotesServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tnotes-server",
        abstract: "The tnotes sync server: devices push and pull changes; SQLite by default, PostgreSQL on request.",
        version: "0.1.0",
        subcommands: [Serve.self, User.self],
        defaultSubcommand: Serve.self)
}

struct StorageOptions: ParsableArguments {
    @Option(help: "Config file (TOML). Flags win over it.")
    var config: String?

    @Option(help: "Data directory: the default SQLite database and audio/ live here.")
    var dataDir: String?

    @Option(help: "sqlite:///path/db.sqlite (default: <data-dir>/tnotes-server.sqlite) or postgres://user:pass@host:port/db.")
    var database: String?

    func load() throws -> (ServerConfig, dataDir: String, database: String) {
        var cfg = ServerConfig()
        if let path = config {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                fail("tnotes-server: \(path): (file): cannot be read", code: 78)
            }
            do { cfg = try ServerConfig.parse(text, file: path) } catch { fail("tnotes-server: \(error)", code: 78) }
        }
        let dir = dataDir ?? cfg.dataDir ?? FileManager.default.currentDirectoryPath
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let db = database ?? cfg.database ?? "sqlite://\(dir)/tnotes-server.sqlite"
        return (cfg, dir, db)
    }
}

extension StorageOptions {
    /// The storage these options name, migrated, for the one-shot user commands.
    /// Opens and migrates the storage, runs `body` with it (and the storage's own service, if any), closes it.
    func withMigrated<T: Sendable>(_ body: @escaping @Sendable (any ServerStorage) async throws -> T) async throws -> T {
        let (_, _, db) = try load()
        let logger = Logger(label: "tnotes-server")
        let store = try StorageFactory.open(url: db, logger: logger)
        do {
            let result = try await StorageLifetime.run(store, logger: logger) {
                try await store.migrate()
                return try await body(store)
            }
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }
}

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

func makeLogger(_ level: String?) -> Logger {
    let parsed = level.flatMap { Logger.Level(rawValue: $0) } ?? .info
    LogSetup.bootstrap(level: parsed)
    return Logger(label: "tnotes-server")
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the sync HTTP API.")

    @OptionGroup var storage: StorageOptions

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "Port (default 8787; 0 picks a free port, printed on stdout).")
    var port: Int?

    @Option(help: "Log level.")
    var logLevel: String?

    @Option(help: "Requests per second per device token (per address without one); 0 turns the limit off (default 50).")
    var rateLimit: Int?

    func validate() throws {
        if let r = rateLimit, r < 0 { throw ValidationError("--rate-limit must be 0 (off) or more requests per second") }
    }

    func run() async throws {
        let (cfg, dir, db) = try storage.load()
        let logger = makeLogger(logLevel ?? cfg.logLevel)
        logger.info("allocator", metadata: ["malloc": "\(Allocator.describe())"])
        let store: any ServerStorage
        do {
            store = try StorageFactory.open(url: db, logger: logger)
        } catch {
            fail("tnotes-server: cannot open the database: \(error)", code: 1)
        }
        var settings = ServerApp.Settings()
        settings.host = host ?? cfg.host ?? "127.0.0.1"
        settings.port = port ?? cfg.port ?? 8787
        settings.dataDir = dir
        if let b = cfg.maxBodyBytes { settings.maxBodyBytes = b }
        if let a = cfg.maxAudioBytes { settings.maxAudioBytes = Int64(a) }
        if let m = cfg.maxPushChanges { settings.maxPushChanges = m }
        if let g = cfg.shutdownGraceSeconds { settings.shutdownGrace = .seconds(g) }
        if let r = rateLimit ?? cfg.rateLimit { settings.rateLimit = r }
        if let b = cfg.rateBurst { settings.rateBurst = b }
        do {
            try await ServerRuntime.run(storage: store, settings: settings, logger: logger) { [host = settings.host] port in
                // Written straight to fd 1 so it is seen at once even when stdout is a pipe (tests read it).
                FileHandle.standardOutput.write(Data("tnotes-server listening on http://\(host):\(port) (\(store.backendName))\n".utf8))
            }
        } catch let error as ServiceFailure {
            await store.close()
            if let cause = error.underlying as? ServerRuntime.StorageUnavailable {
                fail("tnotes-server: cannot open the database: \(cause)", code: 1)
            }
            logger.info("tnotes-server stopped after a failure", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        } catch {
            await store.close()
            logger.info("tnotes-server stopped after a failure", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        await store.close()
        logger.info("tnotes-server stopped")
    }
}

struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage users, their devices' pairing codes and quotas.",
                                                    subcommands: [Add.self, Pair.self, List.self, Revoke.self, Quota.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user and print a pairing code for their first device (or, with --token, a device token).")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "User name.") var name: String
        @Flag(help: "Print a device token (shown once) instead of a pairing code: for scripts and provisioning.")
        var token = false
        @Option(help: "With --token: the device's name (default: provisioned).")
        var deviceName = "provisioned"

        func run() async throws {
            let name = self.name, asToken = token, deviceName = Devices.name(self.deviceName)
            if asToken && deviceName.isEmpty { fail("tnotes-server: --device-name must have a visible character", code: 2) }
            let secret: String
            do {
                secret = try await storage.withMigrated { store in
                    let now = Timestamp.nowMillis()
                    let user = try await store.createUser(name: name, at: Timestamp.format(millis: now))
                    if asToken {
                        let token = TokenAuth.newToken()
                        _ = try await store.addDevice(user: user, name: deviceName, tokenHash: TokenAuth.hash(token),
                                                      at: Timestamp.format(millis: now))
                        return token
                    }
                    return try await User.newCode(store, user: user, nowMillis: now)
                }
            } catch {
                fail("tnotes-server: \(error)", code: 1)
            }
            if asToken {
                print("user \(name) added; this device token is shown once, keep it:")
            } else {
                print("user \(name) added; pair a device within 15 minutes with tnotes sync login <server URL> <code>:")
            }
            print(secret)
        }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a new pairing code for another device of a user.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "User name.") var name: String

        func run() async throws {
            let name = self.name
            let code: String?
            do {
                code = try await storage.withMigrated { store in
                    guard let user = try await store.userId(name: name) else { return nil }
                    return try await User.newCode(store, user: user, nowMillis: Timestamp.nowMillis())
                }
            } catch {
                fail("tnotes-server: \(error)", code: 1)
            }
            guard let code else { fail("tnotes-server: no active user \(name)", code: 1) }
            print("pairing code for \(name), valid 15 minutes and once (tnotes sync login <server URL> <code>):")
            print(code)
        }
    }

    /// A new pairing code for the user, kept hashed; the code itself.
    static func newCode(_ store: any ServerStorage, user: Int64, nowMillis: Int64) async throws -> String {
        let code = PairingCode.make()
        try await store.addPairingCode(user: user, codeHash: PairingCode.hash(normalized: PairingCode.normalize(code) ?? code),
                                       at: Timestamp.format(millis: nowMillis),
                                       expiresAt: Timestamp.format(millis: nowMillis + PairingCode.lifetimeMillis))
        return code
    }

    struct Quota: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set a user's quota: live records and audio bytes (none: no limit).")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "User name.") var name: String
        @Option(help: "Most audio bytes the user's live sermons may hold, or none.") var audioBytes: String?
        @Option(help: "Most live records the user may hold, or none.") var records: String?

        static func limit(_ text: String?, _ flag: String) -> Int64?? {
            guard let text else { return .none }
            if text == "none" || text == "unlimited" { return .some(nil) }
            guard let n = Int64(text), n >= 0 else { fail("tnotes-server: \(flag) must be a whole number ≥ 0 or none (got \(text))", code: 2) }
            return .some(n)
        }

        func run() async throws {
            let name = self.name
            let audio = Self.limit(audioBytes, "--audio-bytes"), records = Self.limit(self.records, "--records")
            let shown: (TNotesServer.Quota, Usage)?
            do {
                shown = try await storage.withMigrated { store in
                    guard let user = try await store.userId(name: name) else { return nil }
                    var quota = try await store.quota(user: user)
                    if let audio { quota.audioBytes = audio }
                    if let records { quota.records = records }
                    if audio != nil || records != nil { try await store.setQuota(user: user, quota) }
                    return (quota, try await store.usage(user: user))
                }
            } catch {
                fail("tnotes-server: \(error)", code: 1)
            }
            guard let (quota, usage) = shown else { fail("tnotes-server: no active user \(name)", code: 1) }
            print("records\t\(usage.records) of \(quota.records.map(String.init) ?? "no limit")")
            print("audio bytes\t\(usage.audioBytes) of \(quota.audioBytes.map(String.init) ?? "no limit")")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            for u in try await storage.withMigrated({ store in try await store.users() }) {
                print("\(u.name)\tcreated \(u.createdAt)\(u.revokedAt.map { "\trevoked \($0)" } ?? "")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a user and every device of theirs.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "User name.") var name: String

        func run() async throws {
            let name = self.name
            let done = try await storage.withMigrated { store in try await store.revokeUser(name: name, at: Timestamp.now()) }
            if !done { fail("tnotes-server: no active user \(name)", code: 1) }
            print("revoked \(name)")
        }
    }
}
