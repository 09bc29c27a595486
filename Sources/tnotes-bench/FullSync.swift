import Foundation
import Synchronization
import Logging
import TNotesClient
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// The full sync A → server → B on one backend (`fullSync`), its raw baseline, and the waits
/// for a device's sync to finish.
extension Bench {
    /// Starts a sync and waits until a sync that began after the call has finished with nothing pending.
    static func syncToCompletion(_ c: RPCConnection, timeout: Double = 1800) throws {
        let before = try c.call("sync.status")["lastSuccessAt"] ?? .null
        _ = try c.call("sync.now", ["wait": false])
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let s = try c.call("sync.status")
            if s["state"] == "idle", s["pendingOps"]?.int64Value == 0, let last = s["lastSuccessAt"], !last.isNull, last != before {
                return
            }
            usleep(20_000)
        }
        throw BenchError("sync did not finish within \(timeout) s")
    }

    /// Waits until the device has pushed everything (nothing pending, idle, a sync has succeeded).
    static func waitDrained(_ c: RPCConnection, timeout: Double = 1800) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let s = try c.call("sync.status")
            if s["state"] == "idle", s["pendingOps"]?.int64Value == 0, !(s["lastSuccessAt"]?.isNull ?? true) { return }
            usleep(20_000)
        }
        throw BenchError("the outbox did not drain within \(timeout) s")
    }

    func fullSync(dir d: String, sizes: Sizes, scale: Int, backend: String, database: String?) throws -> [Figure] {
        let sd = "\(d)/server-\(backend)"
        try? FileManager.default.removeItem(atPath: sd)
        try FileManager.default.createDirectory(atPath: sd, withIntermediateDirectories: true)
        // This run's stores (A's copy, B, the SQLite server's database: 14 GB at 16×) go once it is measured,
        // after its processes stop (deferred first, so it runs last): kept, they held the page cache that the
        // next backend's run needs.
        defer { if !keep { try? FileManager.default.removeItem(atPath: sd) } }
        var storage = ["--data-dir", sd]
        if let database { storage += ["--database", database] }
        let token = try run("\(bin)/tnotes-server", ["user", "add", "--token"] + storage + ["bench\(scale)\(Int.random(in: 0..<1_000_000))"])
            .split(separator: "\n").last.map(String.init) ?? ""
        let server = try Child("\(bin)/tnotes-server", ["serve"] + storage + ["--port", "0", "--rate-limit", "0", "--log-level", logLevel], log: "\(sd)/log")
        defer { server.stop() }
        let line = try Wait.forLine(in: "\(sd)/log", containing: "listening on http://")
        let url = String(line[line.range(of: "http://")!.lowerBound...].prefix { $0 != " " })

        // Free memory into the page cache first, so the fill is the oldest cache and what the sync needs later is
        // reclaimed from it rather than from A's fresh copy. Filled after the copy (the first try), the 1× push
        // ran at 48 k changes/s against 57 k.
        try fillPageCache()
        // Fresh copies of A (seeded) and an empty B.
        let a = "\(sd)/A", b = "\(sd)/B"
        try FileManager.default.createDirectory(atPath: a, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(d)/a/data", toPath: "\(a)/data")
        // The copy is a new file, so its first open reads it whole (quick_check: seconds at 16×). That belongs
        // to the start figures, not to the sync: one untimed local-only start and clean stop stamps the copy.
        let prep = try Child("\(bin)/tnotesd", ["--data-dir", "\(a)/data", "--socket", "\(sd)/a-prep.sock", "--log-level", logLevel],
                             log: "\(sd)/a-prep.log")
        try Wait.forSocket("\(sd)/a-prep.sock")
        prep.stop()
        // Realtime off: B pulls once A has pushed everything, so push and pull are timed apart (as before).
        let config = "[sync]\nserver_url = \"\(url)\"\ninterval = 3600\nrealtime = false\n"
        try Data(config.utf8).write(to: URL(fileURLWithPath: "\(sd)/tnotesd.toml"))
        let env = ["TNOTES_TOKEN": token]
        // B first (empty, for the idle figure); then A, timed from its start: its startup sync pushes at once.
        let db = try Child("\(bin)/tnotesd", ["--config", "\(sd)/tnotesd.toml", "--data-dir", "\(b)/data", "--socket", "\(sd)/b.sock",
                                              "--log-level", logLevel], env: env, log: "\(sd)/b.log")
        defer { db.stop() }
        try Wait.forSocket("\(sd)/b.sock")
        let cb = try RPCConnection(path: "\(sd)/b.sock")
        // The setup's own writes (A's store copied just now, 280 MB at 1×, and the previous backend's stores)
        // go to disk before the timer starts, not during the sync: written back meanwhile they held up every
        // fsync of it. 1.5 GB left dirty added ~0.5 s to a PostgreSQL full sync of 5.3-5.5 s.
        sync()
        usleep(500_000)
        let startRss = db.rssKiB
        // Idle: after IdleMemoryRelease's 5 s without requests, commits or jobs (see durableWrites).
        usleep(6_500_000)
        let idleRss = db.rssKiB
        let serverCPU0 = server.cpuSeconds
        let pushStart = Date()
        let da = try Child("\(bin)/tnotesd", ["--config", "\(sd)/tnotesd.toml", "--data-dir", "\(a)/data", "--socket", "\(sd)/a.sock",
                                              "--log-level", logLevel], env: env, log: "\(sd)/a.log")
        defer { da.stop() }
        try Wait.forSocket("\(sd)/a.sock")
        let ca = try RPCConnection(path: "\(sd)/a.sock")
        try Self.waitDrained(ca)
        let pushTime = Date().timeIntervalSince(pushStart)
        let (serverCPU1, bCPU1) = (server.cpuSeconds, db.cpuSeconds)
        let pullTime = try timed { try Self.syncToCompletion(cb) }
        // The pull leaves its search rows to a catch-up after the last page; a search waits for what is left.
        // Meanwhile a note.add every 10 ms on another connection: a write must not wait behind the catch-up
        // (issue #57: p99 < 100 ms).
        let sermonOnB = try cb.call("sermon.list", ["limit": 1])["items"]?.arrayValue?.first?["id"]?.stringValue
        let writes = try NoteAddProbe(socket: "\(sd)/b.sock", sermonId: sermonOnB ?? "")
        writes.start()
        let searchReady = try timed { _ = try cb.call("search.query", ["q": "grace"]) }
        let writeLatencies = try writes.stop()
        // Where the CPU went (diagnostic, not a figure): A's includes its start.
        say(String(format: "  CPU seconds: push A %.2f, server %.2f; pull server %.2f, B %.2f", da.cpuSeconds,
                   serverCPU1 - serverCPU0, server.cpuSeconds - serverCPU1, db.cpuSeconds - bCPU1))
        let t = pushTime + pullTime
        let changes = Double(sizes.sermons * 2 + sizes.notes)
        let onB = try cb.call("sermon.list", ["limit": 1])
        guard onB["items"]?.arrayValue?.isEmpty == false else { throw BenchError("B has no sermons after the sync") }
        let afterRss = db.rssKiB
        // C, a new device started now: its first sync takes the snapshot (B pulled the log: it had pulled once,
        // empty, at its start). The seeded log holds one change per record, so both download as many changes.
        sync()  // B's store and the server's writes, as above
        let firstSync = try timed {
            let dc = try Child("\(bin)/tnotesd", ["--config", "\(sd)/tnotesd.toml", "--data-dir", "\(sd)/C/data", "--socket", "\(sd)/c.sock",
                                                  "--log-level", logLevel], env: env, log: "\(sd)/c.log")
            defer { dc.stop() }
            try Wait.forSocket("\(sd)/c.sock")
            try Self.waitDrained(try RPCConnection(path: "\(sd)/c.sock"))
        }
        try? FileManager.default.removeItem(atPath: "\(sd)/C")
        // The seeded original: the copy A synced from has an empty outbox by now.
        let baseline = try syncBaseline(dataDir: "\(d)/a/data", dir: sd)
        var extra: [Figure] = []
        if scale == 1 {
            // 10,000 changes the server has (new opIds, same versions): each is looked up and merged again.
            let texts = try Seeder.outboxTexts(dataDir: "\(d)/a/data").prefix(10_000).map(Self.withNewOpId)
            let port = Int(url.split(separator: ":").last ?? "") ?? 0
            extra.append(try serverUnderLoad(port: port, token: token, changes: texts, backend: backend,
                                             calls: quick ? 300 : 3000, audioMiB: quick ? 5 : 50))
        }
        return extra + [
            Figure(name: "full sync A→B via server, \(backend) (\(scale)×)", value: t, unit: "s", baseline: baseline,
                   baselineName: "same JSON over loopback HTTP + bulk SQLite insert", target: "< 5 s at 1× on SQLite",
                   higherIsBetter: false),
            Figure(name: "push throughput A→server, \(backend) (\(scale)×)", value: changes / pushTime, unit: "changes/s",
                   target: nil, higherIsBetter: true),
            Figure(name: "pull throughput server→B, \(backend) (\(scale)×)", value: changes / pullTime, unit: "changes/s",
                   target: nil, higherIsBetter: true),
            Figure(name: "first sync of a new device (snapshot), \(backend) (\(scale)×): start to synced", value: firstSync, unit: "s",
                   target: nil, higherIsBetter: false),
            Figure(name: "first search on B after the full sync, \(backend) (\(scale)×): waits for the index to fill",
                   value: searchReady * 1000, unit: "ms", target: nil, higherIsBetter: false),
            Figure(name: "note.add p99 while that first search waits, \(backend) (\(scale)×), \(writeLatencies.count) writes",
                   value: writeLatencies.p99, unit: "ms", baseline: writeLatencies.idleP99, baselineName: "note.add p99 on B after it",
                   target: "< 100 ms", higherIsBetter: false),
            Figure(name: "tnotesd RSS idle, empty store, sync configured (\(scale)×, \(backend))", value: Double(idleRss) / 1024, unit: "MiB", target: "< 25 MB", higherIsBetter: false),
            Figure(name: "tnotesd RSS 0.5 s after start (not yet idle), empty store, sync configured (\(scale)×, \(backend))", value: Double(startRss) / 1024, unit: "MiB",
                   target: nil, higherIsBetter: false),
            Figure(name: "tnotesd RSS after full sync (\(scale)×, \(backend))", value: Double(afterRss) / 1024, unit: "MiB",
                   target: nil, higherIsBetter: false),
        ]
    }

    /// The same change under a new opId (records carry no opId, so the first `"opId":"` is the change's own).
    static func withNewOpId(_ text: String) -> String {
        guard let r = text.range(of: "\"opId\":\"") else { return text }
        let start = r.upperBound
        let end = text.index(start, offsetBy: 36)
        return text.replacingCharacters(in: start..<end, with: Identifier.make())
    }

    /// The floor for a full sync: the outbox's JSON bytes pushed over loopback HTTP to a sink that only
    /// reads them, plus one bulk insert of the same rows into a fresh SQLite file.
    func syncBaseline(dataDir: String, dir: String) throws -> Double {
        let texts = try Seeder.outboxTexts(dataDir: dataDir)
        let sink = try HTTPSink()
        defer { sink.stop() }
        let http = try timed {
            let client = try HTTPSink.Client(port: sink.port)
            var i = 0
            while i < texts.count {
                let chunk = texts[i..<min(i + 500, texts.count)]
                let body = Array("{\"deviceId\":\"x\",\"changes\":[".utf8) + Array(chunk.joined(separator: ",").utf8) + Array("]}".utf8)
                try client.post(body)
                i += 500
            }
        }
        let insert = try timed {
            let db = try SQLiteConnection(path: "\(dir)/bulk.sqlite", create: true)
            try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE r(id TEXT PRIMARY KEY, body TEXT)")
            try db.transaction {
                for (k, t) in texts.enumerated() { try db.run("INSERT INTO r VALUES (?, ?)", [.text(String(k)), .text(t)]) }
            }
        }
        return http + insert
    }
}

