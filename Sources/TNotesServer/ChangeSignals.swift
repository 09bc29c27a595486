import Synchronization

/// Wakes long-poll pulls (`GET /v1/sync/pull?wait=S`) when a user's change log grows.
///
/// Each user has a generation number. A pull reads it *before* it reads the log, and if the page is empty
/// waits for the generation to move: a change that commits between the read of the log and the wait has
/// already moved it, so no wake-up is ever missed. A waiting pull is a suspended continuation plus a timer
/// task: it holds no thread, so a thousand idle devices cost memory for their connections and little else.
///
/// Who bumps: the storage, after a transaction that appended to a user's log commits (SQLite, in process);
/// on PostgreSQL also every instance's `PostgresChangeListener`, on the `NOTIFY` the committing instance sent.
public final class ChangeSignals: Sendable {
    private struct State {
        var generations: [Int64: UInt64] = [:]
        var waiters: [Int64: [UInt64: CheckedContinuation<Void, Never>]] = [:]
        var nextWaiter: UInt64 = 0
        /// Set by a graceful stop: every pull answers at once, so none holds the stop for `wait` seconds.
        var closed = false
        /// Bumped by `bumpAll` (a listener that reconnected may have missed notifications).
        var epoch: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// What a pull remembers before it reads the log.
    public struct Mark: Sendable, Equatable {
        let generation: UInt64
        let epoch: UInt64
    }

    public func mark(user: Int64) -> Mark {
        state.withLock { Mark(generation: $0.generations[user] ?? 0, epoch: $0.epoch) }
    }

    /// A change for `user` committed: wake its waiting pulls.
    public func bump(_ user: Int64) {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generations[user, default: 0] &+= 1
            return s.waiters.removeValue(forKey: user).map { Array($0.values) } ?? []
        }
        for c in woken { c.resume() }
    }

    /// Wake every waiting pull (each reads its log again): used when notifications may have been missed.
    public func bumpAll() {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.epoch &+= 1
            let all = s.waiters.values.flatMap(\.values)
            s.waiters.removeAll()
            return all
        }
        for c in woken { c.resume() }
    }

    /// A graceful stop: waiting pulls answer now, and later ones do not wait.
    public func close() {
        state.withLock { $0.closed = true }
        bumpAll()
    }

    public var waiting: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }

    /// Returns when `user`'s log may have grown since `mark`, when `timeout` passes, on a graceful stop, or
    /// when the calling task is cancelled (the client went away).
    public func wait(user: Int64, since mark: Mark, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.park(user: user, since: mark) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func park(user: Int64, since mark: Mark) async {
        let id = state.withLock { s -> UInt64 in
            s.nextWaiter &+= 1
            return s.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { s -> Bool in
                    // Checked under the lock that `onCancel` takes: a cancel either happened before (seen
                    // here) or finds the continuation stored.
                    if s.closed || Task.isCancelled || s.epoch != mark.epoch
                        || (s.generations[user] ?? 0) != mark.generation { return false }
                    s.waiters[user, default: [:]][id] = cont
                    return true
                }
                if !parked { cont.resume() }
            }
        } onCancel: {
            let cont = state.withLock { s -> CheckedContinuation<Void, Never>? in
                let c = s.waiters[user]?.removeValue(forKey: id)
                if s.waiters[user]?.isEmpty == true { s.waiters[user] = nil }
                return c
            }
            cont?.resume()
        }
    }
}
