import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TNotesLifecycle
import UnixSignals

/// The serving process as one `ServiceGroup`: the storage's connection service (PostgreSQL's pool), when it
/// has one, the HTTP service, and the realtime service (long-poll wake-ups, PostgreSQL's LISTEN). Graceful
/// shutdown runs backwards through the list: held pulls are released, then the HTTP service stops
/// accepting and finishes its requests, and the pool closes last.
///
/// A graceful stop is bounded: a client that stops reading in the middle of a 40 MiB download keeps its
/// response's write pending forever, and Hummingbird waits for every in-flight response. After
/// `shutdownGrace` the group is cancelled, which closes such connections (the client resumes with `Range`).
public enum ServerRuntime {
    /// Why the server could not start serving (told to the operator as "cannot open the database").
    public struct StorageUnavailable: Error, CustomStringConvertible {
        public let underlying: any Error
        public var description: String { "\(underlying)" }
    }

    public static func run(storage: any ServerStorage, settings: ServerApp.Settings, logger: Logger,
                           onListening: @escaping @Sendable (Int) -> Void) async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        func supervised(_ name: String, _ service: any Service) -> ServiceGroupConfiguration.ServiceConfiguration {
            .init(service: SupervisedService(name: name, service: service, logger: logger),
                  failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        if let pool = storage.connectionService {
            services.append(supervised("database-client", pool))
        }
        services.append(supervised("http", HTTPService(storage: storage, settings: settings, logger: logger,
                                                       onListening: onListening)))
        // Last, so a graceful stop reaches it first and releases held pulls before HTTP waits for them.
        services.append(supervised("realtime", RealtimeService(signals: storage.changeSignals, listener: storage.changeListener)))
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger)
        configuration.maximumGracefulShutdownDuration = settings.shutdownGrace
        let group = ServiceGroup(configuration: configuration)
        try await group.run()
    }

    /// Migrates the storage, then serves HTTP until the group stops.
    struct HTTPService: Service {
        let storage: any ServerStorage
        let settings: ServerApp.Settings
        let logger: Logger
        let onListening: @Sendable (Int) -> Void

        func run() async throws {
            let app: ServerApp
            do {
                try await storage.migrate()
                app = try await ServerApp(storage: storage, settings: settings, logger: logger)
            } catch {
                throw StorageUnavailable(underlying: error)
            }
            let onListening = self.onListening
            let application = Application(
                router: app.router(),
                configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "tnotes-server"),
                onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
                logger: logger)
            try await application.run()
        }
    }
}
