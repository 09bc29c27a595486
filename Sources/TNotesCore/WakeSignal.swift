import Synchronization

/// A wake-up for one waiting loop, with a timeout: `signal` wakes the waiter (or the next `wait`, if none
/// is waiting), `finish` ends every wait for good. The sync engine's realtime loop waits on it between long
/// polls (a network change retries at once), and the processing worker between jobs (a new job starts at once).
public final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else { s.pending = true; return nil }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    public func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// Waits up to `seconds`; false when finished or cancelled (the loop should end).
    public func wait(seconds: Double) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            // Clamped to 0 ... 10^12 s: `Int(seconds * 1000)` traps on a huge or NaN value from a config file.
            let millis = seconds.isFinite ? Int(min(max(seconds, 0), 1e12) * 1000) : (seconds > 0 ? Int(1e15) : 0)
            group.addTask { try? await Task.sleep(for: .milliseconds(millis)) }
            group.addTask { await self.park() }
            await group.next()
            group.cancelAll()
        }
        return !Task.isCancelled && !state.withLock { $0.finished }
    }

    private func park() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { s -> Bool in
                    // Under the lock `onCancel` takes: a cancel came before (seen here) or finds the waiter.
                    if s.finished || Task.isCancelled { return false }
                    if s.pending { s.pending = false; return false }
                    s.waiter = cont
                    return true
                }
                if !parked { cont.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
    }
}
