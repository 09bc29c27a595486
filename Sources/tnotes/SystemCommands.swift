import ArgumentParser
import TNotesCLIRender
import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's version, paths and sync state.",
        discussion: """
            Example:
              tnotes status
              tnotes --json status | jq .sync.state
            """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try Session(global).run(DaemonStatusMethod.self, NoParams()) { Render.daemonStatus($0, style: .stdout) }
    }
}

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync with the server now, or show the sync state.",
        discussion: """
            `tnotes sync` waits until everything queued is pushed and every page pulled, then prints what \
            moved; with --no-wait it only starts a sync. The daemon answers an error (exit 1) when sync is \
            disabled or the server is unreachable; the queue is kept.

            Example:
              tnotes sync login https://notes.example.org ABCD-EFGH
              tnotes sync
              tnotes sync status
            """,
        subcommands: [Now.self, Status.self, Confirm.self, Login.self],
        defaultSubcommand: Now.self)

    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Pair this device with a sync server, using a code from `tnotes-server user add` or `user pair`.",
            discussion: """
                Trades the code (valid 15 minutes, once) for this device's own token, keeps it in sync.token_file \
                (mode 0600), adds the server and the token file to the config when they are missing, and syncs.
                Example:
                  tnotes sync login https://notes.example.org ABCD-EFGH
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The sync server's address.") var url: String
        @Argument(help: "The pairing code, as printed (case and hyphen do not matter).") var code: String
        @Option(name: .long, help: "This device's name on the server (default: the host name).") var name: String?

        func run() throws {
            try Session(global).run(SyncLogin.self, .init(url: url, code: code, name: name)) { json in
                let r = LenientRecord<SyncLogin.Result>(json)
                var lines = ["paired as \(r.name ?? "this device") (\(r.deviceId ?? "")) with \(r.serverUrl ?? url); syncing now",
                             "token kept in \(r.tokenFile ?? "")"]
                if r.configWritten == true { lines.append("config updated: \(r.configFile ?? "")") }
                if let w = r.warning { lines.append("warning: \(w)") }
                return lines.joined(separator: "\n")
            }
        }
    }

    struct Now: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now",
            abstract: "Sync now (the default of `tnotes sync`).",
            discussion: """
                Example:
                  tnotes sync
                  tnotes sync --no-wait
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Start a sync and return at once.") var noWait = false

        func run() throws {
            let session = Session(global)
            // Progress on a terminal while the sync runs (never with --json, NO_COLOR or TERM=dumb).
            let progress = noWait ? nil : EventProgress.sync(socketPath: session.socketPath, enabled: !global.json)
            progress?.start()
            let result: JSON
            do {
                result = try session.call(SyncNow.self, .init(wait: !noWait))
                progress?.stop()
            } catch {
                progress?.stop()
                throw error
            }
            if global.json { Output.line(result.text); return }
            Output.line(Render.syncResult(result))
        }
    }

    struct Confirm: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a held pull make its deletions.",
            discussion: """
                A pull that would delete more than half of this device's records is held (`tnotes sync status` \
                shows state held, with the count) in case the server lost its data. When the deletions are \
                real, confirm them; the pull then runs.

                Example:
                  tnotes sync confirm
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try Session(global).run(SyncConfirm.self, NoParams()) { r in
                if let n = LenientRecord<SyncConfirm.Result>(r).deletes { return "confirmed: the pull may delete \(n) records; syncing" }
                return "nothing was held; syncing"
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the sync state: pending and failed ops, next attempt, last success, last error.",
            discussion: """
                Example:
                  tnotes sync status
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try Session(global).run(SyncStatusMethod.self, NoParams()) { Render.syncStatus($0, style: .stdout) }
        }
    }
}

struct RPCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc",
        abstract: "Call any daemon method and print its JSON result.",
        discussion: """
            JSON_PARAMS is a JSON object (or array); "-" reads it from standard input. `tnotes rpc \
            rpc.discover` lists every method.

            Example:
              tnotes rpc sermon.list '{"limit": 5}'
              jq -n --arg id "$SERMON" '{id: $id}' | tnotes rpc sermon.get -
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The method, e.g. sermon.get.", valueName: "method")) var method: String
    @Argument(help: ArgumentHelp("The params as JSON; - reads stdin.", valueName: "json-params")) var params: String?

    func run() throws {
        var parsed: JSON?
        if let params {
            let text = params == "-" ? try readFileOption("-", flag: "<json-params>") : params
            do {
                parsed = try JSON.parse(text.trimmingWhitespace)
            } catch {
                throw Failure.usage("<json-params> is not JSON: \(error)")
            }
        }
        let result = try Session(global).call(method, parsed)
        Output.line(result.text)
    }
}

extension String {
    var trimmingWhitespace: String {
        let ws: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(drop(while: ws).reversed().drop(while: ws).reversed())
    }
}

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the daemon's events as they happen, until interrupted.",
        discussion: """
            Topics: record.changed, sync.state, sync.completed (default: all). One line per event; with \
            --json, the event's params as one JSON object per line.

            Example:
              tnotes watch --topic record.changed
              tnotes --json watch | jq -c 'select(.collection == "notes")'
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("Only this topic (repeatable).", valueName: "topic")) var topic: [String] = []

    func run() throws {
        let session = Session(global)
        // The topics as the user wrote them: an unknown one is the daemon's error, naming the param.
        var params = JSONObject()
        if !topic.isEmpty { params[EventsSubscribe.Params.name(\.topics)] = .array(topic.map { .string($0) }) }
        do {
            _ = try session.call(EventsSubscribe.name, .object(params))
        } catch Failure.rpc(let e) where e.code == -32602 && (e.field ?? "").hasPrefix("topics") {
            throw Failure.usage("invalid value for --topic: \(e.reason ?? e.message)")
        }
        // Ctrl-C ends the watch; that is its normal end.
        // (A parent may have left them blocked: unblock them.)
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        let style = Style.stdout
        while true {
            let message = try session.nextNotification()
            let notification = LenientRecord<RPCNotification>(message)
            guard notification.method == RPCNotification.eventMethod, let event = notification.json(at: \.params) else { continue }
            Output.line(session.json ? event.text : Render.event(event, style: style, clock: Self.localClock()))
        }
    }
}

extension WatchCommand {
    /// The local time of day, `14:05:09`, that `tnotes watch` puts before each event.
    static func localClock() -> String {
        var t = time_t(0)
        time(&t)
        var parts = tm()
        localtime_r(&t, &parts)
        return "\(Format.pad(Int(parts.tm_hour))):\(Format.pad(Int(parts.tm_min))):\(Format.pad(Int(parts.tm_sec)))"
    }
}

struct CompletionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions",
        abstract: "Print a shell completion script.",
        discussion: """
            Example:
              tnotes completions bash > ~/.local/share/bash-completion/completions/tnotes
              tnotes completions zsh > "${fpath[1]}/_tnotes"
              tnotes completions fish > ~/.config/fish/completions/tnotes.fish
            """)

    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case bash, zsh, fish
        var completionShell: CompletionShell {
            switch self {
            case .bash: return .bash
            case .zsh: return .zsh
            case .fish: return .fish
            }
        }
    }

    @Argument(help: "bash, zsh or fish.") var shell: Shell

    func run() throws {
        Output.line(Tnotes.completionScript(for: shell.completionShell))
    }
}
