import Logging
import ServiceLifecycle

extension ServerStorage {
    /// SQLite needs none.
    public var connectionService: (any Service)? { nil }
    /// One process on one file: every commit is seen in process.
    public var changeListener: (any Service)? { nil }
    /// Files on this server's disk: the embedded default stays simple.
    public func audioBlobs(directory: String) -> any AudioBlobStore { FileAudioBlobs(root: directory) }
}

/// Runs work against a storage together with the storage's own service, as one structured unit: the
/// service starts first, stops when the work ends (on a graceful stop too), and if it ends on its own while
/// the work still runs, the work is cancelled and the whole fails, with one log line naming the service.
/// Nothing is left running unowned (the pool used to run in a detached `Task` that nobody awaited).
/// The caller still closes the storage afterwards.
public enum StorageLifetime {
    public static func run<T: Sendable>(_ storage: any ServerStorage, logger: Logger,
                                        _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let service = storage.connectionService else { return try await body() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                do {
                    try await service.run()
                } catch where !Task.isCancelled {
                    logger.error("service failed", metadata: ["service": "database-client", "error": "\(error)"])
                    throw ServerError.storage("the database client failed: \(error)")
                }
                if Task.isCancelled { return nil }
                logger.error("service failed", metadata: ["service": "database-client", "error": "stopped unexpectedly"])
                throw ServerError.storage("the database client stopped unexpectedly")
            }
            group.addTask { try await body() }
            // The first to finish decides: the work's result, or the service's failure.
            while let next = try await group.next() {
                if let result = next {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }
}
