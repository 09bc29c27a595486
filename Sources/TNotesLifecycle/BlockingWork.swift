import NIOPosix

// How blocking work leaves the NIO event loops and Swift's cooperative pool.
//
// A blocking call (a SQLite step, an fsync, a file copy or hash, a SWORD lookup, `malloc_trim`, a libcurl
// transfer) on an event loop stalls every connection of that loop, and on the cooperative pool (as many threads
// as cores: two on the machines this runs on) every task of the process. So blocking work runs elsewhere, in one
// of two ways, and only these two:
//
// 1. swift-nio's `NIOThreadPool`, for blocking calls awaited from async code:
//    - `BlockingWork.run` puts a one-off call on the process's shared pool (`NIOThreadPool.singleton`): an audio
//      import's copy, a downloaded file's sha256, a SWORD lookup, `malloc_trim` after a large sync, the store's
//      close at exit (all these used to be spread over `DispatchQueue.global()` and the singleton);
//    - work that must not queue behind those, or that needs its threads to itself, has a pool of its own: the
//      store's read connections (TNotesStore's `ReaderPool`, a thread per connection), and in the server the
//      SQLite backend and the audio uploads (`ThreadPoolExecutor` below: every job of an async body runs on its
//      threads, so its awaits never hop back onto the cooperative pool; with one thread it is also serial).
// 2. A Dispatch queue of its own, where the queue's own behaviour is the point:
//    - the store's serial write queue (TNotesStore's `Store.queue`): its connection and clock are confined to
//      it, the writes that arrive while it is busy are committed as one group, and synchronous callers (open,
//      close, the fuzz target) use `queue.sync`; all of that is built on the queue;
//    - the HTTP transport's concurrent queue (TNotesSync's `CurlTransport`): one thread per transfer for as many
//      as run at once. A long poll or a 50 MiB upload holds its thread for minutes; a fixed pool would make a
//      push wait behind them.
//
// Some work has a thread of its own instead (each says why where it starts): a processing job (TNotesProcessing's
// `LowPriorityThread`: the thread takes the job's scheduling policy and nice value, which a pool thread would keep
// for whatever ran next), and through `DedicatedThread` the work that blocks for as long as it lives, which would
// take a pool thread for good: the network monitor's netlink reader (poll(2) for the daemon's whole life), a
// recording's capture loop (PulseAudio's blocking read) and its live recogniser.

/// One-off blocking calls from async code (see the notes above): on swift-nio's shared blocking pool.
public enum BlockingWork {
    /// Runs `body` on a thread of `NIOThreadPool.singleton` and returns what it returned (or throws what it threw).
    /// The caller's task is suspended meanwhile; `body` is not cancelled with it.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}

/// A task executor on threads of a `NIOThreadPool` of its own, for async code that makes blocking calls (SQLite
/// steps, file writes, fsync): run it with `run` (`withTaskExecutorPreference`) and every job of that task,
/// including default actors it awaits, runs on these threads, never on a NIO event loop or on Swift's
/// cooperative pool. With a one-thread pool the jobs also run one at a time, in order.
public final class ThreadPoolExecutor: TaskExecutor, Sendable {
    private let pool: NIOThreadPool

    /// Starts a pool of its own with `threads` threads.
    public init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pool.submit { _ in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` with this executor preferred.
    public func run<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await withTaskExecutorPreference(self, operation: body)
    }
}
