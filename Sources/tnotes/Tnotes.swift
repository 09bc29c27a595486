import ArgumentParser
import SystemPackage
import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

struct Tnotes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tnotes",
        abstract: "The command-line client of tnotesd: sermons, notes, transcripts, summaries and sync.",
        discussion: """
            tnotes talks to the tnotesd daemon over its Unix socket (--socket, else $TNOTES_SOCKET, else \
            socket_path in tnotesd.toml, else $XDG_RUNTIME_DIR/tnotes/tnotesd.sock).

            Exit status: 0 success; 1 the daemon answered an error; 2 usage error; 69 the daemon is not \
            reachable. Colours only on a terminal, never with NO_COLOR set.

            Example:
              tnotes sermon create --title "Bread from Heaven" --speaker "Ann Lee" --date 2025-11-09
              tnotes --json sermon list | jq '.items[].title'
            """,
        version: "0.1.0",
        subcommands: [
            StatusCommand.self, SermonCommand.self, NoteCommand.self, TranscriptCommand.self, SummaryCommand.self,
            AudioCommand.self, RecordCommand.self, TranscribeCommand.self, SummarizeCommand.self, AskCommand.self, JobsCommand.self, SearchCommand.self, RefsCommand.self, VerseCommand.self,
            PublishCommand.self, UnpublishCommand.self, AccountCommand.self, DevicesCommand.self, ForkCommand.self, ExportCommand.self, ImportCommand.self,
            HistoryCommand.self, RestoreCommand.self, ConflictsCommand.self, SyncCommand.self, RPCCommand.self, WatchCommand.self, CompletionsCommand.self, ModelsCommand.self,
        ])

    @OptionGroup var global: GlobalOptions
}

/// `--socket` and `--json`, accepted before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The daemon's socket.", valueName: "path"))
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's JSON result as it returned it (one line, pipe-friendly).")
    var json = false
}

/// One connection to the daemon, opened on first use.
final class Session {
    let options: GlobalOptions
    let socketPath: String
    let source: SocketPath.Source
    private var connection: RPCConnection?

    init(_ options: GlobalOptions) {
        self.options = options
        (socketPath, source) = SocketPath.resolve(flag: options.socket, env: currentEnvironment(), uid: getuid())
    }

    var json: Bool { options.json }

    func connect() throws -> RPCConnection {
        if let connection { return connection }
        do {
            let c = try RPCConnection(path: socketPath)
            connection = c
            return c
        } catch {
            throw Failure.unreachable(error, socket: socketPath, source: source)
        }
    }

    /// Calls `method`; errors become `Failure`s with the contract's exit statuses.
    func call(_ method: String, _ params: JSON? = nil) throws -> JSON {
        let c = try connect()
        do {
            return try c.call(method, params)
        } catch let e as RPCFailure {
            throw Failure.rpc(e)
        } catch let e as ConnectionError {
            throw Failure.unreachable(e, socket: socketPath, source: source)
        }
    }

    /// Calls a typed method with its params.
    func call<M: SocketMethod>(_ method: M.Type, _ params: M.Params) throws -> JSON {
        try call(M.name, .object(params.record))
    }

    /// Calls a typed method and prints its result: as JSON with `--json`, else through `human`.
    func run<M: SocketMethod>(_ method: M.Type, _ params: M.Params, human: (JSON) throws -> String) throws {
        try run(M.name, .object(params.record), human: human)
    }

    /// The next event notification on this connection.
    func nextNotification() throws -> JSON {
        let c = try connect()
        do {
            return try c.nextNotification()
        } catch let e as ConnectionError {
            throw Failure.unreachable(e, socket: socketPath, source: source)
        }
    }

    /// Calls `method` and prints its result: as JSON with `--json`, else through `human`.
    func run(_ method: String, _ params: JSON? = nil, human: (JSON) throws -> String) throws {
        let result = try call(method, params)
        if json {
            Output.line(result.text)
        } else {
            let text = try human(result)
            if !text.isEmpty { Output.line(text) }
        }
    }
}

/// Output with write(2): no stdio buffers to share or flush.
enum Output {
    /// `s` and a newline on standard output.
    static func line(_ s: String) { write(1, s.hasSuffix("\n") ? s : s + "\n") }

    /// `s` and a newline on standard error.
    static func error(_ s: String) { write(2, s.hasSuffix("\n") ? s : s + "\n") }

    static func write(_ fd: Int32, _ s: String) {
        do {
            try FileDescriptor(rawValue: fd).writeAll(s.utf8)
        } catch {
            // A closed pipe (`tnotes ... | head`) ends the output quietly.
            _exit(error as? Errno == .brokenPipe ? 0 : 1)
        }
    }
}
