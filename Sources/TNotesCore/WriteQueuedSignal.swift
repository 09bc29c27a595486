import Synchronization

/// Tells a JSON-RPC batch when one of its calls has put its write on the store's queue, so the next call can
/// start at once and the batch's writes commit as one group (one fsync) instead of one after another, each
/// waiting for its own (contract: a batch's answers still come in order, and each call still sees every
/// call before it, since the store's queue runs writes in the order they were queued).
///
/// Set as a task-local around one call by the dispatcher; `Store.write` fires it when the write is queued;
/// the dispatcher also fires it when the call ends without writing.
public final class WriteQueuedSignal: Sendable {
    @TaskLocal public static var current: WriteQueuedSignal?

    private struct State {
        var fired = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    public init() {}

    /// Idempotent; resumes the waiter, if any.
    public func fire() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            if s.fired { return nil }
            s.fired = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// Returns once `fire` has been called (at once if it has been).
    public func wait() async {
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let resumeNow: Bool = state.withLock { s in
                if s.fired { return true }
                s.waiter = cont
                return false
            }
            if resumeNow { cont.resume() }
        }
    }
}
