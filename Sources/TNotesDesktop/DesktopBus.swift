import CDesktopBus
import Logging
import ServiceLifecycle
import Synchronization
import TNotesLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's two D-Bus connections (contract §8.4), a `Service` of its group: the session bus for desktop
/// notifications, the system bus for NetworkManager's Metered, UPower's OnBattery and logind's PrepareForSleep
/// (with a sleep delay lock, so that the daemon can finish a write before the machine sleeps).
///
/// Both connections live on one thread of their own (`BusThread`): an sd_bus is not thread-safe, and its calls
/// block (each is bounded at 2 s). Other threads only queue notifications and wake it through an eventfd.
/// No bus, or a missing service, is normal: logged once at debug level and tried again with a backoff, so a bus
/// that starts (or restarts) later is picked up.
public final class DesktopBus: Service, Sendable {
    public struct Settings: Sendable {
        /// Send notifications (`[desktop] notifications`); off, the session bus is not even opened.
        public var notifications: Bool
        /// Follow the system bus (metered, battery, sleep).
        public var followSystem: Bool

        public init(notifications: Bool = true, followSystem: Bool = true) {
            self.notifications = notifications
            self.followSystem = followSystem
        }
    }

    /// What the bus thread and the rest of the daemon share.
    struct Shared {
        var outbox: [DesktopNotification] = []
        var stopping = false
        /// logind's delay lock, when held (closing it lets the machine sleep).
        var sleepLock: Int32 = -1
        var current = DesktopState()
    }

    let settings: Settings
    let logger: Logger
    let shared = Mutex(Shared())
    /// Wakes the bus thread: a notification queued, or stop.
    let wakeFD: Int32
    private let updates: AsyncStream<DesktopState>.Continuation
    /// Every change of `current`, newest first kept: a sleep and a wake-up that coalesce still show in `resumes`.
    public let states: AsyncStream<DesktopState>

    public init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        wakeFD = tn_bus_wake_open()
        (states, updates) = AsyncStream.makeStream(of: DesktopState.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
    }

    /// The desktop as last heard.
    public var current: DesktopState { shared.withLock { $0.current } }

    /// Queues a notification; dropped when notifications are off. Returns at once (any thread).
    public func notify(_ notification: DesktopNotification) {
        guard settings.notifications else { return }
        shared.withLock { s in
            // A desktop that has not answered for a while does not make the daemon hoard its notices.
            if s.outbox.count < 100 { s.outbox.append(notification) }
        }
        wake()
    }

    /// Lets the machine sleep: closes logind's delay lock (the bus thread takes a new one after the wake-up).
    public func releaseSleepLock() {
        shared.withLock { s in
            if s.sleepLock >= 0 { close(s.sleepLock) }
            s.sleepLock = -1
        }
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    func publish(_ state: DesktopState) {
        let changed = shared.withLock { s in
            defer { s.current = state }
            return s.current != state
        }
        if changed { updates.yield(state) }
    }

    public func run() async throws {
        guard wakeFD >= 0 else {
            logger.debug("desktop bus unavailable: no eventfd", metadata: ["error": "\(String(cString: strerror(-wakeFD)))"])
            try? await gracefulShutdown()
            updates.finish()
            return
        }
        let ended = ThreadEnd()
        // A thread of its own, not one of a pool: it waits in poll(2) for the daemon's whole life.
        DedicatedThread.start {
            BusThread(owner: self).run()
            ended.signal()
        }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await ended.wait()
            } onGracefulShutdown: {
                self.shared.withLock { $0.stopping = true }
                self.wake()
            }
        } onCancel: {
            self.shared.withLock { $0.stopping = true }
            self.wake()
        }
        releaseSleepLock()
        updates.finish()
    }
}
