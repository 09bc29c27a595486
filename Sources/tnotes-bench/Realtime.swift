import Foundation
import TNotesClient
import TNotesCore

extension Bench {
    /// Contract §6.4 figures: edit-to-other-device latency (from `note.add` answered on A to the
    /// `record.changed` event on B's subscription), on SQLite, PostgreSQL, and PostgreSQL with A and B on two
    /// server instances; and the server's RSS and CPU while 1,000 devices hold a waiting pull.
    func realtime(postgres: PostgresDatabases, edits: Int, idlePulls: Int) throws -> [Figure] {
        var figures = [Figure]()
        var setups: [(name: String, postgres: Bool, instances: Int)] = [("SQLite", false, 1)]
        if !postgres.isEmpty {
            setups.append(("PostgreSQL", true, 1))
            setups.append(("PostgreSQL, two instances", true, 2))
        }
        for (i, setup) in setups.enumerated() {
            // Each PostgreSQL setup on a database of its own, as each SQLite one on a directory of its own.
            let database = setup.postgres ? try postgres.fresh() : nil
            defer { if let database { postgres.release(database) } }
            let lat = try editLatency(dir: "\(dir)/realtime-\(i)", database: database, instances: setup.instances, edits: edits)
            func at(_ q: Double) -> Double { lat[min(lat.count - 1, Int(Double(lat.count) * q))] }
            figures.append(Figure(name: "edit-to-other-device latency p50, \(setup.name)", value: at(0.5), unit: "ms",
                                  target: "< 50 ms", higherIsBetter: false))
            figures.append(Figure(name: "edit-to-other-device latency p95, \(setup.name)", value: at(0.95), unit: "ms",
                                  target: nil, higherIsBetter: false))
            figures.append(Figure(name: "edit-to-other-device latency p99, \(setup.name)", value: at(0.99), unit: "ms",
                                  target: "< 250 ms", higherIsBetter: false))
        }
        figures.append(contentsOf: try idleWaitingPulls(dir: "\(dir)/realtime-idle", count: idlePulls))
        return figures
    }

    /// A started server: its process and base URL.
    func startServer(dir sd: String, database: String?, name: String) throws -> (Child, String) {
        var storage = ["--data-dir", sd]
        if let database { storage += ["--database", database] }
        let server = try Child("\(bin)/tnotes-server", ["serve"] + storage + ["--port", "0", "--rate-limit", "0", "--log-level", logLevel], log: "\(sd)/\(name).log")
        let line = try Wait.forLine(in: "\(sd)/\(name).log", containing: "listening on http://")
        return (server, String(line[line.range(of: "http://")!.lowerBound...].prefix { $0 != " " }))
    }

    func addUser(dir sd: String, database: String?) throws -> String {
        var storage = ["--data-dir", sd]
        if let database { storage += ["--database", database] }
        return try run("\(bin)/tnotes-server", ["user", "add", "--token"] + storage + ["rt\(Int.random(in: 0..<1_000_000_000))"])
            .split(separator: "\n").last.map(String.init) ?? ""
    }

