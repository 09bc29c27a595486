import CDesktopBus
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The bus thread of a `DesktopBus`: it alone opens, uses and closes the two connections. It polls their fds
/// and the owner's eventfd, runs sd-bus's callbacks (which write `state`), sends the queued notifications,
/// publishes each change of the desktop's state, and reconnects a lost bus with a backoff.
final class BusThread {
    private let owner: DesktopBus
    private let logger: Logger
    private var system: OpaquePointer?
    private var session: OpaquePointer?
    /// Written by the system bus's callbacks (C), on this thread.
    private let state = UnsafeMutablePointer<tn_system_state>.allocate(capacity: 1)
    private var systemRetry = Retry(name: "system")
    private var sessionRetry = Retry(name: "session")
    private var seenOwnerChanges: UInt32 = 0
    private var seenResumes: UInt32 = 0
    /// The notification service failed us on this connection; said once (debug) until a notification goes through.
    private var notifyFailureLogged = false
    private var resumes = 0

    init(owner: DesktopBus) {
        self.owner = owner
        self.logger = owner.logger
        state.initialize(to: Self.unknown)
    }

    deinit {
        state.deallocate()
    }

    static let unknown = tn_system_state(metered: -1, on_battery: -1, sleeping: 0, resumes: 0, owners_changed: 0, changes: 0)

    /// When to try a bus again: soon after a loss (a restarting bus is back in a second), then less often,
    /// up to a minute (a machine without that bus pays one failed connect(2) a minute).
    struct Retry {
        let name: String
        var at = ContinuousClock.now
        var delay = Duration.milliseconds(250)
        /// The bus's absence was logged (once per outage).
        var logged = false

        mutating func failed() {
            at = .now + delay
            delay = min(delay * 2, .seconds(60))
        }

        mutating func connected() {
            delay = .milliseconds(250)
            logged = false
        }

        var due: Bool { ContinuousClock.now >= at }
    }

    func run() {
        while !owner.shared.withLock({ $0.stopping }) {
            connectIfDue()
            sendQueued()
            var fds = [pollfd(fd: owner.wakeFD, events: Int16(POLLIN), revents: 0)]
            var timeout = retryTimeout()
            for bus in [system, session] {
                guard let bus else { continue }
                fds.append(pollfd(fd: tn_bus_fd(bus), events: tn_bus_events(bus), revents: 0))
                let t = tn_bus_timeout_ms(bus)
                if t >= 0 { timeout = timeout < 0 ? t : min(timeout, t) }
            }
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno != EINTR { break }
            if fds[0].revents != 0 {
                var count: UInt64 = 0
                _ = read(owner.wakeFD, &count, 8)
            }
            // sd-bus may have read ahead into its own queue: every connection is processed each round.
            if let bus = system, tn_bus_process(bus) < 0 { lost(system: true) }
            if let bus = session, tn_bus_process(bus) < 0 { lost(system: false) }
            followChanges()
        }
        closeSystem()
        closeSession()
    }

    /// Milliseconds until a missing bus is to be tried again; -1 when none is missing.
    private func retryTimeout() -> Int32 {
        var next: ContinuousClock.Instant?
        if owner.settings.followSystem && system == nil { next = systemRetry.at }
        if owner.settings.notifications && session == nil { next = next.map { min($0, sessionRetry.at) } ?? sessionRetry.at }
        guard let next else { return -1 }
        let left = next - .now
        if left <= .zero { return 0 }
        let (seconds, atto) = left.components
        return Int32(min(60_000, seconds * 1000 + atto / 1_000_000_000_000_000 + 1))
    }

    private func connectIfDue() {
        if owner.settings.followSystem && system == nil && systemRetry.due {
            var error: Int32 = 0
            if let bus = tn_bus_open(1, &error) {
                let r = tn_bus_follow_system(bus, state)
                if r < 0 {
                    tn_bus_close(bus)
                    forgetSystemValues()
                    unavailable(&systemRetry, errno: -r)
                } else {
                    system = bus
                    systemRetry.connected()
                    seenOwnerChanges = state.pointee.owners_changed
                    logger.debug("system bus connected", metadata: [
                        "metered": "\(state.pointee.metered)", "onBattery": "\(state.pointee.on_battery)",
                    ])
                    takeSleepLock()
                    publish()
                }
            } else {
                unavailable(&systemRetry, errno: error)
            }
        }
        if owner.settings.notifications && session == nil && sessionRetry.due {
            var error: Int32 = 0
            if let bus = tn_bus_open(0, &error) {
                session = bus
                sessionRetry.connected()
                notifyFailureLogged = false
                logger.debug("session bus connected")
            } else {
                unavailable(&sessionRetry, errno: error)
            }
        }
    }

