import TNotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the daemon's socket is, by the rule the daemon itself uses (contract §1).
public enum SocketPath {
    /// The socket a client looks for when told nothing else: `$XDG_RUNTIME_DIR/tnotes/tnotesd.sock`;
    /// as root without XDG `/run/tnotes/tnotesd.sock`; else `/tmp/tnotes-<uid>/tnotesd.sock`.
    public static func defaultPath(env: [String: String], uid: UInt32) -> String {
        ProcessEnvironment.defaultSocketPath(env: env, uid: uid)
    }

    /// The socket to use: `flag` (`--socket`) > `$TNOTES_SOCKET` > `socket_path` in the daemon's config
    /// file > the default. `source` says which one won (for error messages).
    public static func resolve(flag: String?, env: [String: String], uid: UInt32) -> (path: String, source: Source) {
        if let f = flag, !f.isEmpty { return (absolute(f), .flag) }
        if let s = env["TNOTES_SOCKET"], !s.isEmpty { return (absolute(s), .environment) }
        let config = configFile(env: env, uid: uid)
        if let s = socketPathInConfig(config, env: env) { return (absolute(s), .config(config)) }
        return (defaultPath(env: env, uid: uid), .default)
    }

    public enum Source: Sendable, Equatable {
        case flag, environment, config(String), `default`
    }

    /// The daemon's config file, by its rule (`TNOTES_CONFIG`, XDG, root, home).
    public static func configFile(env: [String: String], uid: UInt32) -> String {
        if let f = env["TNOTES_CONFIG"], !f.isEmpty { return f }
        if let x = env["XDG_CONFIG_HOME"], !x.isEmpty { return "\(x)/tnotes/tnotesd.toml" }
        if uid == 0 { return "/etc/tnotes/tnotesd.toml" }
        return "\(home(env))/.config/tnotes/tnotesd.toml"
    }

    /// A top-level `socket_path = "..."` of the config file, if there is one (best effort: the daemon
    /// validates the file; the client only looks for this one key and ignores everything else).
    static func socketPathInConfig(_ file: String, env: [String: String]) -> String? {
        guard let text = FileReader.readText(file) else { return nil }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") { return nil }  // keys after the first table header are not top-level
            guard line.hasPrefix("socket_path") else { continue }
            var rest = line.dropFirst("socket_path".count).drop { $0 == " " || $0 == "\t" }
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
            let body = rest.dropFirst()
            guard let end = body.firstIndex(of: quote) else { return nil }
            let value = String(body[..<end])
            if value.isEmpty || value.contains("\\") { return nil }
            if value == "~" { return home(env) }
            if value.hasPrefix("~/") { return home(env) + value.dropFirst(1) }
            return value
        }
        return nil
    }

    static func home(_ env: [String: String]) -> String {
        if let h = env["HOME"], !h.isEmpty { return h }
        if let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// `path` made absolute against the working directory.
    public static func absolute(_ input: String) -> String {
        var path = input
        while path.hasPrefix("./") { path.removeFirst(2) }
        if path.hasPrefix("/") { return path }
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buf, buf.count) != nil else { return path }
        let cwd = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return cwd == "/" ? "/\(path)" : "\(cwd)/\(path)"
    }
}

/// `defaultSocketPath(env:uid:)`: the daemon's default-socket rule (contract §1).
public func defaultSocketPath(env: [String: String], uid: UInt32) -> String {
    SocketPath.defaultPath(env: env, uid: uid)
}

/// The process environment as a dictionary (without Foundation).
public func currentEnvironment() -> [String: String] { ProcessEnvironment.current }
