#if canImport(Glibc)
import Glibc
#endif

/// Runs CPU-heavy work (speech decoding) on a thread of its own at the lowest priority: nice 19 and
/// SCHED_IDLE, so the socket server and sync always get the CPU first and the desktop stays responsive.
/// Never on Swift's cooperative pool or a NIO event loop, whose few threads would be held for minutes.
enum LowPriorityThread {
    static func run<T: Sendable>(_ purpose: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, any Error>) in
            let box = Unmanaged.passRetained(ThreadBody {
                Self.lowerPriority()
                cont.resume(with: Result { try body() })
            })
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            // The decoder's recursion and buffers are modest; 8 MiB is generous.
            pthread_attr_setstacksize(&attributes, 8 << 20)
            var thread = pthread_t()
            let rc = pthread_create(&thread, &attributes, { raw in
                let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
                body.run()
                return nil
            }, box.toOpaque())
            pthread_attr_destroy(&attributes)
            if rc != 0 {
                box.release()
                cont.resume(throwing: PermanentJobError("cannot start a worker thread: \(String(cString: strerror(rc)))"))
            }
        }
    }

    /// nice 19 and SCHED_IDLE for the calling thread: on Linux both `setpriority(PRIO_PROCESS, 0)` and
    /// `sched_setscheduler(0)` act on the calling thread only, not the whole process.
    static func lowerPriority() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        var param = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, schedIdle, &param)
    }

    /// SCHED_IDLE from <linux/sched.h>; Glibc's module leaves it out without _GNU_SOURCE.
    static let schedIdle: Int32 = 5
}

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
