import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// A real network change (rtnetlink) triggers a sync. The daemon runs in a private network namespace
/// (`unshare -n`, root only) where the test adds a veth pair with an address; nothing leaves the machine.
@Suite("sync network trigger")
struct SyncNetworkTriggerTests {
    static func skipReason() -> String? {
        guard getuid() == 0 else { return "not root" }
        for tool in ["/usr/bin/unshare", "/usr/bin/nsenter"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        guard ipTool != nil else { return "ip(8) is missing" }
        guard let probe = try? ProcessRunner.run("/usr/bin/unshare", ["-n", "/bin/true"]), probe.status == 0 else {
            return "unshare -n is not permitted here"
        }
        return nil
    }

    static var ipTool: String? {
        ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("a link with an address coming up in the daemon's network namespace counts as a network trigger",
          .enabled(if: skipReason() == nil, "needs root, unshare/nsenter and ip(8), and unshare -n permitted"))
    func linkUpTriggersSync() throws {
        let ip = try #require(Self.ipTool)
        let d = DaemonProcess(environment: ["TNOTES_TOKEN": "unused-token"])
        // Port 9 on loopback: loopback is down in the new namespace, so the server is unreachable; only the
        // trigger count matters here.
        let config = try d.dir.write("tnotesd.toml", syncConfigText(serverURL: "http://127.0.0.1:9", interval: 300,
                                                                   backoffBase: 0.2, backoffMax: 1))
        d.extraArguments = ["--config", config]

        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        p.arguments = ["-n", Binaries.path("tnotesd")] + d.arguments
        p.environment = d.fullEnvironment
        _ = FileManager.default.createFile(atPath: d.logPath, contents: nil)
        let log = try #require(FileHandle(forWritingAtPath: d.logPath))
        p.standardOutput = log
        p.standardError = log
        p.standardInput = FileHandle.nullDevice
        try p.run()
        defer {
            if p.isRunning {
                kill(p.processIdentifier, SIGTERM)
                let deadline = Date().addingTimeInterval(10)
                while p.isRunning && Date() < deadline { usleep(10_000) }
                if p.isRunning { kill(p.processIdentifier, SIGKILL) }
            }
            p.waitUntilExit()
        }
        #expect(eventually(timeout: 30, every: 0.02) { !p.isRunning || SocketProbe.accepts(d.socketPath) })
        try #require(p.isRunning, "tnotesd in a namespace exited:\n\(d.log)")

        let c = try d.client()
        let before = try c.call("sync.status")
        #expect(before["state"]?.stringValue != "disabled")
        let startCount = before["triggers"]?["network"]?.int64Value ?? 0
        // Give the monitor's start-up snapshot time to settle, then change the namespace's network.
        usleep(300_000)
        let script = """
            \(ip) link add v0 type veth peer name v1 && \(ip) addr add 10.231.0.1/24 dev v0 && \
            \(ip) link set v0 up && \(ip) link set v1 up
            """
        let r = try ProcessRunner.run("/usr/bin/nsenter", ["-t", String(p.processIdentifier), "-n", "/bin/sh", "-c", script])
        try #require(r.status == 0, "cannot configure the daemon's network namespace: \(r.stderr)")
        var last = before
        #expect(try eventually(timeout: 10, every: 0.1) {
            last = try c.call("sync.status")
            return (last["triggers"]?["network"]?.int64Value ?? 0) > startCount
        }, "triggers: \(last["triggers"]?.text ?? "?")\n\(d.log.suffix(3000))")
    }
}
