import Synchronization

/// The tasks a sync cycle starts beside itself (the push in flight, the next pull page), so that cancelling
/// the cycle cancels them too. A task is forgotten as soon as it finishes: the registry holds a way to cancel
/// it, and that way holds the task and with it the task's result. Kept until the next cycle, as they once
/// were, a first sync's pulled pages (every decoded change of 120 k records) stayed in memory: 450 MiB of
/// live heap in an idle daemon.
final class InFlightTasks: Sendable {
    private struct State {
        var nextId = 0
        var running: [Int: Entry] = [:]
    }
    private let state = Mutex(State())

    /// Starts `operation` as a detached task (it runs on the pool, not on the engine's actor) that
    /// `cancelAll` cancels until it finishes.
    func start<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        let entry = Entry()
        let id = state.withLock { s -> Int in
            s.nextId += 1
            s.running[s.nextId] = entry
            return s.nextId
        }
        let task = Task.detached { [self] in
            defer { finished(id) }
            return try await operation()
        }
        entry.attach { task.cancel() }
        return task
    }

    func cancelAll() {
        for entry in state.withLock({ Array($0.running.values) }) { entry.cancel() }
    }

    private func finished(_ id: Int) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }

    /// One task's cancel, which may be asked for before the task exists (then it is cancelled as it attaches).
    private final class Entry: Sendable {
        private enum Phase { case starting, cancelRequested, attached(@Sendable () -> Void) }
        private let phase = Mutex(Phase.starting)

        func attach(_ cancel: @escaping @Sendable () -> Void) {
            let cancelNow = phase.withLock { p -> Bool in
                if case .cancelRequested = p { return true }
                p = .attached(cancel)
                return false
            }
            if cancelNow { cancel() }
        }

        func cancel() {
            let attached = phase.withLock { p -> (@Sendable () -> Void)? in
                if case .attached(let c) = p { return c }
                p = .cancelRequested
                return nil
            }
            attached?()
        }
    }
}
