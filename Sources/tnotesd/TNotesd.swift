import ArgumentParser
import Logging
import TNotesConfig
import TNotesDaemon
import TNotesLogging
import TNotesProcessing
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

@main
struct TNotesd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tnotesd",
        abstract: "The tnotes daemon: keeps sermon notes in a local SQLite store and serves JSON-RPC on a Unix socket.",
        discussion: """
            With no config file, tnotesd runs local-only (sync disabled) with default paths:
              data   $XDG_DATA_HOME/tnotes (~/.local/share/tnotes)
              socket $XDG_RUNTIME_DIR/tnotes/tnotesd.sock
            Exit status: 0 stopped cleanly; 1 cannot start; 65 database unusable; 78 config error.
            """,
        version: TNotesVersion.string)

    @Option(name: .long, help: "Config file (default: $TNOTES_CONFIG, then $XDG_CONFIG_HOME/tnotes/tnotesd.toml).")
    var config: String?

    @Option(name: .long, help: "Data directory (SQLite db, audio, backups).")
    var dataDir: String?

    @Option(name: .long, help: "Unix socket path.")
    var socket: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    @Flag(name: .long, help: "Validate the config file and exit (0 valid, 78 invalid).")
    var checkConfig = false

    @Flag(name: .long, help: "Run an integrity check of the database and exit (0 ok, 65 damaged).")
    var checkDb = false

    /// The recognizer's worker process (RecognizerWorker.swift, WorkerSpec.swift): started by the daemon itself,
    /// never by a person.
    @Option(name: .customLong("recognizer-worker"), help: .hidden)
    var recognizerWorker: String?
    @Option(name: .customLong("recognizer-engine"), help: .hidden)
    var recognizerEngine = WorkerSpec.Engine.sherpaOnnx.rawValue
    @Flag(name: .customLong("recognizer-live"), help: .hidden)
    var recognizerLive = false

    func run() async throws {
        if let recognizerWorker {
            guard let engine = WorkerSpec.Engine(rawValue: recognizerEngine) else { Self.fail("tnotesd: unknown recognizer engine", code: 64) }
            Glibc.exit(RecognizerWorker.run(WorkerSpec(engine: engine, directory: recognizerWorker, live: recognizerLive)))
        }
        let overrides = DaemonPaths.Overrides(config: config, dataDir: dataDir, socket: socket)
        let loaded: (DaemonConfig, DaemonPaths)
        do {
            loaded = try Daemon.loadConfig(overrides: overrides)
        } catch {
            Self.fail("tnotesd: \(error.description)", code: 78)
        }
        let (cfg, paths) = loaded
        if checkConfig {
            print("\(paths.configFile): ok (data dir \(paths.dataDir), socket \(paths.socketPath), sync \(cfg.sync.serverURL ?? "disabled"))")
            return
        }
        if checkDb {
            let result = DatabaseFile.integrityCheck(path: paths.databasePath)
            print(paths.databasePath)
            for line in result.report { print("  \(line)") }
            if !result.ok { throw ExitCode(65) }
            return
        }
        let level = logLevel ?? cfg.logLevel
        guard let parsed = Logger.Level(rawValue: level) else {
            Self.fail("tnotesd: --log-level must be one of \(DaemonConfig.logLevels.joined(separator: ", "))", code: 64)
        }
        LogSetup.bootstrap(level: parsed)
        let logger = Logger(label: "tnotesd")
        do {
            try await Daemon(config: cfg, paths: paths, logger: logger).run()
        } catch let e as DatabaseOpenError {
            Self.fail("tnotesd: \(e.description)", code: 65)
        } catch let e as DaemonError {
            Self.fail("tnotesd: \(e.description)", code: 1)
        } catch {
            Self.fail("tnotesd: \(error)", code: 1)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        Glibc.exit(code)
    }
}
