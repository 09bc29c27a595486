import Foundation
import Synchronization
import Logging
import TNotesClient
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// The runs and figures of tnotes-bench (`BenchCommand` is its entry point).
struct Bench {
    let bin: String
    let dir: String
    let quick: Bool
    let only: Set<String>?
    /// Leave every store for a look afterwards (else each goes once measured).
    let keep: Bool
    /// Free memory taken into the page cache before each timed sync (nil: not filled).
    let pageCacheFill: PageCacheFill?

    /// The children's log level: warning (quiet) unless TNOTES_BENCH_LOG says otherwise (e.g. info, for timings).
    var logLevel: String { ProcessInfo.processInfo.environment["TNOTES_BENCH_LOG"] ?? "warning" }

    func wants(_ section: String) -> Bool { only?.contains(section) ?? true }

    init(quick: Bool, only: Set<String>? = nil, keep: Bool = false, fillsPageCache: Bool = false) throws {
        self.only = only
        self.keep = keep
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        bin = (exe as NSString).deletingLastPathComponent
        for b in ["tnotesd", "tnotes-server"] where !FileManager.default.isExecutableFile(atPath: "\(bin)/\(b)") {
            throw BenchError("\(bin)/\(b) is missing: build the whole package first")
        }
        var template = Array("/tmp/tnbench-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        dir = String(cString: p!)
        self.quick = quick
        pageCacheFill = fillsPageCache ? PageCacheFill(path: "\(dir)/page-cache-fill") : nil
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: dir) }
    func cleanup(scale: Int) { try? FileManager.default.removeItem(atPath: "\(dir)/scale\(scale)") }

    /// Before a timed sync: free memory into the page cache (untimed; see `PageCacheFill` for why).
    func fillPageCache() throws {
        guard let pageCacheFill else { return }
        let gib = 1_073_741_824.0
        let free = Double(PageCacheFill.freeBytes() ?? 0) / gib
        var read = 0
        let seconds = try timed { read = try pageCacheFill.fill() }
        say(String(format: "  page cache fill: %.1f GiB free, %.1f GiB read in %.1f s, %.1f GiB free now", free, Double(read) / gib,
                   seconds, Double(PageCacheFill.freeBytes() ?? 0) / gib))
    }

    // MARK: 1. Durable writes

    func durableWrites(count: Int) throws -> [Figure] {
        let d = "\(dir)/writes"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        // The physical limit: single-row transactions with the daemon's PRAGMAs, on the same disk. Measured
        // before and after the daemon's runs and averaged: the disk's fsync time drifts (writeback of other
        // work), and a baseline taken at one moment only would favour or punish whichever ran then.
        let rawBefore = try rawSQLiteWrites(count: count, path: "\(d)/raw-before.sqlite")
        let daemon = try Child("\(bin)/tnotesd", ["--data-dir", "\(d)/data", "--socket", "\(d)/s.sock", "--log-level", logLevel],
                               log: "\(d)/log")
        defer { daemon.stop() }
        try Wait.forSocket("\(d)/s.sock")
        // Local-only (no server configured, the quick start's daemon), empty: libcurl, PocketSphinx and SWORD
        // are not loaded until used, so this is the daemon at rest.
        usleep(500_000)
        let startRss = daemon.rssKiB
        // Idle is after the daemon has been quiet for IdleMemoryRelease's 5 s: then it has given back the
        // pages only its start-up used. Nothing here talks to it meanwhile.
        usleep(6_500_000)
        let idleRss = daemon.rssKiB
        let (oneRate, eightRate) = try noteAddRates(socket: "\(d)/s.sock", count: count)
        let updateRate = try noteUpdateRate(socket: "\(d)/s.sock", count: count)
        let rawAfter = try rawSQLiteWrites(count: count, path: "\(d)/raw-after.sqlite")
        let rawRate = (Double(count) / rawBefore + Double(count) / rawAfter) / 2
        return [
            Figure(name: "durable note.add, 1 client", value: oneRate, unit: "writes/s", baseline: rawRate,
                   baselineName: Self.rawWriteBaseline, target: "≥ 50 % of raw", higherIsBetter: true),
            Figure(name: "durable note.add, 8 clients", value: eightRate, unit: "writes/s", baseline: rawRate,
                   baselineName: Self.rawWriteBaseline, target: "≥ 50 % of raw", higherIsBetter: true),
            // An update replaces a version, so it also writes that version to the history (contract §6.3): the
            // difference to note.add, which replaces nothing, is what the history costs.
            Figure(name: "durable note.update (history insert included), 1 client", value: updateRate, unit: "writes/s",
                   baseline: oneRate, baselineName: "durable note.add, 1 client (no history insert)", target: nil,
                   higherIsBetter: true),
            Figure(name: "tnotesd RSS idle, local-only, empty store", value: Double(idleRss) / 1024, unit: "MiB",
                   target: "< 25 MB", higherIsBetter: false),
            Figure(name: "tnotesd RSS 0.5 s after start (not yet idle), local-only, empty store", value: Double(startRss) / 1024,
                   unit: "MiB", target: nil, higherIsBetter: false),
        ]
    }

