import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for tests: initdb in a temp dir, listening on loopback only, on a free
/// port, trust auth. One per test process (started on first use, stopped at exit); each test makes its
/// own database with `makeDatabase()`. PostgreSQL refuses to run as root, so as root it runs as the
/// `postgres` system user that Debian's package creates.
/// Unchecked because: `dir`, `port` and `bin` are fixed in `init` (run once, by a static initialiser), and the
/// one mutable field, `counter`, is read and written only under `lock`.
public final class PostgresServer: @unchecked Sendable {
    /// For tests: `fsync=off` (nothing here needs to survive a power cut, and tests run faster).
    public static let shared: Result<PostgresServer, HarnessError> = make(fsync: false)
    /// For the benchmark: PostgreSQL's defaults (`fsync=on`, synchronous commit), so its figures compare
    /// with the SQLite backend's `synchronous=FULL`. Its WAL is warmed first (`warmWAL`).
    public static let durable: Result<PostgresServer, HarnessError> = make(fsync: true)

    private static func make(fsync: Bool) -> Result<PostgresServer, HarnessError> {
        do {
            let s = try PostgresServer(fsync: fsync)
            if fsync { try s.warmWAL() }
            if started.withLock({ $0.count }) == 1 { atexit { PostgresServer.stopShared() } }
            return .success(s)
        } catch let e as HarnessError {
            return .failure(e)
        } catch {
            return .failure(HarnessError("\(error)"))
        }
    }

    public let dir: String
    public let port: Int
    private let bin: String
    private let lock = NSLock()
    private var counter = 0

    private static let started = Mutex<[PostgresServer]>([])

    static func stopShared() {
        for s in started.withLock({ $0 }) { s.stop() }
    }

    init(fsync: Bool) throws {
        guard let bin = Self.findBin() else { throw HarnessError("PostgreSQL binaries not found (apt-get install postgresql)") }
        self.bin = bin
        let base = TempDirectory("tnpg")
        // The temp dir object would delete the folder when it goes; keep the cluster until exit instead.
        dir = base.path + "-cluster"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        port = Self.freePort()
        if getuid() == 0 {
            _ = try ProcessRunner.run("/bin/chown", ["-R", "postgres:postgres", dir])
        }
        let initdb = try Self.runAsPostgres("\(bin)/initdb", ["-D", "\(dir)/data", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
        guard initdb.status == 0 else { throw HarnessError("initdb failed: \(initdb.stderr)") }
        // min_wal_size: the durable cluster keeps the segments `warmWAL` leaves (the default keeps 80 MB).
        let opts = "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories=\(dir) -c fsync=\(fsync ? "on" : "off") -c max_connections=200"
            + (fsync ? " -c min_wal_size=1GB" : "")
        let args = ["-D", "\(dir)/data", "-l", "\(dir)/pg.log", "-o", opts, "-w", "-t", "60", "start"]
        let status = getuid() == 0
            ? try ProcessRunner.runDetached("/usr/sbin/runuser", ["-u", "postgres", "--", "\(bin)/pg_ctl"] + args,
                                            logFile: "\(dir)/pg_ctl.out")
            : try ProcessRunner.runDetached("\(bin)/pg_ctl", args, logFile: "\(dir)/pg_ctl.out")
        guard status == 0 else {
            let log = (try? String(contentsOfFile: "\(dir)/pg.log", encoding: .utf8)) ?? ""
            throw HarnessError("pg_ctl start failed (\(status)): \(log)")
        }
        Self.started.withLock { $0.append(self) }
    }

    /// Gives the cluster WAL segments to recycle, as a server that has been running has. A cluster made a
    /// moment ago has none: its first large write created each 16 MiB segment, zero-filled and fsynced, while
    /// it ran, which cost the benchmark's first PostgreSQL full sync 6.2 s against 5.3-5.4 s once warm (and
    /// 5.3 s with `wal_init_zero=off`). A 560 MB table written and dropped leaves about 35 segments that a
    /// checkpoint recycles; `min_wal_size` (set at start) keeps them.
    func warmWAL() throws {
        let warm = try Self.runAsPostgres("\(bin)/psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-v", "ON_ERROR_STOP=1",
                                                          "-c", "CREATE TABLE wal_warmup AS SELECT g, repeat('x', 900) AS pad FROM generate_series(1, 600000) AS g",
                                                          "-c", "DROP TABLE wal_warmup", "-c", "CHECKPOINT"])
        guard warm.status == 0 else { throw HarnessError("warming the WAL failed: \(warm.stderr)") }
    }

    /// A new empty database; returns its URL.
    public func makeDatabase() throws -> String {
        lock.lock()
        counter += 1
        let name = "t\(getpid())_\(counter)"
        lock.unlock()
        try admin("CREATE DATABASE \(name)")
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Runs one SQL statement in the database of `url` (made by `makeDatabase`); its output, unaligned.
    public func sql(_ url: String, _ statement: String) throws -> String {
        let r = try Self.runAsPostgres("\(bin)/psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", Self.name(of: url),
                                                       "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", statement])
        guard r.status == 0 else { throw HarnessError("psql failed: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Drops the database of `url` and creates it again, empty, under the same URL (nothing may be connected).
    public func recreateDatabase(_ url: String) throws {
        try dropDatabase(url)
        try admin("CREATE DATABASE \(Self.name(of: url))")
    }

    /// Drops the database of `url` (made by `makeDatabase`), closing any connection still open to it.
    public func dropDatabase(_ url: String) throws {
        try admin("DROP DATABASE \(Self.name(of: url)) WITH (FORCE)")
    }

    /// Runs one statement on the cluster's maintenance database (creating and dropping databases).
    private func admin(_ statement: String) throws {
        let r = try Self.runAsPostgres("\(bin)/psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-c", statement])
        guard r.status == 0 else { throw HarnessError("\(statement) failed: \(r.stderr)") }
    }

    /// The database name of a URL made by `makeDatabase` (its last path component).
    static func name(of url: String) -> String { String(url.split(separator: "/").last ?? "") }

    func stop() {
        _ = try? Self.runAsPostgres("\(bin)/pg_ctl", ["-D", "\(dir)/data", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: dir)
    }

    static func findBin() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        for v in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/initdb") {
            return "\(root)/\(v)/bin"
        }
        return nil
    }

    static func runAsPostgres(_ exe: String, _ args: [String]) throws -> ProcessResult {
        if getuid() == 0 {
            return try ProcessRunner.run("/usr/sbin/runuser", ["-u", "postgres", "--", exe] + args, timeout: 120)
        }
        return try ProcessRunner.run(exe, args, timeout: 120)
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
