import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's HTTP client as the network sees it: kept-alive connections across a sync session, HTTPS
/// with a private CA (`[sync] ca_file`), and transfers that a stop aborts at once.
@Suite("sync transport")
struct SyncTransportTests {
    /// A started server with user alice, and her token.
    static func server() throws -> (ServerProcess, String) {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        return (server, token)
    }

    /// A daemon syncing to `url`, with `extra` lines added to its `[sync]` section.
    static func device(url: String, token: String, batchSize: Int? = nil, extra: String = "") throws -> DaemonProcess {
        let d = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        let text = syncConfigText(serverURL: url, interval: 600, backoffBase: 0.2, backoffMax: 1, batchSize: batchSize) + extra
        d.extraArguments = ["--config", try d.dir.write("tnotesd.toml", text)]
        return d
    }

    @Test("20 pushed batches use at most 2 TCP connections (libcurl handles and their connections are kept)")
    func connectionsAreReused() throws {
        let (server, token) = try Self.server()
        defer { server.stop() }
        let relay = try TCPRelay(frontOf: server)
        defer { relay.stop() }
        let d = try Self.device(url: relay.baseURL, token: token, batchSize: 10)
        try d.start()
        defer { d.stop() }
        let c = try d.client()
        _ = try c.call("sync.now", ["wait": true])
        let before = relay.connectionsAccepted
        // 200 changes queued at once (one JSON-RPC batch: one group commit), pushed in batches of 10.
        let sid = Identifier.make()
        var calls: [JSON] = [["jsonrpc": "2.0", "id": 0, "method": "sermon.create", "params": ["id": .string(sid), "title": "Kept alive"]]]
        for i in 1..<200 {
            calls.append(["jsonrpc": "2.0", "id": .int(Int64(i)), "method": "note.add",
                          "params": ["sermonId": .string(sid), "text": .string("note \(i)"), "timestamp": .int(Int64(i))]])
        }
        let answers = try c.exchange(.array(calls))
        #expect(answers.arrayValue?.count == 200)
        let report = try c.call("sync.now", ["wait": true])
        #expect(try c.call("sync.status")["pendingOps"]?.int64Value == 0, "\(report)")
        let pushes = server.log.components(separatedBy: "POST /v1/sync/push 200").count - 1
        #expect(pushes >= 20, "expected at least 20 pushes, the server logged \(pushes)")
        #expect(relay.connectionsAccepted <= 2, "\(relay.connectionsAccepted) TCP connections in all (\(before) before the 200 changes) for \(pushes) pushes")
    }

