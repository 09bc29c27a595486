import TNotesConfig
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// Where the sync token comes from: `TNOTES_TOKEN` (tests), `sync.token_file`, or systemd's credential
/// `$CREDENTIALS_DIRECTORY/tnotes-token`. Read on every sync attempt, so a fixed token heals the queue.
/// The token itself is never logged.
enum SyncToken {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static func read(env: [String: String], tokenFile: String?) throws -> String {
        if let t = env["TNOTES_TOKEN"], !t.isEmpty { return t }
        var candidates = [String]()
        if let f = tokenFile { candidates.append(f) }
        if let dir = env["CREDENTIALS_DIRECTORY"], !dir.isEmpty { candidates.append("\(dir)/tnotes-token") }
        for path in candidates {
            if case .success(let text) = Daemon.readFile(path) {
                let token = text.trimmingSpaces
                if !token.isEmpty { return token }
            }
        }
        throw Missing(description: candidates.isEmpty
            ? "no token: set sync.token_file, LoadCredential=tnotes-token, or TNOTES_TOKEN"
            : "no token in \(candidates.joined(separator: " or "))")
    }

    /// Whether some token source is configured at all (checked at start: sync without one is a config error).
    static func configured(env: [String: String], tokenFile: String?) -> Bool {
        (env["TNOTES_TOKEN"].map { !$0.isEmpty } ?? false) || tokenFile != nil
            || (env["CREDENTIALS_DIRECTORY"].map { !$0.isEmpty } ?? false)
    }
}
