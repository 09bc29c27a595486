import Dispatch
import Logging
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's SQLite store. One connection, confined to one serial queue: every read and every
/// transaction runs there in turn, so SQLite is never used from two threads and blocking I/O (fsync)
/// never occupies Swift's cooperative threads.
public final class Store: @unchecked Sendable {
    public let path: String
    public let deviceId: String
    public let schemaVersion: Int
    public let migratedFrom: Int
    public let backupPath: String?

    private let queue = DispatchQueue(label: "tnotes.store")
    private var db: SQLiteConnection?
    private var clock: HybridLogicalClock
    private let logger: Logger
    private var observers: [@Sendable ([RecordChange]) -> Void] = []

    /// Opens (creating or migrating) the database at `path`. See `DatabaseFile.open` for the guarantees.
    public init(path: String, backupDirectory: String, logger: Logger,
                willMigrate: (_ from: Int, _ to: Int) -> Void = { _, _ in }) throws(DatabaseOpenError) {
        let opened = try DatabaseFile.open(path: path, backupDirectory: backupDirectory, willMigrate: willMigrate)
        self.path = path
        self.logger = logger
        self.schemaVersion = opened.schemaVersion
        self.migratedFrom = opened.migratedFrom
        self.backupPath = opened.backupPath
        let db = opened.connection
        do {
            // The device id is made once and kept for the life of the database.
            let id: String
            if let existing = try db.scalar("SELECT value FROM meta WHERE key = 'deviceId'").string {
                id = existing
            } else {
                id = Identifier.make()
                try db.run("INSERT INTO meta(key, value) VALUES ('deviceId', ?)", [.text(id)])
            }
            self.deviceId = id
            // The clock resumes from the greater of its persisted value and every stored version, so that
            // it never goes backwards across restarts, even if the meta row were lost.
            let persisted = try db.scalar("SELECT value FROM meta WHERE key = 'hlc'").string.flatMap { Int64($0) } ?? 0
            let newest = try db.scalar("SELECT max(updated_at) FROM records").string.flatMap { Timestamp.parse($0) } ?? 0
            self.clock = HybridLogicalClock(lastMillis: max(persisted, newest))
        } catch {
            throw .io(path: path, detail: "cannot read meta: \(error)")
        }
        self.db = db
    }

    /// Called after each committed write with what it changed (on the store queue; keep it quick).
    public func addObserver(_ observer: @escaping @Sendable ([RecordChange]) -> Void) {
        queue.sync { observers.append(observer) }
    }

    /// Runs `body` on the store queue without a transaction (reads).
    public func read<T: Sendable>(_ body: @escaping @Sendable (StoreSession) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, Error>) in
            queue.async {
                guard let db = self.db else { return cont.resume(throwing: StoreError.closed) }
                let session = StoreSession(db: db, store: self)
                cont.resume(with: Result { try body(session) })
            }
        }
    }

    /// Runs `body` in one transaction on the store queue: everything it writes commits together or not at all.
    public func write<T: Sendable>(_ body: @escaping @Sendable (StoreSession) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<T, Error>) in
            queue.async {
                cont.resume(with: Result { try self.writeNow(body) })
            }
        }
    }

    /// The synchronous form of `write`, for tools and tests that are not async.
    public func writeSync<T>(_ body: (StoreSession) throws -> T) throws -> T {
        try queue.sync { try writeNow(body) }
    }

    public func readSync<T>(_ body: (StoreSession) throws -> T) throws -> T {
        try queue.sync {
            guard let db = self.db else { throw StoreError.closed }
            return try body(StoreSession(db: db, store: self))
        }
    }

    private func writeNow<T>(_ body: (StoreSession) throws -> T) throws -> T {
        guard let db = self.db else { throw StoreError.closed }
        let session = StoreSession(db: db, store: self)
        let clockBefore = clock
        let result: T
        do {
            result = try db.transaction {
                let r = try body(session)
                if clock != clockBefore {
                    try db.run("INSERT INTO meta(key, value) VALUES ('hlc', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               [.text(String(clock.lastMillis))])
                }
                return r
            }
        } catch {
            throw error
        }
        if !session.changes.isEmpty {
            for o in observers { o(session.changes) }
        }
        return result
    }

    // Called from StoreSession on the queue.
    func tick() -> String { Timestamp.format(millis: clock.tick()) }
    func receive(_ updatedAt: String) { clock.receive(updatedAt) }

    /// Checkpoints the WAL and closes the connection; later calls fail with `StoreError.closed`.
    public func close() {
        queue.sync {
            guard let db else { return }
            try? db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
            self.db = nil
            _ = db
        }
    }
}

public enum StoreError: Error, CustomStringConvertible, Equatable {
    case closed
    case notFound(collection: String, id: String)
    case gone(collection: String, id: String)
    case invalid(FieldError)
    case corruptRow(String)

    public var description: String {
        switch self {
        case .closed: return "the store is closed"
        case .notFound(let c, let id): return "no \(c) record with id \(id)"
        case .gone(let c, let id): return "\(c) record \(id) is deleted"
        case .invalid(let e): return "\(e.field): \(e.reason)"
        case .corruptRow(let s): return "corrupt row: \(s)"
        }
    }
}