    /// A CA and a certificate for 127.0.0.1 signed by it, made with openssl; returns (ca.pem, cert, key).
    static func makeCertificates(in dir: TempDirectory, name: String) throws -> (ca: String, cert: String, key: String) {
        let ca = dir.file("\(name)-ca.pem"), caKey = dir.file("\(name)-ca.key")
        let key = dir.file("\(name)-srv.key"), csr = dir.file("\(name)-srv.csr"), cert = dir.file("\(name)-srv.pem")
        let ext = try dir.write("\(name)-ext.cnf", "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")
        for args in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", ca, "-days", "2", "-subj", "/CN=tnotes test CA \(name)"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out", cert, "-days", "2", "-extfile", ext],
        ] {
            let r = try ProcessRunner.run("/usr/bin/openssl", args)
            guard r.status == 0 else { throw HarnessError("openssl \(args[0]) failed: \(r.stderr)") }
        }
        return (ca, cert, key)
    }

    /// A free loopback port (the kernel's pick, released again).
    static func freePort() throws -> Int {
        let relay = try TCPRelay(upstreamPort: 9)
        let port = relay.port
        relay.stop()
        usleep(50_000)
        return port
    }

    @Test("HTTPS sync with [sync] ca_file works; a certificate from another CA fails with a clear lastError",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/socat")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
                   "needs socat and openssl (scripts/install-deps.sh installs them)"))
    func httpsWithPrivateCA() throws {
        let dir = TempDirectory()
        let good = try Self.makeCertificates(in: dir, name: "good")
        let other = try Self.makeCertificates(in: dir, name: "other")
        let (server, token) = try Self.server()
        defer { server.stop() }
        // A TLS front from Debian's socat, with the certificate our CA signed, before the plain server.
        let port = try Self.freePort()
        let front = Process()
        front.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        front.arguments = ["OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,cert=\(good.cert),key=\(good.key),verify=0",
                           "TCP:127.0.0.1:\(server.port)"]
        front.standardError = FileHandle.nullDevice
        try front.run()
        // SIGKILL: socat with `fork` did not end on the SIGTERM Process.terminate sends, and the wait hung.
        defer { kill(front.processIdentifier, SIGKILL); front.waitUntilExit() }
        #expect(eventually(timeout: 10, every: 0.05) { (try? TCPProbe.accepts(port: port)) == true })
        let url = "https://127.0.0.1:\(port)"

        let trusted = try Self.device(url: url, token: token, extra: "ca_file = \"\(good.ca)\"\n")
        try trusted.start()
        defer { trusted.stop() }
        let c = try trusted.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Over TLS"])["id"]?.stringValue)
        _ = try c.call("sync.now", ["wait": true])
        #expect(try c.call("sync.status")["lastError"]?.isNull == true)
        let onServer = try server.client(token).pullAll().changes.compactMap { $0["id"]?.stringValue }
        #expect(onServer.contains(sid), "the sermon crossed TLS to the server")

        let untrusted = try Self.device(url: url, token: token, extra: "ca_file = \"\(other.ca)\"\n")
        try untrusted.start()
        defer { untrusted.stop() }
        let u = try untrusted.client()
        let failed = try u.callError("sync.now", ["wait": true])
        #expect(failed.code == -32005)
        let lastError = try u.call("sync.status")["lastError"]?.stringValue ?? ""
        #expect(lastError.lowercased().contains("certificate"), "lastError should say the certificate is not trusted: \(lastError)")
    }

    @Test("a missing ca_file is a config error naming the key")
    func missingCAFile() throws {
        let d = try Self.device(url: "https://127.0.0.1:9", token: "t", extra: "ca_file = \"/nonexistent/ca.pem\"\n")
        let p = try d.launch()
        p.waitUntilExit()
        #expect(p.terminationStatus == 78, "\(d.log)")
        #expect(d.log.contains("sync.ca_file"), "\(d.log)")
    }

    static func randomFile(_ path: String, mebibytes: Int) throws {
        let r = try ProcessRunner.run("/bin/dd", ["if=/dev/urandom", "of=\(path)", "bs=1M", "count=\(mebibytes)"])
        guard r.status == 0 else { throw HarnessError("dd failed: \(r.stderr)") }
    }

    /// SIGTERM, then how long the daemon took to exit and with what status.
    static func timedStop(_ d: DaemonProcess) -> (seconds: Double, status: Int32?) {
        let t0 = Date()
        let status = d.stop(timeout: 20)
        return (Date().timeIntervalSince(t0), status)
    }

    @Test("SIGTERM during a 40 MiB upload: exit 0 within 2 s (the transfer is aborted, not waited out)")
    func sigtermDuringUpload() throws {
        let (server, token) = try Self.server()
        defer { server.stop() }
        let relay = try TCPRelay(frontOf: server)
        defer { relay.stop() }
        relay.bytesPerSecond = 2 << 20  // 40 MiB would take 20 s
        let d = try Self.device(url: relay.baseURL, token: token)
        try d.start()
        let c = try d.client()
        let source = d.dir.file("sermon.wav")
        try Self.randomFile(source, mebibytes: 40)
        let sid = try #require(try c.call("sermon.create", ["title": "Long upload"])["id"]?.stringValue)
        _ = try c.call("audio.import", ["sermonId": .string(sid), "path": .string(source)])
        _ = try c.call("sync.now", ["wait": true])
        #expect(eventually(timeout: 30, every: 0.05) { relay.bytesUp > 3 << 20 }, "the upload did not start:\n\(d.log)")
        let (seconds, status) = Self.timedStop(d)
        #expect(status == 0, "exit status \(String(describing: status)):\n\(d.log.suffix(3000))")
        #expect(seconds < 2, "tnotesd took \(seconds) s to stop during an upload")
        #expect(relay.bytesUp < 30 << 20, "the upload was waited out (\(relay.bytesUp) bytes)")
    }

    @Test("SIGTERM during a 40 MiB download: exit 0 within 2 s; the partial file is kept for resuming")
    func sigtermDuringDownload() throws {
        let (server, token) = try Self.server()
        defer { server.stop() }
        let a = try Self.device(url: server.baseURL, token: token)
        try a.start()
        defer { a.stop() }
        let ca = try a.client()
        let source = a.dir.file("sermon.wav")
        try Self.randomFile(source, mebibytes: 40)
        let sid = try #require(try ca.call("sermon.create", ["title": "Long download"])["id"]?.stringValue)
        _ = try ca.call("audio.import", ["sermonId": .string(sid), "path": .string(source)])
        _ = try ca.call("sync.now", ["wait": true])
        #expect(try eventually(timeout: 60, every: 0.1) {
            try ca.call("sermon.get", ["id": .string(sid)])["audio"]?["uploaded"] == true
        }, "A's upload did not finish:\n\(a.log.suffix(2000))")

        let relay = try TCPRelay(frontOf: server)
        defer { relay.stop() }
        relay.bytesPerSecond = 2 << 20
        let b = try Self.device(url: relay.baseURL, token: token)
        try b.start()
        #expect(eventually(timeout: 30, every: 0.05) { relay.bytesDown > 3 << 20 }, "B's download did not start:\n\(b.log)")
        let (seconds, status) = Self.timedStop(b)
        #expect(status == 0, "exit status \(String(describing: status)):\n\(b.log.suffix(3000))")
        #expect(seconds < 2, "tnotesd took \(seconds) s to stop during a download")
        #expect(relay.bytesDown < 30 << 20, "the download was waited out (\(relay.bytesDown) bytes)")
    }
}

/// Whether something accepts TCP connections on a loopback port.
enum TCPProbe {
    static func accepts(port: Int) throws -> Bool {
        guard let fd = FaultProxy.connectPublic(host: "127.0.0.1", port: port) else { return false }
        close(fd)
        return true
    }
}
