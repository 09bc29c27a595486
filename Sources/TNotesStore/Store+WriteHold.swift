import Dispatch

/// Holding the write queue while the machine sleeps (contract §8.4).
extension Store {
    /// Holds the write queue: returns once every write already begun has committed; from then on no write starts
    /// until the hold is released, or until `limit` of the machine's awake time has passed. Dispatch's clock is
    /// CLOCK_MONOTONIC, which stops while the machine sleeps, so the limit only counts time awake: a wake-up
    /// that is never heard (a bus lost mid-sleep) cannot stop the store for good. Writes asked for meanwhile wait
    /// in the queue and commit after it.
    public func holdWrites(limit: Duration) async -> WriteHold {
        let hold = WriteHold()
        let (seconds, atto) = limit.components
        let nanos = Int(min(seconds, 86_400)) * 1_000_000_000 + Int(atto / 1_000_000_000)
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            queue.async {
                cont.resume()
                _ = hold.semaphore.wait(timeout: .now() + .nanoseconds(nanos))
            }
        }
        return hold
    }
}

/// A hold on the store's writes (`Store.holdWrites`).
public final class WriteHold: Sendable {
    let semaphore = DispatchSemaphore(value: 0)

    /// Lets the writes go on (again or twice is harmless).
    public func release() { semaphore.signal() }
}
