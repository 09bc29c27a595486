import CSystemd
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Talks to systemd when it supervises us (NOTIFY_SOCKET set): READY=1, STATUS=, WATCHDOG=1,
/// EXTEND_TIMEOUT_USEC=, STOPPING=1. Without systemd every call is a no-op.
final class SystemdNotifier: Sendable {
    let enabled: Bool
    /// The watchdog interval systemd expects (WATCHDOG_USEC for our pid), if any.
    let watchdogMicros: UInt64?
    private let lastStatus = Mutex<String>("")

    init() {
        enabled = getenv("NOTIFY_SOCKET") != nil
        var usec: UInt64 = 0
        // unset_environment = 0: the values must stay readable; sd_watchdog_enabled checks WATCHDOG_PID.
        watchdogMicros = sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }

    func notify(_ state: String) {
        guard enabled else { return }
        _ = sd_notify(0, state)
    }

    func ready(status: String) { notify("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())") }
    func stopping() { notify("STOPPING=1\nSTATUS=stopping") }
    func watchdog() { notify("WATCHDOG=1") }
    func extendTimeout(seconds: Int) { notify("EXTEND_TIMEOUT_USEC=\(seconds * 1_000_000)") }

    /// STATUS= only when it changed (systemctl status shows it).
    func status(_ text: String) {
        let changed = lastStatus.withLock { last -> Bool in
            if last == text { return false }
            last = text
            return true
        }
        if changed { notify("STATUS=\(text)") }
    }

    /// The listening socket systemd handed over, if any: the one named "tnotesd", else the first.
    static func activatedSocket() -> Int32? {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let n = sd_listen_fds_with_names(1, &names)
        guard n > 0 else { return nil }
        defer {
            if let names {
                for i in 0..<Int(n) { free(names[i]) }
                free(names)
            }
        }
        var chosen = SD_LISTEN_FDS_START
        if let names {
            for i in 0..<Int(n) {
                if let name = names[i], String(validatingCString: name) == "tnotesd" {
                    chosen = SD_LISTEN_FDS_START + Int32(i)
                    break
                }
            }
        }
        return chosen
    }

    /// The filesystem path a listening Unix socket is bound to.
    static func socketPath(_ fd: Int32) -> String? {
        var addr = sockaddr_un()
        var len = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0, addr.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: addr.sun_path) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return path.isEmpty ? nil : path
    }
}
