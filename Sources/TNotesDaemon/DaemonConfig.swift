import TOMLKit
import TNotesCore

/// `tnotesd.toml`, checked strictly: an unknown key, a wrong type or a bad value is an error that names
/// the file and the key (and makes tnotesd exit 78, EX_CONFIG).
public struct DaemonConfig: Sendable, Equatable {
    public var dataDir: String?
    public var socketPath: String?
    public var maxRequestBytes: Int = 4 << 20
    public var logLevel: String = "info"
    public var sync = SyncConfig()

    public struct SyncConfig: Sendable, Equatable {
        /// nil: sync disabled, the daemon stays local-only.
        public var serverURL: String?
        public var tokenFile: String?
        public var interval: Double = 60
        public var backoffBase: Double = 1
        public var backoffMax: Double = 300
        public var batchSize: Int = 500
    }

    public init() {}

    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
}

public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let key: String
    public let problem: String
    public var description: String { "\(file): \(key): \(problem)" }
}

extension DaemonConfig {
    public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(file: file, key: "(syntax)",
                              problem: "line \(e.source.begin.line), column \(e.source.begin.column): \(e.description)")
        } catch {
            throw ConfigError(file: file, key: "(syntax)", problem: "\(error)")
        }
        var c = DaemonConfig()
        var r = TableReader(table: table, prefix: "", file: file)
        c.dataDir = try r.path("data_dir")
        c.socketPath = try r.path("socket_path")
        if let limits = try r.table("limits") {
            var l = TableReader(table: limits, prefix: "limits.", file: file)
            if let v = try l.int("max_request_bytes", min: 1024, max: 1 << 30) { c.maxRequestBytes = v }
            try l.finish()
        }
        if let log = try r.table("log") {
            var l = TableReader(table: log, prefix: "log.", file: file)
            if let v = try l.string("level") {
                guard logLevels.contains(v) else {
                    throw ConfigError(file: file, key: "log.level", problem: "must be one of \(logLevels.joined(separator: ", ")) (got \"\(v)\")")
                }
                c.logLevel = v
            }
            try l.finish()
        }
        if let sync = try r.table("sync") {
            var s = TableReader(table: sync, prefix: "sync.", file: file)
            if let url = try s.string("server_url") {
                guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count > 8 else {
                    throw ConfigError(file: file, key: "sync.server_url", problem: "must be an http:// or https:// URL (got \"\(url)\")")
                }
                c.sync.serverURL = url
            }
            c.sync.tokenFile = try s.path("token_file")
            if let v = try s.seconds("interval", min: 1) { c.sync.interval = v }
            if let v = try s.seconds("backoff_base", min: 0.01) { c.sync.backoffBase = v }
            if let v = try s.seconds("backoff_max", min: 0.01) { c.sync.backoffMax = v }
            if let v = try s.int("batch_size", min: 1, max: 5000) { c.sync.batchSize = v }
            try s.finish()
            if c.sync.backoffMax < c.sync.backoffBase {
                throw ConfigError(file: file, key: "sync.backoff_max", problem: "must not be less than sync.backoff_base")
            }
        }
        try r.finish()
        return c
    }
}

/// Reads keys of one TOML table, remembering which were read so that `finish` can refuse the rest.
private struct TableReader {
    let table: TOMLTable
    let prefix: String
    let file: String
    var seen: Set<String> = []

    init(table: TOMLTable, prefix: String, file: String) {
        self.table = table
        self.prefix = prefix
        self.file = file
    }

    func fail(_ key: String, _ problem: String) -> ConfigError {
        ConfigError(file: file, key: prefix + key, problem: problem)
    }

    mutating func value(_ key: String) -> TOMLValueConvertible? {
        seen.insert(key)
        return table[key]
    }

    mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let v = value(key) else { return nil }
        guard v.type == .string, let s = v.string else { throw fail(key, "must be a string, not \(v.type)") }
        return s
    }

    mutating func path(_ key: String) throws(ConfigError) -> String? {
        guard let s = try string(key) else { return nil }
        guard !s.isEmpty else { throw fail(key, "must not be empty") }
        return DaemonPaths.expandTilde(s)
    }

    mutating func int(_ key: String, min: Int, max: Int) throws(ConfigError) -> Int? {
        guard let v = value(key) else { return nil }
        guard v.type == .int, let i = v.int else { throw fail(key, "must be an integer, not \(v.type)") }
        guard i >= min && i <= max else { throw fail(key, "must be between \(min) and \(max) (got \(i))") }
        return i
    }

    mutating func seconds(_ key: String, min: Double) throws(ConfigError) -> Double? {
        guard let v = value(key) else { return nil }
        let d: Double
        if v.type == .int, let i = v.int {
            d = Double(i)
        } else if v.type == .double, let x = v.double {
            d = x
        } else {
            throw fail(key, "must be a number of seconds, not \(v.type)")
        }
        guard d.isFinite, d >= min else { throw fail(key, "must be at least \(min) seconds (got \(d))") }
        return d
    }

    mutating func table(_ key: String) throws(ConfigError) -> TOMLTable? {
        guard let v = value(key) else { return nil }
        guard v.type == .table, let t = v.table else { throw fail(key, "must be a table ([\(prefix + key)]), not \(v.type)") }
        return t
    }

    func finish() throws(ConfigError) {
        for key in table.keys.sorted() where !seen.contains(key) {
            throw fail(key, "unknown key")
        }
    }
}
