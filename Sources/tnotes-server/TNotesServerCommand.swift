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
    static let configuration = CommandConfiguration(abstract: "Manage users and their tokens.",
                                                    subcommands: [Add.self, List.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user and print their new token (shown once).")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "User name.") var name: String

        func run() async throws {
            let token = TokenAuth.newToken()
            let name = self.name
            do {
                try await storage.withMigrated { store in
                    try await store.createUser(name: name, tokenHash: TokenAuth.hash(token), at: Timestamp.now())
                }
            } catch {
                fail("tnotes-server: \(error)", code: 1)
            }
            print("user \(name) added; this token is shown once, keep it:")
            print(token)
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
        static let configuration = CommandConfiguration(abstract: "Revoke a user's token.")
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