    /// Milliseconds from each `note.add` answered on A to B's `record.changed` for that note, sorted.
    func editLatency(dir sd: String, database: String?, instances: Int, edits: Int) throws -> [Double] {
        try FileManager.default.createDirectory(atPath: sd, withIntermediateDirectories: true)
        let token = try addUser(dir: sd, database: database)
        let (s1, url1) = try startServer(dir: sd, database: database, name: "server1")
        defer { s1.stop() }
        var url2 = url1
        var s2: Child?
        if instances > 1 {
            let second = "\(sd)/second"
            try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
            let (child, url) = try startServer(dir: second, database: database, name: "server2")
            s2 = child
            url2 = url
        }
        defer { s2?.stop() }
        // Realtime is the default; `interval` is long so that only the long poll can deliver.
        func device(_ name: String, url: String) throws -> (Child, RPCConnection) {
            let config = "\(sd)/\(name).toml"
            try Data("[sync]\nserver_url = \"\(url)\"\ninterval = 3600\n".utf8).write(to: URL(fileURLWithPath: config))
            let child = try Child("\(bin)/tnotesd", ["--config", config, "--data-dir", "\(sd)/\(name)", "--socket", "\(sd)/\(name).sock",
                                                     "--log-level", logLevel], env: ["TNOTES_TOKEN": token], log: "\(sd)/\(name).log")
            try Wait.forSocket("\(sd)/\(name).sock")
            return (child, try RPCConnection(path: "\(sd)/\(name).sock"))
        }
        let (a, ca) = try device("a", url: url1)
        defer { a.stop() }
        let (b, cb) = try device("b", url: url2)
        defer { b.stop() }
        let sid = try ca.call("sermon.create", ["title": "realtime bench"])["id"] ?? .null
        try Self.syncToCompletion(ca)
        try Self.syncToCompletion(cb)
        let deadline = Date().addingTimeInterval(30)
        while try cb.call("sync.status")["realtimeConnected"] != .bool(true) {
            if Date() > deadline { throw BenchError("B never opened its long poll") }
            usleep(10_000)
        }
        let sub = try RPCConnection(path: "\(sd)/b.sock")
        _ = try sub.call("events.subscribe", ["topics": ["record.changed"]])

        var lat = [Double]()
        for i in 0..<edits {
            let note = try ca.call(NoteAdd.self, .init(sermonId: sid.stringValue ?? "", text: "edit \(i)", timestamp: Double(i)))
            let answered = Date()
            let id = note["id"] ?? .null
            while true {
                guard let msg = try? sub.nextNotification(timeout: 10) else {
                    throw BenchError("B announced no record.changed for edit \(i) within 10 s")
                }
                if msg["params"]?["id"] == id { break }
            }
            lat.append(Date().timeIntervalSince(answered) * 1000)
        }
        return lat.sorted()
    }

    /// The server's RSS and CPU while `count` devices each hold a waiting pull (`wait=60`) open, beside the
    /// same server idle with no connection.
    func idleWaitingPulls(dir sd: String, count: Int) throws -> [Figure] {
        try FileManager.default.createDirectory(atPath: sd, withIntermediateDirectories: true)
        let token = try addUser(dir: sd, database: nil)
        let (server, url) = try startServer(dir: sd, database: nil, name: "server")
        defer { server.stop() }
        let port = Int(url.split(separator: ":").last ?? "") ?? 0
        // Warm up (the first requests allocate the pools), then the idle figure.
        for _ in 0..<20 { try LoopbackHTTP(port: port).request("GET", "/healthz") }
        usleep(500_000)
        let idleRss = server.rssKiB
        var fds = [Int32]()
        defer { for fd in fds { close(fd) } }
        let request = Array("GET /v1/sync/pull?wait=60 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
        for _ in 0..<count {
            let c = try LoopbackHTTP(port: port)
            let fd = dup(c.fd)
            fds.append(fd)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        usleep(1_000_000)  // every request read and parked
        let heldRss = server.rssKiB
        let cpu0 = server.cpuTicks
        let seconds = 5.0
        usleep(UInt32(seconds * 1_000_000))
        let cpuPercent = Double(server.cpuTicks - cpu0) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds * 100
        return [
            Figure(name: "server RSS with \(count) idle waiting pulls", value: Double(heldRss) / 1024, unit: "MiB",
                   baseline: Double(idleRss) / 1024, baselineName: "the same server with no connection", target: nil,
                   higherIsBetter: false),
            // Never 0 in the report (a figure must be positive): a floor of one tick over the window.
            Figure(name: "server CPU with \(count) idle waiting pulls", value: max(cpuPercent, 100 / seconds / 100), unit: "% of a core",
                   target: nil, higherIsBetter: false),
        ]
    }
}

extension Child {
    /// User plus system CPU time of the process, in clock ticks (`/proc/<pid>/stat` fields 14 and 15).
    var cpuTicks: Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
        guard fields.count > 12 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}
