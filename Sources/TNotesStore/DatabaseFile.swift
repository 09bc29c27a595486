import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// Why a database could not be opened. Whatever the reason, the file on disk has not been changed.
public enum DatabaseOpenError: Error, CustomStringConvertible, Sendable {
    case notADatabase(path: String, detail: String)
    case corrupt(path: String, detail: String)
    case tooNew(path: String, version: Int, supported: Int)
    case migrationFailed(path: String, version: Int, detail: String, backup: String?)
    case backupFailed(path: String, detail: String)
    case io(path: String, detail: String)

    public var description: String {
        switch self {
        case .notADatabase(let path, let detail):
            return "\(path) is not a SQLite database (\(detail)); it was left untouched. Move it aside or restore a backup."
        case .corrupt(let path, let detail):
            return "\(path) failed its integrity check (\(detail)); it was left untouched. Restore a backup from the backups/ folder beside it."
        case .tooNew(let path, let version, let supported):
            return "\(path) has schema version \(version), newer than this tnotesd supports (\(supported)); it was left untouched. Upgrade tnotesd."
        case .migrationFailed(let path, let version, let detail, let backup):
            return "\(path): migration to schema version \(version) failed (\(detail)); the database was rolled back and left as it was"
                + (backup.map { "; a backup is at \($0)" } ?? "")
        case .backupFailed(let path, let detail):
            return "\(path): could not write the pre-migration backup (\(detail)); nothing was migrated"
        case .io(let path, let detail):
            return "\(path): \(detail)"
        }
    }
}

/// Opens the store's database file safely: checks it before touching it, backs it up before any
/// migration, migrates step by step in transactions, and never deletes or recreates a user's database.
public enum DatabaseFile {
    public struct Opened {
        public let connection: SQLiteConnection
        public let schemaVersion: Int
        public let migratedFrom: Int
        public let backupPath: String?
        /// Whether `PRAGMA quick_check` read the file (false for a new file, and for one unchanged since a clean close).
        public let quickChecked: Bool
        /// What the last clean close recorded about the file (see `CleanCloseStamp`); nil when the file is
        /// not exactly as that close left it.
        public let cleanCloseFacts: [String: String]?
    }

    public static func open(path: String, backupDirectory: String, now: () -> String = { Timestamp.now() },
                            willMigrate: (_ from: Int, _ to: Int) -> Void = { _, _ in })
        throws(DatabaseOpenError) -> Opened
    {
        let exists = access(path, F_OK) == 0
        if exists { try checkHeader(path: path) }
        // A file untouched since a clean close need not be read whole again (see CleanCloseStamp).
        let cleanCloseFacts = exists ? CleanCloseStamp.consume(dbPath: path) : nil
        let unchangedSinceCleanClose = cleanCloseFacts != nil
        let db: SQLiteConnection
        do {
            db = try SQLiteConnection(path: path, create: !exists)
        } catch {
            throw .io(path: path, detail: "cannot open: \(error)")
        }
        let version: Int
        var quickChecked = false
        do {
            version = Int(try db.scalar("PRAGMA user_version").int ?? 0)
            if exists && (!unchangedSinceCleanClose || version < Migrations.latestVersion) {
                quickChecked = true
                let check = try db.query("PRAGMA quick_check").compactMap { $0[0].string }
                if check != ["ok"] {
                    throw DatabaseOpenError.corrupt(path: path, detail: check.prefix(3).joined(separator: "; "))
                }
            }
        } catch let e as DatabaseOpenError {
            throw e
        } catch let e as SQLiteError {
            if e.isCorruption { throw .corrupt(path: path, detail: e.message) }
            throw .io(path: path, detail: e.description)
        } catch {
            throw .io(path: path, detail: "\(error)")
        }
        if version > Migrations.latestVersion {
            throw .tooNew(path: path, version: version, supported: Migrations.latestVersion)
        }

        var backup: String?
        if version < Migrations.latestVersion { willMigrate(version, Migrations.latestVersion) }
        if version > 0 && version < Migrations.latestVersion {
            backup = try makeBackup(db: db, path: path, directory: backupDirectory, version: version, stamp: now())
        }
        for step in Migrations.all where step.version > version {
            do {
                try db.transaction {
                    try db.exec(step.sql)
                    try step.edit?(db)
                    try db.exec("PRAGMA user_version = \(step.version)")
                }
            } catch {
                throw .migrationFailed(path: path, version: step.version, detail: "\(error)", backup: backup)
            }
        }
        do {
            // WAL: readers never block the writer; synchronous=FULL: an acknowledged write survives power loss.
            // A page cache of up to 32 MiB (SQLite's default is 2 MiB): with random UUID keys a sync batch
            // touches pages all over the file, and every miss is a read system call. It only grows as used.
            // temp_store=MEMORY: a group commit gives each write a savepoint, and SQLite keeps the pages a
            // savepoint would restore in a statement journal, a temporary file once past 64 KiB. A bulk import
            // of 22 k notes wrote 128 k pages to that file (a page number and a page each, 33 pwrite calls per
            // note against 2.3 for the WAL). It only lives until the savepoint is released: memory is enough.
            // secure_delete=FAST: Debian builds SQLite with secure_delete on, which also writes every page a
            // delete frees, as zeros, to the WAL. Settling a pushed batch (deleting its 500 outbox entries)
            // wrote 109 frames, against 49 with FAST (which still zeroes deleted content in every page the
            // write touches anyway): the device's settling was the 1x push's critical path. What a delete
            // removes lives on in history and in the server's log by design, so the zeroed free pages
            // protected nothing.
            try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY; PRAGMA secure_delete=FAST;")
        } catch {
            throw .io(path: path, detail: "cannot set pragmas: \(error)")
        }
        // Small commits wrap the WAL inside the space the store reserves (Store.reserveWAL); large ones (a
        // pull's pages) let it grow to 10 000 pages first (see CheckpointPolicy).
        db.setCheckpointPolicy(CheckpointPolicy(smallCommitsAt: Int32(walCheckpointPages), anyCommitsAt: 10_000, smallCommit: 64))
        return Opened(connection: db, schemaVersion: Migrations.latestVersion, migratedFrom: version, backupPath: backup,
                      quickChecked: quickChecked,
                      // A migration changes the file: what the stamp said of it no longer counts.
                      cleanCloseFacts: version == Migrations.latestVersion ? cleanCloseFacts : nil)
    }

