import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TNotesRecording
import SystemPackage
import TNotesLifecycle
import TNotesConfig
import TNotesBible
import TNotesProcessing
import TNotesCore
import TNotesDesktop
import TNotesRPC
import TNotesSocketServer
import TNotesStore
import TNotesSync
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

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
    public static func loadConfig(overrides: DaemonPaths.Overrides, env: [String: String] = ProcessEnvironment.current)
        throws(ConfigError) -> (DaemonConfig, DaemonPaths)
    {
        let uid = getuid()
        let file = DaemonPaths.configFile(flag: overrides.config, env: env, uid: uid)
        var config = DaemonConfig()
        switch readFile(file.path) {
        case .success(let text):
            config = try DaemonConfig.parse(text, file: file.path)
        case .failure(let err):
            if err != .noSuchFileOrDirectory || file.explicit {
                throw ConfigError(file: file.path, key: "(file)", problem: "cannot be read: \(String(cString: strerror(err.rawValue)))")
            }
        }
        if config.sync.serverURL != nil && !SyncToken.configured(env: env, tokenFile: config.sync.tokenFile) {
            throw ConfigError(file: file.path, key: "sync.token_file",
                              problem: "sync.server_url is set but there is no token (set sync.token_file, LoadCredential=tnotes-token, or TNOTES_TOKEN)")
        }
        return (config, DaemonPaths.resolve(flags: overrides, env: env, config: config, uid: uid))
    }

    /// This executable (the recognizer's worker is this program again: `RecognizerWorker`).
    static let executablePath: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }()

    static func readFile(_ path: String) -> Result<String, Errno> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Errno(rawValue: errno)) }
        defer { close(fd) }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n: Int
            do {
                n = try buf.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
            } catch {
                return .failure(error as? Errno ?? .ioError)
            }
            if n == 0 { break }
            out += buf[0..<n]
            if out.count > 1 << 20 { return .failure(.fileTooLarge) }
        }
        return .success(String(decoding: out, as: UTF8.self))
    }

    /// The sync engine for the server at `url`; its token is read from `slot.tokenFile` (or the environment) on
    /// every attempt.
    static func makeSyncEngine(url: String, config: DaemonConfig.SyncConfig, audioDirectory: String, slot: SyncSlot, store: Store,
                               hub: EventHub, notices: DesktopNotices, pins: AudioPins, startedAtMillis: Int64,
                               env: [String: String], logger: Logger) -> SyncEngine {
        let token: @Sendable () throws -> String = {
            try SyncToken.read(env: env, tokenFile: slot.tokenFile)
        }
        let client = SyncClient(serverURL: url, token: token, transport: CurlTransport(caFile: config.caFile))
        let backoff = BackoffPolicy(base: config.backoffBase, factor: 2, max: config.backoffMax)
        let audio = AudioTransfers(store: store, client: client, audioDirectory: audioDirectory, backoff: backoff,
                                   settings: config.audio, pins: pins, logger: logger, processStartMillis: startedAtMillis) { topic, fields in
            hub.publish(topic: topic, fields)
        }
        var settings = SyncEngine.Settings(serverURL: url, interval: config.interval, backoff: backoff,
                                           batchSize: config.batchSize, realtime: config.realtime)
        settings.audioOnMetered = config.audioOnMetered
        return SyncEngine(store: store, client: client, settings: settings, audio: audio, logger: logger) { topic, fields in
            hub.publish(topic: topic, fields)
            if topic == "sync.state" { notices.syncStateChanged(fields) }
        }
    }

    /// Every socket method, over one store: what `run` serves.
    static func methodTable(store: Store, hub: EventHub, info: DaemonInfo, sync: SyncSlot, audioDirectory: String,
                            processing: ProcessingSettings = ProcessingSettings(), worker: ProcessingWorker? = nil,
                            scriptureModulesPath: String? = nil, login: SyncLoginMethod? = nil,
                            recording: RecordingController? = nil, soundServer: SoundServer = SoundServer(address: nil),
                            desktop: DesktopBus? = nil, caFile: String? = nil) -> MethodTable {
        let discovery = DiscoveryDocument()
        var table = MethodTable(title: "tnotesd", version: TNotesVersion.string)
        SystemMethods(store: store, hub: hub, info: info, discovery: discovery, sync: sync, desktop: desktop).register(into: &table)
        login?.register(into: &table)
        RecordMethods(store: store, sync: sync, recordingClock: recording?.clock).register(into: &table)
        PublishMethods(store: store, sync: sync).register(into: &table)
        ForkMethod(store: store, sync: sync, caFile: caFile).register(into: &table)
        AccountMethods(sync: sync).register(into: &table)
        AudioMethods(store: store, importer: AudioImporter(audioDirectory: audioDirectory), sync: sync,
                     autoTranscribe: processing.autoTranscribe, worker: worker).register(into: &table)
        ProcessingMethods(store: store, worker: worker, settings: processing).register(into: &table)
        BackupMethods(store: store).register(into: &table)
        SearchMethods(store: store, bible: Bible(modulesPath: scriptureModulesPath)).register(into: &table)
        HistoryMethods(store: store).register(into: &table)
        ConflictMethods(store: store).register(into: &table)
        if let recording { RecordingMethods(controller: recording, server: soundServer).register(into: &table) }
        discovery.set(table.openRPC(components: DiscoveryDocument.components()))
        return table
    }

    /// The same method table for a daemon without a socket or sync (the RPC fuzz target drives it): the
    /// store's changes still reach the event hub, so subscribed connections get their events.
    public static func localMethodTable(store: Store, dataDirectory: String) -> MethodTable {
        let hub = EventHub()
        store.addObserver { changes in hub.recordsChanged(changes) }
        let info = DaemonInfo(version: TNotesVersion.string, socketPath: "", dataDir: dataDirectory,
                              startedAtMillis: Timestamp.nowMillis())
        return methodTable(store: store, hub: hub, info: info, sync: SyncSlot(), audioDirectory: "\(dataDirectory)/audio")
    }

    public func run() async throws {
        let startedAtMillis = Timestamp.nowMillis()
        let env = ProcessEnvironment.current
        // Everything the daemon creates (db, audio, backups, socket) is for its owner alone.
        umask(0o077)
        EarlyStopSignal.install()
        try DaemonPaths.makeDirectory(paths.dataDir)
        let instance = InstanceGuard()
        try instance.lockDataDir(paths)

        let notifier = SystemdNotifier()
        let logger = self.logger
        let store = try Store(path: paths.databasePath, backupDirectory: paths.backupDirectory, logger: logger) { from, to in
            // A long migration must not trip systemd's start timeout.
            notifier.status(from == 0 ? "creating database" : "migrating database v\(from) → v\(to)")
            notifier.extendTimeout(seconds: 600)
            logger.info("migrating database", metadata: ["from": "\(from)", "to": "\(to)"])
        }
        if store.migratedFrom == 0 {
            logger.info("database created", metadata: ["path": "\(paths.databasePath)", "schema": "\(store.schemaVersion)"])
        } else if store.migratedFrom != store.schemaVersion {
            logger.info("database migrated", metadata: [
                "from": "\(store.migratedFrom)", "to": "\(store.schemaVersion)", "backup": "\(store.backupPath ?? "none")",
            ])
        }

        // History older than [history] keep_days goes (looked for first: a start with nothing to prune writes nothing).
        let cutoff = Timestamp.format(millis: Timestamp.nowMillis() - Int64(config.historyKeepDays) * 86_400_000)
        if try await store.read({ s in try s.hasHistory(before: cutoff) }) {
            let pruned = try await store.write { s in try s.pruneHistory(before: cutoff) }
            logger.info("history pruned", metadata: ["versions": "\(pruned)", "keepDays": "\(config.historyKeepDays)"])
        }

        // What keeps the daemon busy (requests, commits, events): once it is quiet, it gives back memory.
        let activity = ActivityMark()
        let hub = EventHub(onPublish: activity.touch)
        // The desktop's buses (contract §8.4): notifications out, metered / battery / sleep in.
        let desktop = DesktopBus(settings: .init(notifications: config.desktop.notifications), logger: logger)
        let notices = DesktopNotices(bus: desktop, store: store)
        // The engine is there from the start when sync.server_url is set, or from the moment sync.login pairs the device.
        let sync = SyncSlot(tokenFile: config.sync.tokenFile)
        // Audio a transcription reads: the sync engine's audio cache never evicts it.
        let pins = AudioPins()
        let makeEngine: @Sendable (String) -> SyncEngine = { [syncConfig = config.sync, audioDirectory = paths.audioDirectory] url in
            Self.makeSyncEngine(url: url, config: syncConfig, audioDirectory: audioDirectory, slot: sync, store: store, hub: hub,
                                notices: notices, pins: pins, startedAtMillis: startedAtMillis, env: env, logger: logger)
        }
        if let url = config.sync.serverURL { _ = sync.install(makeEngine(url)) }
        store.addObserver { changes in
            activity.touch()
            hub.recordsChanged(changes)
            notices.recordsChanged(changes)
            if changes.contains(where: { $0.origin == .local }) { sync.engine?.noteLocalWrite() }
        }
        let activated = SystemdNotifier.activatedSocket()
        let socketPath = activated.flatMap(SystemdNotifier.socketPath) ?? paths.socketPath
        let info = DaemonInfo(version: TNotesVersion.string, socketPath: socketPath, dataDir: paths.dataDir,
                              startedAtMillis: startedAtMillis)
        var processing = config.processing
        processing.dataModelDirectory = "\(paths.dataDir)/models"
        processing.recognizerExecutable = Self.executablePath
        let worker = ProcessingWorker(store: store, settings: processing, scratchDirectory: paths.scratchDirectory,
                                      audio: AudioMethods.audioAccess(sync: sync, pins: pins), logger: logger) { topic, fields in
            hub.publish(topic: topic, fields)
            if topic == "job.changed" { notices.jobChanged(fields) }
        }
        let soundServer = SoundServer(environment: env)
        let recording = RecordingController(
            settings: .init(server: soundServer, audioDirectory: paths.audioDirectory, markerPath: "\(paths.dataDir)/recording.json",
                            liveMarkerDirectory: "\(paths.dataDir)/live-transcripts",
                            config: config.recording, liveProcessing: processing),
            store: store, hub: hub, worker: worker, logger: logger)
        // A recording the last daemon did not stop (kill -9, power loss) is closed and attached first.
        await recording.recover()
        let table = Self.methodTable(store: store, hub: hub, info: info, sync: sync, audioDirectory: paths.audioDirectory,
                                     processing: processing, worker: worker, scriptureModulesPath: config.scriptureModulesPath,
                                     login: SyncLoginMethod(slot: sync, configFile: paths.configFile, env: env, caFile: config.sync.caFile,
                                                            makeEngine: makeEngine, desktop: desktop, logger: logger),
                                     recording: recording, soundServer: soundServer,
                                     desktop: desktop, caFile: config.sync.caFile)
        let dispatcher = Dispatcher(table: table, logger: logger, lines: .init(begin: activity.begin, end: activity.end),
                                    openWriteRun: { store.openWriteRun().close })

        // One event loop per core (at most 4): a connection whose answer is large to encode (sermon.list of
        // 1000) then holds back only the connections on its own loop. Blocking work never runs on them.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: min(max(System.coreCount, 1), 4))
        let serverConfig = UnixSocketServer.Configuration(maxLineBytes: config.maxRequestBytes)
        let server: UnixSocketServer
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
        notifier.ready(status: try await SystemdService.statusLine(store: store, sync: sync.engine))
        logger.info("tnotesd ready", metadata: [
            "version": "\(TNotesVersion.string)", "socket": "\(socketPath)", "activated": "\(activated != nil)", "dataDir": "\(paths.dataDir)",
            "deviceId": "\(store.deviceId)", "quickCheck": "\(store.quickChecked)", "sync": "\(config.sync.serverURL == nil ? "disabled" : "enabled")",
        ])

        // Graceful shutdown runs through this list backwards: systemd hears STOPPING=1 first, then the
        // socket stops accepting and finishes the requests in flight, then sync stops.
        func supervised(_ name: String, _ service: any Service) -> ServiceGroupConfiguration.ServiceConfiguration {
            .init(service: SupervisedService(name: name, service: service, logger: logger),
                  failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        var serviceList: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: EarlyStopSignal.Watcher(), successTerminationBehavior: .gracefullyShutdownGroup),
        ]
        serviceList.append(supervised("sync-engine", SyncEngineService(slot: sync, logger: logger)))
        serviceList.append(supervised("processing", worker))
        serviceList.append(supervised("desktop-bus", desktop))
        serviceList.append(supervised("desktop-notices", notices))
        serviceList.append(supervised("desktop-policy", DesktopPolicy(bus: desktop, sync: sync, worker: worker, store: store, logger: logger)))
        serviceList.append(supervised("recording", RecordingService(controller: recording)))
        serviceList.append(supervised("socket-server", server))
        serviceList.append(supervised("systemd", SystemdService(notifier: notifier, store: store, sync: sync)))
        serviceList.append(supervised("idle-memory", IdleMemoryRelease(activity: activity, logger: logger)))
        var groupConfiguration = ServiceGroupConfiguration(services: serviceList, gracefulShutdownSignals: [.sigterm, .sigint],
                                                           logger: logger)
        // A stop is bounded: a client that stops reading a large reply would otherwise hold it for good.
        // After this the group is cancelled (transfers abort, connections close); the store still closes cleanly.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(10)
        let services = ServiceGroup(configuration: groupConfiguration)
        var failure: (any Error)?
        do {
            try await services.run()
        } catch {
            // SupervisedService has logged which service failed; the others have stopped gracefully.
            failure = error
        }
        logger.info("tnotesd stopping")
        // Closing checkpoints the WAL and waits for the reader threads: blocking work, off the cooperative pool.
        try? await BlockingWork.run { store.close() }
        if activated == nil { unlink(paths.socketPath) }
        try? await group.shutdownGracefully()
        withExtendedLifetime(instance) {}
        if let failure {
            logger.info("tnotesd stopped after a failure", metadata: ["error": "\(failure)"])
            throw failure
        }
        logger.info("tnotesd stopped")
    }
}
