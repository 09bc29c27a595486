#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own, not one of a pool (BlockingWork): for work that blocks for as long as it lives
/// (a capture loop reading the sound server, a netlink watch).
public enum DedicatedThread {
    public static func start(_ body: @escaping @Sendable () -> Void) {
        var t = pthread_t()
        let box = Unmanaged.passRetained(Body(body))
        pthread_create(&t, nil, { arg in
            let b = Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue()
            b.run()
            return nil
        }, box.toOpaque())
        pthread_detach(t)
    }

    /// Carries the closure across pthread_create, once.
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
