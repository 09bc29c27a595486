#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment and the path rules that daemon and clients must agree on (contract §1).
public enum ProcessEnvironment {
    /// The environment as a dictionary, without Foundation.
    public static var current: [String: String] {
        var out = [String: String]()
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { out[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return out
    }

    /// The socket used when nothing names one: `$XDG_RUNTIME_DIR/tnotes/tnotesd.sock`; as root without
    /// XDG `/run/tnotes/tnotesd.sock`; else `/tmp/tnotes-<uid>/tnotesd.sock`.
    public static func defaultSocketPath(env: [String: String], uid: UInt32) -> String {
        if let r = env["XDG_RUNTIME_DIR"], !r.isEmpty { return "\(r)/tnotes/tnotesd.sock" }
        if uid == 0 { return "/run/tnotes/tnotesd.sock" }
        return "/tmp/tnotes-\(uid)/tnotesd.sock"
    }
}

extension String {
    /// The string without leading and trailing whitespace (Foundation-free).
    public var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