    /// `note.update` per second, one client, each replacing the version before it (one history row each).
    func noteUpdateRate(socket: String, count: Int) throws -> Double {
        let c = try RPCConnection(path: socket)
        let sid = try c.call("sermon.create", ["title": "bench updates"])["id"]!
        let id = try c.call(NoteAdd.self, .init(sermonId: sid.stringValue ?? "", text: "v0", timestamp: 0))[field: \Note.id]!
        let t = try timed {
            for i in 0..<count { _ = try c.call("note.update", ["id": id, "text": .string("version \(i)")]) }
        }
        return Double(count) / t
    }

    /// `note.add` per second through the daemon at `socket`: one client in turn, then 8 at once.
    func noteAddRates(socket: String, count: Int) throws -> (one: Double, eight: Double) {
        let c = try RPCConnection(path: socket)
        let sid = try c.call("sermon.create", ["title": "bench"])["id"]!
        let one = try timed {
            for i in 0..<count { _ = try c.call(NoteAdd.self, .init(sermonId: sid.stringValue ?? "", text: "note \(i)", timestamp: Double(i))) }
        }
        let clients = 8
        let per = count / clients
        let errors = ErrorBox()
        let eight = try timed {
            DispatchQueue.concurrentPerform(iterations: clients) { k in
                do {
                    let cc = try RPCConnection(path: socket)
                    for i in 0..<per {
                        _ = try cc.call(NoteAdd.self, .init(sermonId: sid.stringValue ?? "", text: "c\(k) \(i)", timestamp: Double(i)))
                    }
                } catch { errors.set("\(error)") }
            }
        }
        if let e = errors.value { throw BenchError(e) }
        return (Double(count) / one, Double(per * clients) / eight)
    }

    static let rawWriteBaseline = "raw SQLite single-row txns (WAL, synchronous=FULL), before and after"

    func rawSQLiteWrites(count: Int, path: String) throws -> Double {
        let db = try SQLiteConnection(path: path, create: true)
        try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t(id TEXT PRIMARY KEY, body TEXT)")
        return try timed {
            for i in 0..<count {
                try db.transaction { try db.run("INSERT INTO t VALUES (?, ?)", [.text(Identifier.make()), .text("{\"text\":\"note \(i)\"}")]) }
            }
        }
    }

    // MARK: 2–5 at one scale

