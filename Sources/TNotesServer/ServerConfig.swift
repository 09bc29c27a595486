import TNotesConfig
import TNotesCore

/// `tnotes-server.toml`, read as strictly as the daemon's config.
public struct ServerConfig: Sendable, Equatable {
    public var host: String?
    public var port: Int?
    public var dataDir: String?
    public var database: String?
    public var maxBodyBytes: Int?
    public var maxAudioBytes: Int?
    public var maxPushChanges: Int?
    public var shutdownGraceSeconds: Int?
    public var logLevel: String?
    public var rateLimit: Int?
    public var rateBurst: Int?

    public init() {}

    public static func parse(_ text: String, file: String) throws(ConfigError) -> ServerConfig {
        let table = try TableReader.parse(text, file: file)
        var r = TableReader(table: table, prefix: "", file: file)
        var c = ServerConfig()
        c.host = try r.string("host")
        c.port = try r.int("port", min: 0, max: 65535)
        c.dataDir = try r.path("data_dir")
        c.database = try r.string("database")
        if let db = c.database, !(db.hasPrefix("sqlite://") || db.hasPrefix("postgres://") || db.hasPrefix("postgresql://")) {
            throw ConfigError(file: file, key: "database", problem: "must be sqlite:///path or postgres://… (got \"\(db)\")")
        }
        c.maxBodyBytes = try r.int("max_body_bytes", min: 1024, max: 1 << 30)
        c.maxAudioBytes = try r.int("max_audio_bytes", min: 1024, max: Int.max)
        c.maxPushChanges = try r.int("max_push_changes", min: 1, max: 1_000_000)
        c.shutdownGraceSeconds = try r.int("shutdown_grace_seconds", min: 0, max: 3600)
        c.logLevel = try r.string("log_level")
        c.rateLimit = try r.int("rate_limit", min: 0, max: 1_000_000)
        c.rateBurst = try r.int("rate_burst", min: 1, max: 1_000_000)
        try r.finish()
        return c
    }
}

/// Opens the storage a database URL names: `sqlite:///abs/path`, `sqlite://relative/path`, or `postgres://…`.
public enum StorageFactory {
    public static func open(url: String, logger: Logging.Logger) throws -> any ServerStorage {
        if url.hasPrefix("sqlite://") {
            var path = String(url.dropFirst("sqlite://".count))
            if path.isEmpty { throw ServerError.config("sqlite:// URL has no path") }
            if path.hasPrefix("//") { path = String(path.dropFirst()) }
            return try SQLiteServerStorage(path: path)
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return try PostgresServerStorage(url: url, logger: logger)
        }
        throw ServerError.config("unsupported database URL \(url) (use sqlite:///path or postgres://…)")
    }
}

import Logging
