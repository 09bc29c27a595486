import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Pairing devices with codes from the daemon's side (contract §8.6, issue #55): `sync.login` / `tnotes sync login`
/// on a local-only daemon and on one with a config, both syncing; a revoked device says so and stops.
@Suite("devices: login with a pairing code, revoke")
struct DeviceLoginTests {
    /// The value of one counter line of the server's /metrics (0 when absent).
    static func counter(_ server: ServerProcess, _ line: String) throws -> Double {
        let text = try server.client().get("/metrics").text
        for l in text.split(separator: "\n") where l.hasPrefix(line + " ") {
            return Double(l.dropFirst(line.count + 1)) ?? 0
        }
        return 0
    }

    @Test("two devices pair with codes (socket and CLI) and sync; a used code fails clearly; revoking one cuts it off while the other syncs")
    func pairSyncRevoke() throws {
        let server = ServerProcess()
        let add = try server.cli(["user", "add"], ["alice"])
        #expect(add.status == 0, "\(add.stderr)")
        let firstCode = try #require(add.stdout.split(separator: "\n").last.map(String.init))
        try server.start()
        defer { server.stop() }

        // A: local-only, no config at all. B: a config with a [sync] table but no server.
        let a = DaemonProcess(), b = DaemonProcess()
        let bConfig = try b.dir.write("tnotesd.toml", "# B's own settings\n[sync]\nrealtime = false\ninterval = 300\n")
        b.extraArguments = ["--config", bConfig]
        try a.start()
        try b.start()
        defer { a.stop(); b.stop() }
        let ca = try a.client(), cb = try b.client()
        #expect(try ca.call("sync.status")["state"] == "disabled")

        let sermon = try ca.call("sermon.create", ["title": "Made before pairing"])
        let sermonId = try #require(sermon["id"]?.stringValue)
        let login = try ca.call("sync.login", ["url": .string(server.baseURL + "/"), "code": .string(firstCode.lowercased()),
                                               "name": "laptop"])
        #expect(login["name"] == "laptop" && login["serverUrl"]?.stringValue == server.baseURL, "\(login)")
        #expect(login["configWritten"] == true)
        let aDevice = try #require(login["deviceId"]?.stringValue)
        // The token file: mode 0600, the token alone; the config names the server and the file.
        let tokenFile = try #require(login["tokenFile"]?.stringValue)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "token file mode \(String(mode, radix: 8))")
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("tn_"))
        let aConfig = try String(contentsOfFile: try #require(login["configFile"]?.stringValue), encoding: .utf8)
        #expect(aConfig.contains("server_url = \"\(server.baseURL)\"") && aConfig.contains("token_file"), "\(aConfig)")
        // Syncing at once, without a restart: what A made before pairing reaches the server.
        try ca.call("sync.now", ["wait": true])
        #expect(try server.client(token).pullAll().changes.contains { $0["id"]?.stringValue == sermonId })

        // The same code again: refused, naming the code, saying it was used.
        let reused = try cb.callError("sync.login", ["url": .string(server.baseURL), "code": .string(firstCode)])
        #expect(reused.code == -32602 && reused.message.contains("used"), "\(reused)")
        #expect(try cb.call("sync.status")["state"] == "disabled", "a failed login changes nothing")

        // B pairs through the CLI with a code of its own; its config keeps what it had and gains the server.
        let bCode = try #require(try server.cli(["user", "pair"], ["alice"]).stdout.split(separator: "\n").last.map(String.init))
        let cli = try ProcessRunner.run(Binaries.path("tnotes"), ["--socket", b.socketPath, "sync", "login", server.baseURL, bCode,
                                                                  "--name", "desktop"])
        #expect(cli.status == 0, "tnotes sync login: \(cli.stdout) \(cli.stderr)")
        #expect(cli.stdout.contains("paired as desktop"), "\(cli.stdout)")
        let bText = try String(contentsOfFile: bConfig, encoding: .utf8)
        #expect(bText.hasPrefix("# B's own settings\n[sync]\n") && bText.contains("interval = 300") && bText.contains("server_url"), "\(bText)")
        try cb.call("sync.now", ["wait": true])
        #expect(try cb.call("sermon.get", ["id": .string(sermonId)])["title"] == "Made before pairing")

        // Both devices are listed; A revokes B (a lost laptop).
        let devices = try ca.call("devices.list")["items"]?.arrayValue ?? []
        #expect(Set(devices.compactMap { $0["name"]?.stringValue }) == ["laptop", "desktop"], "\(devices)")
        #expect(devices.first { $0["current"] == true }?["id"]?.stringValue == aDevice)
        let bDevice = try #require(devices.first { $0["name"] == "desktop" }?["id"]?.stringValue)
        #expect(try ca.call("devices.revoke", ["id": .string(bDevice)])["revoked"] == true)
        #expect(try ca.callError("devices.revoke", ["id": .string(bDevice)]).code == -32001)

        // B is told, and stops: state revoked, lastError says so, no retry loop; its data stays.
        let note = try cb.call("note.add", ["sermonId": .string(sermonId), "text": "written on the lost laptop", "timestamp": 1])
        #expect(throws: RPCCallError.self) { try cb.call("sync.now", ["wait": true]) }
        let status = try cb.call("sync.status")
        #expect(status["state"] == "revoked", "\(status)")
        #expect(status["lastError"]?.stringValue?.contains("revoked") == true, "\(status)")
        #expect(status["nextAttemptAt"] == .null)
        let refusedBefore = try Self.counter(server, "tnotes_refused_requests_total{status=\"401\",reason=\"revoked\"}")
        _ = try cb.call("note.add", ["sermonId": .string(sermonId), "text": "another local write", "timestamp": 2])
        Thread.sleep(forTimeInterval: 3)
        let refusedAfter = try Self.counter(server, "tnotes_refused_requests_total{status=\"401\",reason=\"revoked\"}")
        #expect(refusedAfter == refusedBefore, "a revoked device does not keep asking (\(refusedBefore) → \(refusedAfter))")
        #expect(try cb.call("sermon.get", ["id": .string(sermonId)])["notes"]?.arrayValue?.count == 2, "B keeps its data")
        #expect(note["id"]?.stringValue != nil)

        // A keeps syncing.
        try ca.call("note.add", ["sermonId": .string(sermonId), "text": "still syncing", "timestamp": 3])
        #expect(try ca.call("sync.now", ["wait": true])["pushed"]?.int64Value ?? 0 >= 1)
        let aStatus = try ca.call("sync.status")
        #expect(aStatus["lastError"] == .null && aStatus["state"] != "revoked", "\(aStatus)")

        // B pairs again and catches up: its queued notes go out.
        let again = try #require(try server.cli(["user", "pair"], ["alice"]).stdout.split(separator: "\n").last.map(String.init))
        try cb.call("sync.login", ["url": .string(server.baseURL), "code": .string(again)])
        try cb.call("sync.now", ["wait": true])  // the login already started one; this waits until all is out
        #expect(try cb.call("sync.status")["lastError"] == .null)
        try ca.call("sync.now", ["wait": true])
        #expect(try ca.call("sermon.get", ["id": .string(sermonId)])["notes"]?.arrayValue?.count == 3)
    }

