import ServiceLifecycle
import TNotesCore
import TNotesStore
import TNotesSync

/// Keeps systemd informed while the daemon runs: WATCHDOG=1 every WATCHDOG_USEC/2 after a round trip
/// through the store queue (so a wedged store stops the pings and systemd restarts us), STATUS= with the
/// sync state, and STOPPING=1 as soon as a graceful stop begins.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let store: Store
    let sync: SyncSlot

    func run() async throws {
        guard notifier.enabled else {
            try? await gracefulShutdown()
            return
        }
        let interval = notifier.watchdogMicros.map { max($0 / 2, 100_000) } ?? 5_000_000
        // STOPPING=1 goes out the moment a stop begins; the loop's sleep is cut short by it too, so the
        // group's shutdown never waits out a watchdog interval.
        await withGracefulShutdownHandler {
            try? await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    if let line = try? await Self.statusLine(store: store, sync: sync.engine) {
                        if notifier.watchdogMicros != nil { notifier.watchdog() }
                        notifier.status(line)
                    }
                    try await Task.sleep(for: .microseconds(Int64(interval)))
                }
            }
        } onGracefulShutdown: {
            notifier.stopping()
        }
    }

    /// e.g. `idle · 0 pending · last sync 10:02:11`, or `local-only · 3 sermons`.
    static func statusLine(store: Store, sync: SyncEngine?) async throws -> String {
        guard let sync else {
            let sermons = try await store.readOnQueue { s in try s.count(.sermons) }
            return "local-only · \(sermons) sermon\(sermons == 1 ? "" : "s")"
        }
        let status = try await sync.status()
        var parts = [status[field: \SyncStatus.state]?.stringValue ?? "?", "\(status[field: \SyncStatus.pendingOps]?.int64Value ?? 0) pending"]
        if let held = status[field: \SyncStatus.heldDeletes]?.int64Value {
            parts[0] = "held: a pull would delete \(held) records; run `tnotes sync confirm` to allow it"
        }
        if let failed = status[field: \SyncStatus.failedOps]?.int64Value, failed > 0 { parts.append("\(failed) failed") }
        if let last = status[field: \SyncStatus.lastSuccessAt]?.stringValue {
            parts.append("last sync \(last.dropFirst(11).prefix(8))")
        }
        return parts.joined(separator: " · ")
    }
}
