/// A FIFO lock for async code: one holder at a time, waiters resumed in order. Used to serialize the
/// SQLite backend's single connection across awaits (a lock that blocks threads would stall the pool).
actor AsyncMutex {
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func lock() async {
        if !locked {
            locked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func unlock() {
        if waiters.isEmpty {
            locked = false
        } else {
            waiters.removeFirst().resume()
        }
    }

    nonisolated func withLock<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        do {
            let r = try await body()
            await unlock()
            return r
        } catch {
            await unlock()
            throw error
        }
    }
}