    private func unavailable(_ retry: inout Retry, errno code: Int32) {
        if !retry.logged {
            logger.debug("\(retry.name) bus unavailable; the daemon runs without it", metadata: ["error": "\(String(cString: strerror(code)))"])
            retry.logged = true
        }
        retry.failed()
    }

    private func lost(system isSystem: Bool) {
        logger.info("\(isSystem ? "system" : "session") bus connection lost; reconnecting")
        if isSystem {
            closeSystem()
            systemRetry.failed()
            publish()
        } else {
            closeSession()
            sessionRetry.failed()
        }
    }

    private func closeSystem() {
        guard let bus = system else { return }
        tn_bus_close(bus)
        system = nil
        forgetSystemValues()
        owner.releaseSleepLock()
    }

    /// Nothing is known without the bus: the daemon behaves as usual (not metered, on mains, awake). The count
    /// of wake-ups seen stays.
    private func forgetSystemValues() {
        let resumes = state.pointee.resumes
        state.pointee = Self.unknown
        state.pointee.resumes = resumes
    }

    private func closeSession() {
        guard let bus = session else { return }
        tn_bus_close(bus)
        session = nil
    }

    /// Acts on what the callbacks wrote: a service that came or went is read again; a wake-up takes a new
    /// sleep lock; every change is published.
    private func followChanges() {
        guard let bus = system else { return }
        if state.pointee.owners_changed != seenOwnerChanges {
            seenOwnerChanges = state.pointee.owners_changed
            tn_bus_read_system(bus)
            if owner.shared.withLock({ $0.sleepLock < 0 }) && state.pointee.sleeping == 0 { takeSleepLock() }
        }
        if state.pointee.resumes != seenResumes {
            seenResumes = state.pointee.resumes
            resumes += 1
            takeSleepLock()
        }
        publish()
    }

    /// logind's delay lock (none without logind, or when it says no: the daemon then simply does not delay sleep).
    private func takeSleepLock() {
        guard let bus = system, owner.shared.withLock({ $0.sleepLock < 0 }) else { return }
        let fd = tn_bus_inhibit_sleep(bus, "Finishing a write before sleep")
        guard fd >= 0 else {
            logger.debug("no sleep delay lock", metadata: ["error": "\(String(cString: strerror(-fd)))"])
            return
        }
        let kept = owner.shared.withLock { s -> Bool in
            guard s.sleepLock < 0, !s.stopping else { return false }
            s.sleepLock = fd
            return true
        }
        if !kept { close(fd) }
    }

    private func publish() {
        let s = state.pointee
        owner.publish(DesktopState(metered: DesktopState.isMetered(s.metered), onBattery: s.on_battery == 1,
                                   sleeping: system != nil && s.sleeping == 1, resumes: resumes))
    }

    private func sendQueued() {
        let queued: [DesktopNotification] = owner.shared.withLock { s in
            defer { s.outbox.removeAll() }
            return s.outbox
        }
        guard !queued.isEmpty else { return }
        guard let bus = session else {
            logger.debug("notifications dropped: no session bus", metadata: ["count": "\(queued.count)"])
            return
        }
        for n in queued {
            var error = [CChar](repeating: 0, count: 512)
            let id = tn_bus_notify(bus, Self.cString(n.summary), Self.cString(n.body), n.urgency.rawValue, &error, error.count)
            if id < 0 {
                if !notifyFailureLogged {
                    logger.debug("notification not shown", metadata: ["error": "\(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"])
                    notifyFailureLogged = true
                }
            } else {
                notifyFailureLogged = false
                logger.debug("notification sent", metadata: ["id": "\(id)", "summary": "\(n.summary)"])
            }
        }
    }

    /// A D-Bus string holds no NUL: the text up to the first one.
    static func cString(_ s: String) -> String {
        guard let nul = s.firstIndex(of: "\0") else { return s }
        return String(s[..<nul])
    }
}
