import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon's files are (contract §1): flag > environment > config file > default.
public struct DaemonPaths: Sendable, Equatable {
    public let configFile: String
    /// True when the config file was named (flag or env): then it must exist.
    public let configExplicit: Bool
    public let dataDir: String
    public let socketPath: String

    public var databasePath: String { "\(dataDir)/tnotes.sqlite" }
    public var backupDirectory: String { "\(dataDir)/backups" }
    public var audioDirectory: String { "\(dataDir)/audio" }
    /// Input files of command engines while a job runs (private to the daemon's user; emptied by each job).
    public var scratchDirectory: String { "\(dataDir)/tmp" }
    public var lockPath: String { "\(dataDir)/tnotesd.lock" }

    public struct Overrides: Sendable {
        public var config: String?
        public var dataDir: String?
        public var socket: String?
        public init(config: String? = nil, dataDir: String? = nil, socket: String? = nil) {
            self.config = config
            self.dataDir = dataDir
            self.socket = socket
        }
    }

    /// The config file to read, before the config is known.
    public static func configFile(flag: String?, env: [String: String], uid: UInt32) -> (path: String, explicit: Bool) {
        if let f = flag { return (f, true) }
        if let f = env["TNOTES_CONFIG"], !f.isEmpty { return (f, true) }
        // Under systemd with ConfigurationDirectory=tnotes (the system unit): /etc/tnotes/tnotesd.toml, optional.
        if let d = env["CONFIGURATION_DIRECTORY"], !d.isEmpty {
            return ("\(d.split(separator: ":").first.map(String.init) ?? d)/tnotesd.toml", false)
        }
        if let x = env["XDG_CONFIG_HOME"], !x.isEmpty { return ("\(x)/tnotes/tnotesd.toml", false) }
        if uid == 0 { return ("/etc/tnotes/tnotesd.toml", false) }
        return ("\(home(env))/.config/tnotes/tnotesd.toml", false)
    }

    public static func resolve(flags: Overrides, env: [String: String], config: DaemonConfig, uid: UInt32) -> DaemonPaths {
        let cfg = configFile(flag: flags.config, env: env, uid: uid)
        let dataDir: String
        if let d = flags.dataDir { dataDir = d }
        else if let d = env["TNOTES_DATA_DIR"], !d.isEmpty { dataDir = d }
        else if let d = config.dataDir { dataDir = d }
        else if let d = env["STATE_DIRECTORY"], !d.isEmpty {
            // systemd may list several, separated by colons; ours is the first.
            dataDir = String(d.split(separator: ":").first ?? Substring(d))
        }
        else if let x = env["XDG_DATA_HOME"], !x.isEmpty { dataDir = "\(x)/tnotes" }
        else if uid == 0 { dataDir = "/var/lib/tnotes" }
        else { dataDir = "\(home(env))/.local/share/tnotes" }

        let socket: String
        if let s = flags.socket { socket = s }
        else if let s = env["TNOTES_SOCKET"], !s.isEmpty { socket = s }
        else if let s = config.socketPath { socket = s }
        else { socket = defaultSocket(env: env, uid: uid) }

        return DaemonPaths(configFile: cfg.path, configExplicit: cfg.explicit, dataDir: absolute(dataDir),
                           socketPath: absolute(socket))
    }

    /// The socket clients look for when told nothing else (the CLI uses the same rule).
    public static func defaultSocket(env: [String: String], uid: UInt32) -> String {
        ProcessEnvironment.defaultSocketPath(env: env, uid: uid)
    }

    static func home(_ env: [String: String]) -> String {
        if let h = env["HOME"], !h.isEmpty { return h }
        if let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { return String(validatingCString: dir) ?? "/" }
        return "/"
    }

    static func expandTilde(_ path: String) -> String {
        if path == "~" { return home(ProcessEnvironment.current) }
        if path.hasPrefix("~/") { return home(ProcessEnvironment.current) + path.dropFirst(1) }
        return path
    }

    static func absolute(_ input: String) -> String {
        var path = input
        while path.hasPrefix("./") { path.removeFirst(2) }
        if path.hasPrefix("/") { return path }
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buf, buf.count) != nil else { return path }
        let cwd = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return cwd == "/" ? "/\(path)" : "\(cwd)/\(path)"
    }

    /// `mkdir -p` where every directory this call creates gets mode 0700. Existing ones are left as they are.
    static func makeDirectory(_ path: String) throws(DaemonError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/\(part)"
            if mkdir(current, 0o700) != 0 {
                let err = errno
                if err == EEXIST {
                    var st = stat()
                    if stat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { continue }
                    throw DaemonError.startup("\(current) exists and is not a directory")
                }
                throw DaemonError.startup("cannot create \(current): \(String(cString: strerror(err)))")
            }
            chmod(current, 0o700)
        }
    }
}


public enum DaemonError: Error, CustomStringConvertible {
    case startup(String)
    case alreadyRunning(String)

    public var description: String {
        switch self {
        case .startup(let s): return s
        case .alreadyRunning(let s): return s
        }
    }
}
