import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TNotesConfig
import TNotesCore
import TNotesRPC
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

struct Errno: Error { let code: Int32; init(_ c: Int32) { code = c } }

public enum TNotesVersion {
    public static let string = "0.1.0"
}

/// Builds and runs the daemon: config → dirs → data-dir lock → store (migrated) → socket → serve,
/// then a graceful stop on SIGTERM/SIGINT.
public struct Daemon {
    public let config: DaemonConfig
    public let paths: DaemonPaths
    public let logger: Logger

    public init(config: DaemonConfig, paths: DaemonPaths, logger: Logger) {
        self.config = config
        self.paths = paths
        self.logger = logger
    }

    /// Reads the config file named by flag/env, or the default one if it exists (none at all is valid).
    public static func loadConfig(overrides: DaemonPaths.Overrides, env: [String: String] = Environment.current)
        throws(ConfigError) -> (DaemonConfig, DaemonPaths)
    {
        let uid = getuid()
        let file = DaemonPaths.configFile(flag: overrides.config, env: env, uid: uid)
        var config = DaemonConfig()
        switch readFile(file.path) {
        case .success(let text):
            config = try DaemonConfig.parse(text, file: file.path)
        case .failure(let err):
            if err.code != ENOENT || file.explicit {
                throw ConfigError(file: file.path, key: "(file)", problem: "cannot be read: \(String(cString: strerror(err.code)))")
            }
        }
        return (config, DaemonPaths.resolve(flags: overrides, env: env, config: config, uid: uid))
    }

    static func readFile(_ path: String) -> Result<String, Errno> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Errno(errno)) }
        defer { close(fd) }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buf, buf.count)
            if n < 0 { if errno == EINTR { continue }; return .failure(Errno(errno)) }
            if n == 0 { break }
            out += buf[0..<n]
            if out.count > 1 << 20 { return .failure(Errno(EFBIG)) }
        }
        return .success(String(decoding: out, as: UTF8.self))
    }

    /// The socket systemd passed us (LISTEN_FDS), if any: fd 3.
    static func activatedSocket(env: [String: String]) -> Int32? {
        guard let pid = env["LISTEN_PID"], Int32(pid) == getpid(), let n = env["LISTEN_FDS"].flatMap({ Int($0) }), n >= 1
        else { return nil }
        return 3
    }

    public func run() async throws {
        let env = Environment.current
        // Everything the daemon creates (db, audio, backups, socket) is for its owner alone.
        umask(0o077)
        try DaemonPaths.makeDirectory(paths.dataDir)
        let instance = InstanceGuard()
        try instance.lockDataDir(paths)

        let store = try Store(path: paths.databasePath, backupDirectory: paths.backupDirectory, logger: logger)
        if store.migratedFrom == 0 {
            logger.info("database created", metadata: ["path": "\(paths.databasePath)", "schema": "\(store.schemaVersion)"])
        } else if store.migratedFrom != store.schemaVersion {
            logger.info("database migrated", metadata: [
                "from": "\(store.migratedFrom)", "to": "\(store.schemaVersion)", "backup": "\(store.backupPath ?? "none")",
            ])
        }

        let hub = EventHub()
        store.addObserver { changes in hub.recordsChanged(changes) }
        let info = DaemonInfo(version: TNotesVersion.string, socketPath: paths.socketPath, dataDir: paths.dataDir,
                              startedAtMillis: Timestamp.nowMillis())
        let discovery = DiscoveryDocument()
        var table = MethodTable(title: "tnotesd", version: TNotesVersion.string)
        SystemMethods(store: store, hub: hub, info: info, discovery: discovery).register(into: &table)
        RecordMethods(store: store).register(into: &table)
        AudioMethods(store: store, importer: AudioImporter(audioDirectory: paths.audioDirectory)).register(into: &table)
        discovery.set(table.openRPC(components: DiscoveryDocument.components()))
        let dispatcher = Dispatcher(table: table, logger: logger)

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let serverConfig = UnixSocketServer.Configuration(maxLineBytes: config.maxRequestBytes)
        let server: UnixSocketServer
        let activated = Self.activatedSocket(env: env)
        if let fd = activated {
            server = try await UnixSocketServer.adopt(fd: fd, group: group, dispatcher: dispatcher,
                                                      configuration: serverConfig, logger: logger,
                                                      onConnect: hub.connected, onDisconnect: hub.disconnected)
        } else {
            let dir = String(paths.socketPath[..<(paths.socketPath.lastIndex(of: "/") ?? paths.socketPath.startIndex)])
            if !dir.isEmpty { try DaemonPaths.makeDirectory(dir) }
            try InstanceGuard.prepareSocketPath(paths.socketPath)
            server = try await UnixSocketServer.bind(path: paths.socketPath, group: group, dispatcher: dispatcher,
                                                     configuration: serverConfig, logger: logger,
                                                     onConnect: hub.connected, onDisconnect: hub.disconnected)
        }
        logger.info("tnotesd ready", metadata: [
            "version": "\(TNotesVersion.string)", "socket": "\(paths.socketPath)", "dataDir": "\(paths.dataDir)",
            "deviceId": "\(store.deviceId)", "sync": "\(config.sync.serverURL == nil ? "disabled" : "enabled")",
        ])

        let services = ServiceGroup(configuration: .init(
            services: [.init(service: server)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await services.run()
        } catch {
            logger.error("service failed", metadata: ["error": "\(error)"])
        }
        logger.info("tnotesd stopping")
        store.close()
        if activated == nil { unlink(paths.socketPath) }
        try? await group.shutdownGracefully()
        withExtendedLifetime(instance) {}
        logger.info("tnotesd stopped")
    }
}
