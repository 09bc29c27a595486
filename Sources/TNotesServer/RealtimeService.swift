import Logging
import PostgresNIO
import ServiceLifecycle

/// The serving process's long-poll wake-ups as a service. It is the last service of the group, so a
/// graceful stop reaches it first: it releases every waiting pull (they answer with an empty page at once)
/// before the HTTP service waits for its requests in flight, so held pulls never hold a stop. On
/// PostgreSQL it also runs the LISTEN loop that hears other instances' commits.
struct RealtimeService: Service {
    let signals: ChangeSignals
    let listener: (any Service)?

    func run() async throws {
        try await withGracefulShutdownHandler {
            if let listener {
                try await listener.run()
            } else {
                try? await gracefulShutdown()
            }
        } onGracefulShutdown: {
            signals.close()
        }
    }
}

/// `LISTEN tnotes_changes` on one connection of the pool: each committed push on any instance sends
/// `NOTIFY tnotes_changes, '<user id>'` from inside its transaction, and this wakes the pulls waiting here
/// for that user. When the connection drops, notifications may have been missed: every waiting pull is
/// woken to read its log again, and the loop reconnects with a capped backoff (PostgreSQL being down is
/// the pool's failure to report, not this loop's).
struct PostgresChangeListener: Service {
    static let channel = "tnotes_changes"
    let client: PostgresClient
    let signals: ChangeSignals
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var failures = 0
            while !Task.isCancelled {
                do {
                    try await client.withConnection { conn in
                        try await conn.listen(on: Self.channel) { notifications in
                            failures = 0
                            // Listening now; anything committed before this was not heard.
                            signals.bumpAll()
                            for try await n in notifications {
                                if let user = Int64(n.payload) { signals.bump(user) } else { signals.bumpAll() }
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    failures += 1
                    logger.warning("change listener lost its connection; reconnecting",
                                   metadata: ["error": "\(error)", "attempt": "\(failures)"])
                }
                signals.bumpAll()
                if Task.isCancelled { break }
                try? await Task.sleep(for: .milliseconds(min(5000, 100 << min(failures, 6))))
            }
        }
    }
}
