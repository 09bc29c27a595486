import ServiceLifecycle
import TNotesSync

/// Runs the sync engine inside the daemon's ServiceGroup; stops it on graceful shutdown.
struct SyncEngineService: Service {
    let engine: SyncEngine

    func run() async throws {
        await withGracefulShutdownHandler {
            await engine.run()
        } onGracefulShutdown: {
            engine.stop()
        }
    }
}
