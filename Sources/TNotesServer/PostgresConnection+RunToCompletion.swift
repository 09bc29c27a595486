import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs a statement for its effect and reads whatever rows it returns to the end. postgres-nio hands back a
    /// statement's rows before PostgreSQL has run it, and an error of the statement comes with them: left
    /// unread, it goes unseen, and the transaction's COMMIT is answered with a ROLLBACK that passes for success
    /// (a push answered `applied` for changes that were not stored; `PostgresPushBatchTests.failedWriteIsAnError`).
    func runToCompletion(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }
}
