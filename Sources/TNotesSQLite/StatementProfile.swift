import CSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where a process's SQLite time goes, statement by statement: with `TNOTES_SQL_PROFILE=1` in the
/// environment every connection reports each finished statement's run time (SQLite's own
/// `SQLITE_TRACE_PROFILE`), summed by SQL text, and the totals go to stderr when the process exits.
/// Off by default (no callback is registered). Made for `perf`'s blind spot: Debian's libsqlite3 has no
/// symbols, so a profile shows the writer's SQLite time as one opaque block.
enum StatementProfile {
    struct Entry {
        var nanoseconds: Int64 = 0
        var runs = 0
    }

    static let enabled: Bool = getenv("TNOTES_SQL_PROFILE").map { String(cString: $0) == "1" } ?? false
    private static let totals = Mutex<[String: Entry]>([:])
    private static let reportAtExit: Void = { atexit { StatementProfile.report() } }()

    static func attach(_ db: OpaquePointer) {
        guard enabled else { return }
        _ = reportAtExit
        sqlite3_trace_v2(db, UInt32(SQLITE_TRACE_PROFILE), { _, _, stmt, elapsed in
            guard let stmt, let elapsed, let sql = sqlite3_sql(OpaquePointer(stmt)) else { return 0 }
            let ns = elapsed.assumingMemoryBound(to: Int64.self).pointee
            let text = String(cString: sql)
            StatementProfile.totals.withLock { totals in
                var e = totals[text, default: Entry()]
                e.nanoseconds += ns
                e.runs += 1
                totals[text] = e
            }
            return 0
        }, nil)
    }

    static func report() {
        let entries = totals.withLock { $0 }.sorted { $0.value.nanoseconds > $1.value.nanoseconds }
        let all = entries.reduce(0) { $0 + $1.value.nanoseconds }
        var out = "SQL profile: \(entries.count) statements, \(all / 1_000_000) ms in all\n"
        for (sql, e) in entries.prefix(25) {
            let oneLine = sql.split(separator: "\n").map { $0.drop { $0 == " " } }.joined(separator: " ")
            out += "\(e.nanoseconds / 1_000_000) ms  \(e.runs)×  \(e.runs > 0 ? e.nanoseconds / Int64(e.runs) / 1000 : 0) µs  \(oneLine.prefix(160))\n"
        }
        _ = out.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