    /// Refuses, before SQLite sees it, a non-empty file whose header is not SQLite's.
    static func checkHeader(path: String) throws(DatabaseOpenError) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, detail: "cannot read: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        let n = read(fd, &header, 16)
        if n == 0 { return }  // an empty file is a new database
        let magic = Array("SQLite format 3\0".utf8)
        if n != 16 || header != magic {
            throw .notADatabase(path: path, detail: "bad header")
        }
    }

    static func makeBackup(db: SQLiteConnection, path: String, directory: String, version: Int, stamp: String)
        throws(DatabaseOpenError) -> String
    {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .backupFailed(path: path, detail: "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        let safeStamp = String(stamp.map { $0 == ":" ? "-" : $0 })
        let target = "\(directory)/tnotes-v\(version)-\(safeStamp).sqlite"
        do {
            try db.run("VACUUM INTO ?", [.text(target)])
        } catch {
            throw .backupFailed(path: path, detail: "\(error)")
        }
        return target
    }

    /// Pages of WAL after which a small commit checkpoints it (see `CheckpointPolicy`).
    static let walCheckpointPages = 1000

    /// `PRAGMA integrity_check` on an existing file, for `tnotesd --check-db`. Opens without creating.
    public static func integrityCheck(path: String) -> (ok: Bool, report: [String]) {
        guard access(path, F_OK) == 0 else { return (false, ["\(path): no such file"]) }
        do { try checkHeader(path: path) } catch { return (false, [error.description]) }
        do {
            let db = try SQLiteConnection(path: path, create: false)
            let version = try db.scalar("PRAGMA user_version").int ?? 0
            let rows = try db.query("PRAGMA integrity_check").compactMap { $0[0].string }
            let ok = rows == ["ok"]
            var report = ["schema version \(version) (this tnotesd: \(Migrations.latestVersion))"]
            report += rows.map { "integrity_check: \($0)" }
            if ok {
                for c in ["sermons", "notes", "transcripts", "summaries", "chatMessages"] {
                    let n = try db.scalar("SELECT count(*) FROM records WHERE collection = ?", [.text(c)]).int ?? 0
                    report.append("\(c): \(n)")
                }
                if version >= 1 {
                    let q = try db.scalar("SELECT count(*) FROM outbox").int ?? 0
                    report.append("outbox: \(q)")
                }
            }
            return (ok, report)
        } catch {
            return (false, ["\(error)"])
        }
    }
}

import TNotesCore
import TNotesSQLite