    func scaleRun(sizes: Sizes, scale: Int, postgres: PostgresDatabases, quick: Bool, rawWriteRate: Double?) throws -> [Figure] {
        var figures = [Figure]()
        let d = "\(dir)/scale\(scale)"
        try FileManager.default.createDirectory(atPath: "\(d)/a", withIntermediateDirectories: true)
        let seedTime = try timed { try Seeder.seed(dataDir: "\(d)/a/data", sizes: sizes) }
        say("  seeded device A in \(String(format: "%.1f", seedTime)) s")
        let records = sizes.sermons * 2 + sizes.notes

        // Start time with the seeded store: the first open reads the whole file (PRAGMA quick_check), as
        // after a crash; a restart after a clean stop (the usual case) may skip that (CleanCloseStamp).
        func startA() throws -> (Child, Double) {
            let t0 = Date()
            let child = try Child("\(bin)/tnotesd", ["--data-dir", "\(d)/a/data", "--socket", "\(d)/a.sock", "--log-level", logLevel],
                                  log: "\(d)/a.log")
            try Wait.forSocket("\(d)/a.sock")
            return (child, Date().timeIntervalSince(t0) * 1000)
        }
        // As after a crash: no clean-close stamp, so the first start reads the whole file.
        unlink("\(d)/a/data/tnotes.sqlite-clean")
        let (first, checkedMs) = try startA()
        first.stop()
        let (a, startMs) = try startA()
        figures.append(Figure(name: "start to accepting, \(records) records, after a clean stop (\(scale)×)", value: startMs,
                              unit: "ms", target: "< 300 ms at 100 k records", higherIsBetter: false))
        figures.append(Figure(name: "start to accepting, \(records) records, whole-file check (first open or after a crash) (\(scale)×)",
                              value: checkedMs, unit: "ms", target: nil, higherIsBetter: false))

        if wants("reads") {
            // Reads.
            let ids = try Seeder.sermonIds(dataDir: "\(d)/a/data", limit: 500)
            let c = try RPCConnection(path: "\(d)/a.sock")
            var lat = [Double]()
            for i in 0..<(quick ? 500 : 3000) {
                let id = ids[i % ids.count]
                let t = Date()
                _ = try c.call("sermon.get", ["id": .string(id)])
                lat.append(Date().timeIntervalSince(t) * 1000)
            }
            lat.sort()
            figures.append(Figure(name: "sermon.get p50 (\(scale)×)", value: lat[lat.count / 2], unit: "ms", target: nil, higherIsBetter: false))
            figures.append(Figure(name: "sermon.get p99 (\(scale)×)", value: lat[Int(Double(lat.count) * 0.99)], unit: "ms",
                                  target: "< 1 ms at 10 k sermons", higherIsBetter: false))
            let n = quick ? 5000 : 40000
            let request: JSON = ["jsonrpc": "2.0", "id": 1, "method": "sermon.get", "params": ["id": .string(ids[0])]]
            let pipelined = try pipeline(path: "\(d)/a.sock", line: request.bytes + [0x0A], count: n)
            let echo = try EchoServer(path: "\(d)/echo.sock")
            let echoRate = try pipeline(path: "\(d)/echo.sock", line: request.bytes + [0x0A], count: n)
            echo.stop()
            figures.append(Figure(name: "pipelined sermon.get, 1 connection (\(scale)×)", value: pipelined, unit: "req/s",
                                  baseline: echoRate, baselineName: "bare echo over a Unix socket", target: "≥ 20 000 req/s",
                                  higherIsBetter: true))
            figures.append(try slowReader(socket: "\(d)/a.sock", scale: scale, calls: quick ? 300 : 2000))
            figures.append(contentsOf: try searchFigures(socket: "\(d)/a.sock", dataDir: "\(d)/a/data", scale: scale,
                                                         notes: sizes.notes, transcripts: sizes.sermons))
            if scale == 1 { figures.append(contentsOf: try backupRates(socket: "\(d)/a.sock", dir: d, records: records)) }
        }
        a.stop()

        // Full sync A → server → B, on SQLite and (if given) PostgreSQL.
        if wants("sync") {
            figures.append(contentsOf: try fullSync(dir: d, sizes: sizes, scale: scale, backend: "SQLite", database: nil))
            if !postgres.isEmpty {
                let url = try postgres.fresh()
                defer { postgres.release(url) }
                figures.append(contentsOf: try fullSync(dir: d, sizes: sizes, scale: scale, backend: "PostgreSQL", database: url))
            }
        }

        // Durable writes into the seeded store (last: the notes it adds must not count in the sync above).
        if wants("writes") {
            let count = quick ? 300 : 2000
            let raw = try rawWriteRate ?? Double(count) / rawSQLiteWrites(count: count, path: "\(d)/raw.sqlite")
            let (w, _) = try startA()
            defer { w.stop() }
            let (one, eight) = try noteAddRates(socket: "\(d)/a.sock", count: count)
            figures.append(Figure(name: "durable note.add into \(records) records, 1 client (\(scale)×)", value: one, unit: "writes/s",
                                  baseline: raw, baselineName: Self.rawWriteBaseline, target: "≥ 50 % of raw", higherIsBetter: true))
            figures.append(Figure(name: "durable note.add into \(records) records, 8 clients (\(scale)×)", value: eight, unit: "writes/s",
                                  baseline: raw, baselineName: Self.rawWriteBaseline, target: "≥ 50 % of raw", higherIsBetter: true))
            if scale == 1 { figures.append(try bulkImport(sizes: sizes)) }
        }
        return figures
    }

    func pipeline(path: String, line: [UInt8], count: Int) throws -> Double {
        let s = try RPCConnection(path: path)
        var lines = [UInt8]()
        for _ in 0..<200 { lines += line }
        let batch = lines
        // One thread writes while this one reads the answers: the connection's `writer` only sends.
        let out = s.writer
        return try Double(count) / timed {
            let writer = Thread {
                var sent = 0
                while sent < count {
                    guard (try? out.send(batch)) != nil else { return }
                    sent += 200
                }
            }
            writer.start()
            var got = 0
            let total = ((count + 199) / 200) * 200
            while got < total {
                guard (try? s.readLine()) != nil else { throw BenchError("connection closed during pipelining") }
                got += 1
            }
        }
    }
}

func timed(_ body: () throws -> Void) throws -> Double {
    let t = Date()
    try body()
    return Date().timeIntervalSince(t)
}

final class ErrorBox: Sendable {
    private let v = Mutex<String?>(nil)
    var value: String? { v.withLock { $0 } }
    func set(_ s: String) { v.withLock { $0 = s } }
}

/// print, flushed at once: progress lines appear as they happen, also when output goes to a file.
func say(_ text: String = "") {
    print(text)
    fflush(nil)
}
