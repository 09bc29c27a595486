import Synchronization

/// A one-shot signal from a thread to an async waiter (which may be cancelled: a continuation is not).
public final class ThreadEnd: Sendable {
    private let state = Mutex<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    public init() {}

    public func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            s.done = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    public func wait() async {
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let done: Bool = state.withLock { s in
                if s.done { return true }
                s.waiter = cont
                return false
            }
            if done { cont.resume() }
        }
    }
}
