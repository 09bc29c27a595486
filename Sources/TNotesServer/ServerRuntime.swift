import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TNotesLifecycle
import UnixSignals

/// The serving process as one `ServiceGroup`: the storage's connection service (PostgreSQL's pool), when it
/// has one, and the HTTP service. Graceful shutdown runs backwards through the list, so the HTTP service
/// stops accepting and finishes its requests first, and the pool closes after it.
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