/// `note.add` on its own connection every 10 ms while something else runs, timed one by one; then as many
/// again with nothing else running, for the baseline.
final class NoteAddProbe: @unchecked Sendable {
    // Unchecked because: `latencies` is written by the probe's thread only until `stop` joins it.
    private let connection: RPCConnection
    private let sermonId: String
    private let running = Atomic<Bool>(true)
    private var latencies: [Double] = []
    private var failure: (any Error)?
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(socket: String, sermonId: String) throws {
        guard !sermonId.isEmpty else { throw BenchError("no sermon to add notes to") }
        connection = try RPCConnection(path: socket)
        self.sermonId = sermonId
    }

    private func add(_ k: Int) throws -> Double {
        let t = Date()
        _ = try connection.call("note.add", .object(["sermonId": .string(sermonId), "timestamp": .int(Int64(k)),
                                                     "text": .string("written while the index catches up \(k)")]))
        return Date().timeIntervalSince(t) * 1000
    }

    func start() {
        let t = Thread { [self] in
            defer { done.signal() }
            var k = 0
            while running.load(ordering: .relaxed) {
                do { latencies.append(try add(k)) } catch { failure = error; return }
                k += 1
                usleep(10_000)
            }
        }
        thread = t
        t.start()
    }

    /// Ends the probe; the p99 of its writes, and of as many (at least 100) on the idle daemon after.
    func stop() throws -> (p99: Double, idleP99: Double, count: Int) {
        running.store(false, ordering: .relaxed)
        done.wait()
        if let failure { throw failure }
        guard !latencies.isEmpty else { throw BenchError("no note.add finished while the search waited") }
        var idle: [Double] = []
        for k in 0..<min(300, max(100, latencies.count)) {
            idle.append(try add(k))
            usleep(10_000)
        }
        func p99(_ l: [Double]) -> Double {
            let sorted = l.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        }
        return (p99(latencies), p99(idle), latencies.count)
    }
}