    @Test("over the record quota a device keeps the refused change, says why, and pushes it once a deletion frees room")
    func quotaOnTheDevice() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        #expect(try server.cli(["user", "quota"], ["alice", "--records", "2"]).status == 0)
        try server.start()
        defer { server.stop() }
        let d = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        let config = try d.dir.write("tnotesd.toml", "[sync]\nserver_url = \"\(server.baseURL)\"\ninterval = 300\nrealtime = false\n")
        d.extraArguments = ["--config", config]
        try d.start()
        defer { d.stop() }
        let c = try d.client()
        let ids = try (1...3).map { i in try #require(try c.call("sermon.create", ["title": .string("Sermon \(i)")])["id"]?.stringValue) }
        let first = try c.call("sync.now", ["wait": true])
        #expect(first["rejected"]?.int64Value == 1, "\(first)")
        let pending = try c.call("sync.pending").arrayValue ?? []
        #expect(pending.count == 1 && pending.first?["state"] == "failed", "\(pending)")
        #expect(pending.first?["lastError"]?.stringValue?.hasPrefix("quota:") == true, "\(pending)")
        #expect(try c.call("sync.status")["failedOps"]?.int64Value == 1)
        // A sync that finds no room yet leaves it failed (pushed once, refused once: no loop).
        #expect(try c.call("sync.now", ["wait": true])["rejected"]?.int64Value == 1)

        // Deleting a sermon frees a place: the next sync pushes the refused one.
        try c.call("sermon.delete", ["id": .string(ids[0])])
        let freed = try c.call("sync.now", ["wait": true])
        #expect(freed["rejected"]?.int64Value == 0, "\(freed)")
        #expect(try c.call("sync.pending") == [])
        let live = try server.client(token).get("/v1/account", headers: noCache).json?["usage"]?["records"]?.int64Value
        #expect(live == 2)
    }
}
