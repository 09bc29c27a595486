import NIOPosix
import Synchronization
import TNotesSQLite

/// The store's read path: a few read-only connections, each used by one thread of a dedicated thread pool.
///
/// WAL lets every connection read beside the writer and see each committed write, so reads never queue
/// behind writes or behind each other (up to the pool's size), and a blocking SQLite step never runs on a NIO
/// event loop or on Swift's cooperative pool: the caller suspends while a pool thread does the work. Measured
/// (bench "slow reader", 4× store): with one shared reader, a `daemon.status` waited behind every
/// `sermon.list {limit: 1000}` of another connection. A `NIOThreadPool` of its own: one of the two ways blocking
/// work leaves the loops (TNotesLifecycle's BlockingWork.swift says which and why).
final class ReaderPool: Sendable {
    private let threads: NIOThreadPool
    /// Connections not in use (nil once closed). There are as many connections as threads, so a pool thread
    /// always finds one; a read holds its connection only while its body runs.
    private let idle: Mutex<[Reader]?>

    /// One read-only connection. It is only ever used by the pool thread that took it out of `idle` (the
    /// Mutex hands it over), so the connection is never touched by two threads at once.
    final class Reader: @unchecked Sendable {
        let connection: SQLiteConnection
        init(_ connection: SQLiteConnection) { self.connection = connection }
    }

    init(path: String, size: Int) throws {
        var readers: [Reader] = []
        for _ in 0..<size {
            let c = try SQLiteConnection(path: path, create: false, readOnly: true)
            try c.exec("PRAGMA cache_size=-8192;")
            readers.append(Reader(c))
        }
        idle = Mutex(readers)
        threads = NIOThreadPool(numberOfThreads: size)
        threads.start()
    }

    /// Runs `body` in one read transaction (a consistent snapshot) on a pool thread.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        do {
            return try await threads.runIfActive {
                guard let reader = self.idle.withLock({ $0?.popLast() }) else { throw StoreError.closed }
                defer { self.idle.withLock { $0?.append(reader) } }
                let conn = reader.connection
                try conn.exec("BEGIN")
                defer { try? conn.exec("COMMIT") }
                return try body(conn)
            }
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            throw StoreError.closed
        }
    }

    /// Closes every idle connection now; one in use closes when its read ends. Waits for the threads to end.
    func close() {
        idle.withLock { $0 = nil }
        try? threads.syncShutdownGracefully()
    }
}
