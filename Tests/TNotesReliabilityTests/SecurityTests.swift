import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Who may talk to what: the socket's owner only; each server user only their own data; tokens never
/// in logs; ids that try to climb out of a directory are refused.
@Suite("reliability: security")
struct SecurityTests {
    static let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

    /// Runs a tiny socket client as uid/gid 65534 (nobody); returns what it printed.
    func asNobody(socket: String, request: String) throws -> ProcessResult {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(sys.argv[1])
            except OSError as e:
                print("connect-failed", e.errno); sys.exit(0)
            try:
                s.sendall(sys.argv[2].encode() + b"\\n")
            except (BrokenPipeError, ConnectionResetError):
                # The daemon may refuse and close before our request is written; its refusal is
                # still waiting to be read.
                pass
            s.settimeout(10)
            data = b""
            try:
                while True:
                    chunk = s.recv(4096)
                    if not chunk: break
                    data += chunk
            except socket.timeout:
                pass
            except ConnectionResetError:
                # The daemon closes right after its refusal; our unread request makes the kernel report a
                # reset once the refusal has been read.
                pass
            print("reply", data.decode(errors="replace").strip())
            """
        return try ProcessRunner.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                          "/usr/bin/python3", "-c", script, socket, request])
    }

    @Test("a client of another uid cannot use the socket, even when the file modes would let it connect",
          .enabled(if: canSwitchUser))
    func otherUIDRefused() throws {
        let daemon = try DaemonProcess().start()
        defer { daemon.stop() }
        let create = #"{"jsonrpc":"2.0","id":1,"method":"sermon.create","params":{"title":"intruder"}}"#
        // As installed: the 0700 directory keeps other users from even reaching the 0600 socket.
        let blocked = try asNobody(socket: daemon.socketPath, request: create)
        #expect(blocked.stdout.contains("connect-failed"), "\(blocked.stdout) \(blocked.stderr)")
        // Loosened by hand: the peer-uid check (SO_PEERCRED) still refuses, with -32004, and writes nothing.
        let dir = (daemon.socketPath as NSString).deletingLastPathComponent
        chmod(dir, 0o755)
        chmod(daemon.socketPath, 0o666)
        for p in [daemon.dir.path] { chmod(p, 0o755) }
        let refused = try asNobody(socket: daemon.socketPath, request: create)
        #expect(refused.stdout.contains("-32004"), "\(refused.stdout) \(refused.stderr)")
        let list = try daemon.client().call("sermon.list")
        #expect(list["items"] == [], "the other user's request wrote data")
        print("security: other uid refused (connect: \(blocked.stdout.trimmingCharacters(in: .whitespacesAndNewlines)); peer check: -32004)")
    }

    @Test("ids that are not UUIDs (path traversal attempts) are refused by the daemon")
    func daemonRefusesTraversal() throws {
        let daemon = try DaemonProcess().start()
        defer { daemon.stop() }
        let c = try daemon.client()
        for id in ["../../etc/passwd", "..%2F..%2Fetc", "/etc/passwd", "11111111-1111-4111-8111-111111111111/../x"] {
            let e = try c.callError("sermon.get", ["id": .string(id)])
            #expect(e.code == -32602 && e.field == "id")
            let a = try c.callError("audio.path", ["sermonId": .string(id)])
            #expect(a.code == -32602 && a.field == "sermonId")
        }
    }

    @Test("the server refuses traversal in audio paths and never writes outside its data dir; tokens never reach the logs")
    func serverTraversalAndTokens() throws {
        let server = ServerProcess()
        server.extraArguments = ["--log-level", "debug"]
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        for path in ["/v1/audio/..%2F..%2Fetc%2Fpasswd", "/v1/audio/%2e%2e", "/v1/audio/not-a-uuid"] {
            let r = try http.get(path)
            #expect(r.status == 400 || r.status == 404, "\(path) → \(r.status)")
            let put = try http.request("PUT", path, body: Data("x".utf8),
                                       headers: ["X-Content-SHA256": String(repeating: "0", count: 64)])
            #expect(!(200..<300).contains(put.status), "\(path) PUT → \(put.status)")
        }
        // Some authenticated traffic, then: the token appears in no log line.
        _ = try http.get("/v1/sync/pull")
        _ = try HTTPTestClient(baseURL: server.baseURL, token: token + "x").get("/v1/sync/pull")
        let files = try FileManager.default.subpathsOfDirectory(atPath: server.dataDir)
        #expect(!files.contains { $0.contains("..") || $0.contains("passwd") })
        #expect(!server.log.contains(token), "the token was logged")
        #expect(!server.log.contains(String(token.dropFirst(3))), "the token was logged")

        // The daemon, syncing with that token at debug level, does not log it either.
        let config = "[sync]\nserver_url = \"\(server.baseURL)\"\ninterval = 300\nrealtime = false\n"
        let daemon = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        daemon.extraArguments = ["--config", try daemon.dir.write("tnotesd.toml", config)]
        try daemon.start()
        defer { daemon.stop() }
        let c = try daemon.client()
        try c.call("sermon.create", ["title": "t"])
        try c.call("sync.now", ["wait": true])
        #expect(!daemon.log.contains(token), "the daemon logged the token")
    }
}
