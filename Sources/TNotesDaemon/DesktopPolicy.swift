import Logging
import ServiceLifecycle
import TNotesDesktop
import TNotesProcessing
import TNotesStore
import TNotesSync

/// How the daemon adapts to the desktop (contract §8.4), as a `Service` of its group fed by the bus's states:
/// - metered: audio transfers wait (the sync engine holds its audio queue), records still sync;
/// - on battery: automatic transcriptions wait, and the periodic sync's interval doubles;
/// - about to sleep: no sync starts, and once the write under way has committed the store holds its writes,
///   then logind's delay lock is let go (the machine sleeps with nothing half-written);
/// - woken up: the writes go on, and a sync starts at once (trigger `resume`).
struct DesktopPolicy: Service {
    let bus: DesktopBus
    let sync: SyncSlot
    let worker: ProcessingWorker
    let store: Store
    let logger: Logger

    /// Writes are held at most this long awake (logind waits at most InhibitDelayMaxSec, 5 s by default, before
    /// the machine sleeps; the systemd watchdog, 30 s, reads through the same queue).
    static let longestHold = Duration.seconds(10)

    func run() async throws {
        await cancelWhenGracefulShutdown { await follow() }
    }

    /// Follows the bus's states until they end (the bus stopped) or the group stops.
    private func follow() async {
        var hold: WriteHold?
        var resumes = 0
        defer { hold?.release() }
        for await state in bus.states {
            await sync.engine?.desktop(metered: state.metered, onBattery: state.onBattery)
            worker.power(onBattery: state.onBattery)
            if state.sleeping && hold == nil {
                await sync.engine?.sleeping(true)
                hold = await store.holdWrites(limit: Self.longestHold)
                logger.info("the machine is going to sleep; writes wait until it wakes")
                bus.releaseSleepLock()
            } else if !state.sleeping, let held = hold {
                held.release()
                hold = nil
            }
            if state.resumes != resumes {
                resumes = state.resumes
                logger.info("the machine woke up; syncing now")
                await sync.engine?.resumed()
            } else if !state.sleeping {
                await sync.engine?.sleeping(false)
            }
        }
    }
}
