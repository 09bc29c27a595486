import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// tnotesd as a systemd service: units that verify and are hardened, the notify protocol, socket
/// activation, and `make install`.
@Suite("systemd integration")
struct SystemdTests {
    static let repo: String = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.path
    }()

    static let hasSystemd = FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")

    /// Copies of the units with ExecStart pointing at the binaries just built (so verify can check them).
    func unitCopies(_ dir: TempDirectory) throws -> [String] {
        var out = [String]()
        for (src, dst) in [("tnotesd.service", "tnotesd.service"), ("tnotesd.socket", "tnotesd.socket"),
                           ("tnotes-server.service", "tnotes-server.service")] {
            let text = try String(contentsOfFile: "\(Self.repo)/systemd/\(src)", encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/", with: Binaries.directory + "/")
            out.append(try dir.write("system/\(dst)", text))
        }
        return out
    }

    @Test("systemd-analyze verify passes on every unit (system and user)", .enabled(if: hasSystemd))
    func unitsVerify() throws {
        let dir = TempDirectory()
        let system = try unitCopies(dir)
        let r = try ProcessRunner.run("/usr/bin/systemd-analyze", ["verify", "--man=no"] + system)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        var user = [String]()
        for u in ["tnotesd.service", "tnotesd.socket"] {
            let text = try String(contentsOfFile: "\(Self.repo)/systemd/user/\(u)", encoding: .utf8)
                .replacingOccurrences(of: "%h/.local/bin/", with: Binaries.directory + "/")
            user.append(try dir.write("user/\(u)", text))
        }
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = dir.path
        let ru = try ProcessRunner.run("/usr/bin/systemd-analyze", ["verify", "--user", "--man=no"] + user, environment: env)
        #expect(ru.status == 0, "\(ru.stdout)\(ru.stderr)")
    }

    /// Issue #53: the D-Bus work keeps each unit at the exposure it had (1.3 and 1.2): no new access.
    @Test("the system units are hardened: exposure ≤ 1.3", .enabled(if: hasSystemd),
          arguments: ["tnotesd.service", "tnotes-server.service"])
    func exposure(unit: String) throws {
        let r = try ProcessRunner.run("/usr/bin/systemd-analyze", ["security", "--offline=true", "\(Self.repo)/systemd/\(unit)"])
        let line = r.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }.map(String.init) ?? ""
        print("systemd-analyze security \(unit): \(line)")
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let value = try #require(score, "no exposure line in: \(r.stdout.suffix(500)) \(r.stderr)")
        #expect(value <= 1.3)
    }

    @Test("notify protocol: READY=1 once the socket accepts, WATCHDOG=1, STATUS=, STOPPING=1 on SIGTERM")
    func notifyProtocol() throws {
        let dir = TempDirectory()
        let listener = try DatagramListener(path: dir.file("notify.sock"))
        let daemon = DaemonProcess(dir: dir, environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "300000"])
        try daemon.launch()
        var messages = [String]()
        var readySeenWhileAccepting = false
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !messages.contains(where: { $0.contains("READY=1") }) {
            if let m = listener.receive(timeout: 0.5) {
                if m.contains("READY=1") { readySeenWhileAccepting = SocketProbe.accepts(daemon.socketPath) }
                messages.append(m)
            }
        }
        #expect(readySeenWhileAccepting, "READY=1 must come after the socket accepts: \(messages)")
        // The watchdog pings keep coming, every WATCHDOG_USEC/2.
        var pings = 0
        let until = Date().addingTimeInterval(10)
        while pings < 3 && Date() < until {
            if let m = listener.receive(timeout: 0.5) {
                messages.append(m)
                if m.contains("WATCHDOG=1") { pings += 1 }
            }
        }
        #expect(pings >= 3, "\(messages)")
        #expect(messages.contains { $0.contains("STATUS=") })
        kill(daemon.pid, SIGTERM)
        var stopping = false
        let stopDeadline = Date().addingTimeInterval(20)
        while !stopping && Date() < stopDeadline {
            if let m = listener.receive(timeout: 0.5) { stopping = m.contains("STOPPING=1") }
        }
        #expect(stopping)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("socket activation: a call succeeds on the inherited socket, and the socket file outlives the daemon",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func socketActivation() throws {
        let dir = TempDirectory()
        let sock = dir.file("activated.sock")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        p.arguments = ["-l", sock, "--fdname=tnotesd", Binaries.path("tnotesd"), "--data-dir", dir.file("data"),
                       "--socket", dir.file("not-used.sock")]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: sock) && Date() < deadline { usleep(20_000) }
        let client = try RPCClient(path: sock)
        let status = try client.call("daemon.status")
        #expect(status["socketPath"]?.stringValue == sock)
        let made = try client.call("sermon.create", ["title": "activated"])
        #expect(made["title"] == "activated")
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        var st = stat()
        #expect(lstat(sock, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK, "the activated socket file must be left alone")
        #expect(!FileManager.default.fileExists(atPath: dir.file("not-used.sock")))
    }

    /// Whether this kernel has PR_SET_MDWE (Linux ≥ 6.3): asked of a throwaway python3 process, since the
    /// policy cannot be undone in the process that sets it.
    static let kernelHasMDWE: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        let probe = "import ctypes, sys\nsys.exit(0 if ctypes.CDLL(None).prctl(65, 1, 0, 0, 0) == 0 else 1)"
        return (try? ProcessRunner.run("/usr/bin/python3", ["-c", probe]).status) == 0
    }()

    @Test("MemoryDenyWriteExecute holds for the Swift runtime: tnotesd serves under the kernel's MDWE policy",
          .enabled(if: kernelHasMDWE, "needs python3 and a kernel with PR_SET_MDWE (Linux ≥ 6.3)"))
    func memoryDenyWriteExecute() throws {
        // PR_SET_MDWE (Linux ≥ 6.3) refuses any mapping that is, or becomes, writable and executable: the
        // policy MemoryDenyWriteExecute=yes applies. Set it, then exec tnotesd, then use it.
        let dir = TempDirectory()
        let wrapper = """
            import ctypes, os, sys
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(65, 1, 0, 0, 0) != 0:
                print("mdwe-unsupported", ctypes.get_errno()); sys.stdout.flush(); sys.exit(0)
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", wrapper, Binaries.path("tnotesd"), "--data-dir", dir.file("data"), "--socket", dir.file("s.sock")]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(30)
        while p.isRunning && !SocketProbe.accepts(dir.file("s.sock")) && Date() < deadline { usleep(20_000) }
        if !p.isRunning {
            let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("tnotesd died under MDWE (status \(p.terminationStatus)): \(said)")
            return
        }
        let c = try RPCClient(path: dir.file("s.sock"))
        #expect(try c.call("sermon.create", ["title": "under MDWE"])["title"] == "under MDWE")
        #expect(try c.call("rpc.discover")["openrpc"] != nil)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        print("MemoryDenyWriteExecute: tnotesd ran and answered under PR_SET_MDWE")
    }

    @Test("DESTDIR=… make install lays out binaries, units and example configs")
    func makeInstall() throws {
        let dest = TempDirectory()
        let config = Binaries.directory.hasSuffix("release") ? "release" : "debug"
        let r = try ProcessRunner.run("/usr/bin/make", ["-C", Self.repo, "install", "DESTDIR=\(dest.path)", "PREFIX=/opt/tn",
                                                        "CONFIG=\(config)"], timeout: 300)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let expected = [
            "opt/tn/bin/tnotesd", "opt/tn/bin/tnotes", "opt/tn/bin/tnotes-server",
            "opt/tn/lib/systemd/system/tnotesd.service", "opt/tn/lib/systemd/system/tnotesd.socket",
            "opt/tn/lib/systemd/system/tnotes-server.service",
            "opt/tn/lib/systemd/user/tnotesd.service", "opt/tn/lib/systemd/user/tnotesd.socket",
            "opt/tn/share/doc/tnotes/examples/tnotesd.toml", "opt/tn/share/doc/tnotes/examples/tnotes-server.toml",
        ]
        for path in expected {
            #expect(FileManager.default.fileExists(atPath: dest.file(path)), "missing \(path)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: dest.file("opt/tn/bin/tnotesd")))
        let unit = try String(contentsOfFile: dest.file("opt/tn/lib/systemd/system/tnotesd.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/opt/tn/bin/tnotesd"))
        let userUnit = try String(contentsOfFile: dest.file("opt/tn/lib/systemd/user/tnotesd.service"), encoding: .utf8)
        #expect(userUnit.contains("ExecStart=/opt/tn/bin/tnotesd"))
    }
}

/// A datagram socket standing in for systemd's NOTIFY_SOCKET.
final class DatagramListener {
    let path: String
    let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw HarnessError("bind \(path): errno \(errno)") }
    }

    func receive(timeout: Double) -> String? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buf, buf.count, 0)
        return n > 0 ? String(decoding: buf[0..<n], as: UTF8.self) : nil
    }

    deinit { close(fd) }
}
