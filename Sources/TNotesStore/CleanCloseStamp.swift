#if canImport(Glibc)
import Glibc
#endif

/// Proof that the database file is exactly as a clean close left it, so the next start can skip the
/// whole-file `PRAGMA quick_check` (0.4 s at 120 k records; it reads every page).
///
/// After a graceful stop has checkpointed the WAL into the file and closed the connection, the file's
/// identity (device, inode, size, mtime and ctime in nanoseconds) goes into `<db>-clean`. At the next
/// start the check is skipped only if the file still has that identity and no WAL holds further frames;
/// the stamp is removed before anything else happens, so after a crash, an edit, a copy, a restore or
/// a `chmod` there is no matching stamp and the full check runs. (What it cannot see is a change made
/// inside the same clock tick as the stamp, or a disk that rots bits without any write; SQLite still
/// refuses corrupt pages when it reads them, and `tnotesd --check-db` runs the full integrity check.)
public enum CleanCloseStamp {
    static func stampPath(_ dbPath: String) -> String { dbPath + "-clean" }

    static func identity(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return "v1 \(st.st_dev) \(st.st_ino) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(st.st_ctim.tv_sec).\(st.st_ctim.tv_nsec)"
    }

    static func walIsEmpty(_ dbPath: String) -> Bool {
        var st = stat()
        return stat(dbPath + "-wal", &st) != 0 || st.st_size == 0
    }

    /// Writes the stamp for a database that was just checkpointed and closed, with `facts` the closing
    /// store knew about it (`key value` lines after the identity): while the stamp matches, they still hold,
    /// so the next start can take them instead of scanning for them.
    static func write(dbPath: String, facts: [String: String] = [:]) {
        // File times come from the kernel's coarse clock: wait (a few ms at most) until it has moved past
        // the file's mtime, so that any later write gives the file a different mtime than the stamp's.
        var st = stat()
        guard stat(dbPath, &st) == 0 else { return }
        for _ in 0..<100 {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME_COARSE, &now)
            if (now.tv_sec, now.tv_nsec) > (st.st_mtim.tv_sec, st.st_mtim.tv_nsec) { break }
            usleep(1000)
        }
        guard walIsEmpty(dbPath), let id = identity(dbPath) else { return }
        let tmp = stampPath(dbPath) + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let lines = facts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        let bytes = Array((id + "\n" + lines).utf8)
        let ok = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
        close(fd)
        if ok { rename(tmp, stampPath(dbPath)) } else { unlink(tmp) }
    }

    /// The facts written with the stamp when it matches the file as it is now; nil when it does not (or
    /// there is none). Always removes the stamp: it vouches for one start only.
    static func consume(dbPath: String) -> [String: String]? {
        let path = stampPath(dbPath)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, buffer.count)
        close(fd)
        guard n > 0, let id = identity(dbPath), walIsEmpty(dbPath) else { return nil }
        let lines = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[0] == id, lines.last == "" else { return nil }
        var facts = [String: String]()
        for line in lines.dropFirst().dropLast() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            facts[String(parts[0])] = String(parts[1])
        }
        return facts
    }
}
