import ArgumentParser
import TNotesClient

/// How a command failed, and the exit status that says so (contract §3).
enum Failure: Error {
    /// The daemon answered an error: exit 1.
    case rpc(RPCFailure)
    /// The daemon is not reachable, or went away: exit 69.
    case unreachable(ConnectionError, socket: String, source: SocketPath.Source)
    /// A bad value found while running (an unreadable `--file`, bad JSON params): exit 2.
    case usage(String)
    /// Nothing matched what was asked for, found by the CLI itself (e.g. no such version): exit 1, like the
    /// daemon's own not-found.
    case notFound(String)
    /// Work the daemon did ended badly (a failed job): exit 1.
    case message(String)

    var exitStatus: Int32 {
        switch self {
        case .rpc, .notFound, .message: return 1
        case .unreachable: return 69
        case .usage: return 2
        }
    }

    var message: String {
        switch self {
        case .rpc(let e):
            return "tnotes: \(e.description)"
        case .notFound(let s), .message(let s):
            return "tnotes: \(s)"
        case .usage(let s):
            return "tnotes: error: \(s)\nSee 'tnotes --help' or 'tnotes <command> --help'."
        case .unreachable(let e, let socket, let source):
            var lines = ["tnotes: \(e.description)"]
            if case .unreachable = e {
                var run = "tnotesd"
                // With $TNOTES_SOCKET or the config's socket_path, tnotesd finds the same socket itself.
                if case .flag = source { run += " --socket \(socket)" }
                lines.append("Is the daemon running? Start it with `systemctl --user start tnotesd` "
                             + "(`systemctl start tnotesd` for the system service), or run `\(run)`.")
            }
            return lines.joined(separator: "\n")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
