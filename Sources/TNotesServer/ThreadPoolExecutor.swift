import NIOPosix

/// A task executor on threads of a `NIOThreadPool`, for async code that makes blocking calls (SQLite steps,
/// file writes, fsync): run it with `withTaskExecutorPreference(executor)` and every job of that task,
/// including default actors it awaits, runs on these threads, never on a NIO event loop or on Swift's
/// cooperative pool. With a one-thread pool the jobs also run one at a time, in order.
final class ThreadPoolExecutor: TaskExecutor, Sendable {
    private let pool: NIOThreadPool

    /// Starts a pool of its own with `threads` threads.
    init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pool.submit { _ in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` with this executor preferred.
    func run<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await withTaskExecutorPreference(self, operation: body)
    }
}
