import Foundation
import TNotesCore
import TNotesTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Lifecycle of a real `tnotesd`: restart, crash safety, config errors, file modes, single instance,
// signals, damaged databases, path overrides (contract §1, §2, §7).

@Suite("Lifecycle: a damaged database, and where the data and socket are")
struct DataLocationTests {
    @Test("a file of random bytes as the database: refuses to start, file untouched; --check-db fails")
    func randomBytesDatabase() throws {
        let d = DaemonProcess()
        try mkdirs(d.dataDir)
        let db = "\(d.dataDir)/tnotes.sqlite"
        let original = randomFileBytes(8192)
        try original.write(to: URL(fileURLWithPath: db))

        try d.launch()
        let status = d.waitForExit(timeout: 30)
        #expect(status != nil && status != 0, "log:\n\(d.log)")
        if status == nil { d.kill9() }
        #expect(d.log.contains(db), "message does not name the database:\n\(d.log)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == original)
        #expect(!exists(d.socketPath))

        let check = try tnotesd(["--check-db", "--data-dir", d.dataDir], env: cleanEnvironment(d.dir))
        #expect(check.status != 0, "stdout: \(check.stdout)\nstderr: \(check.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == original)
    }

    @Test("a real database truncated to half: refuses to start, file untouched; --check-db 0 before, non-zero after")
    func truncatedDatabase() throws {
        let d = DaemonProcess()
        try d.start()
        do {
            let c = try d.client()
            let long = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 8)
            for s in 0..<3 {
                _ = try makeSermon(c, notes: 100, noteText: "sermon \(s): \(long)")
            }
        }
        #expect(d.stop() == 0)

        let db = "\(d.dataDir)/tnotes.sqlite"
        let healthy = try tnotesd(["--check-db", "--data-dir", d.dataDir], env: cleanEnvironment(d.dir))
        #expect(healthy.status == 0, "stdout: \(healthy.stdout)\nstderr: \(healthy.stderr)")

        let full = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(full.count >= 64 * 1024, "database unexpectedly small: \(full.count) bytes")
        let half = full.prefix(full.count / 2)
        try Data(half).write(to: URL(fileURLWithPath: db))
        let truncated = try Data(contentsOf: URL(fileURLWithPath: db))

        try d.launch()
        let status = d.waitForExit(timeout: 30)
        #expect(status != nil && status != 0, "log:\n\(d.log)")
        if status == nil { d.kill9() }
        #expect(d.log.contains(db), "message does not name the database:\n\(d.log)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == truncated)

        let check = try tnotesd(["--check-db", "--data-dir", d.dataDir], env: cleanEnvironment(d.dir))
        #expect(check.status != 0, "stdout: \(check.stdout)\nstderr: \(check.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == truncated)
    }

    // 10
    @Test("TNOTES_DATA_DIR and TNOTES_SOCKET are honoured without flags")
    func environmentOverrides() throws {
        let dir = TempDirectory()
        let dataDir = dir.file("envdata")
        let socket = dir.file("envrun/e.sock")
        let p = try RawDaemon(arguments: [], environment: cleanEnvironment(dir, [
            "TNOTES_DATA_DIR": dataDir, "TNOTES_SOCKET": socket,
        ]), logPath: dir.file("d.log"))
        try p.waitUntilReady(socket: socket)
        let status = try RPCClient(path: socket).call("daemon.status")
        #expect(status["dataDir"]?.stringValue == dataDir)
        #expect(status["socketPath"]?.stringValue == socket)
        #expect(exists("\(dataDir)/tnotes.sqlite"))
        // Nothing at the XDG defaults.
        #expect(!exists(dir.file("xdg-data/tnotes")))
        #expect(!exists(dir.file("xdg-run/tnotes/tnotesd.sock")))
        #expect(p.stop() == 0, "log:\n\(p.log)")
        #expect(!exists(socket))
    }

    @Test("flags beat TNOTES_DATA_DIR and TNOTES_SOCKET")
    func flagsBeatEnvironment() throws {
        let dir = TempDirectory()
        let envData = dir.file("envdata"), envSocket = dir.file("envrun/e.sock")
        let flagData = dir.file("flagdata"), flagSocket = dir.file("flagrun/f.sock")
        let p = try RawDaemon(arguments: ["--data-dir", flagData, "--socket", flagSocket],
                              environment: cleanEnvironment(dir, ["TNOTES_DATA_DIR": envData, "TNOTES_SOCKET": envSocket]),
                              logPath: dir.file("d.log"))
        try p.waitUntilReady(socket: flagSocket)
        let status = try RPCClient(path: flagSocket).call("daemon.status")
        #expect(status["dataDir"]?.stringValue == flagData)
        #expect(status["socketPath"]?.stringValue == flagSocket)
        #expect(exists("\(flagData)/tnotes.sqlite"))
        #expect(!exists(envData))
        #expect(!exists(envSocket))
        #expect(p.stop() == 0, "log:\n\(p.log)")
    }

    @Test("config data_dir/socket_path are used; the environment beats them")
    func configPathsAndEnvironment() throws {
        let dir = TempDirectory()
        let cfgData = dir.file("cfgdata"), cfgSocket = dir.file("cfgrun/c.sock")
        _ = try dir.write("config/tnotes/tnotesd.toml", """
            data_dir = "\(cfgData)"
            socket_path = "\(cfgSocket)"

            """)
        do {
            let p = try RawDaemon(arguments: [], environment: cleanEnvironment(dir), logPath: dir.file("a.log"))
            try p.waitUntilReady(socket: cfgSocket)
            let status = try RPCClient(path: cfgSocket).call("daemon.status")
            #expect(status["dataDir"]?.stringValue == cfgData)
            #expect(p.stop() == 0, "log:\n\(p.log)")
        }
        let envData = dir.file("envdata"), envSocket = dir.file("envrun/e.sock")
        let p = try RawDaemon(arguments: [], environment: cleanEnvironment(dir, [
            "TNOTES_DATA_DIR": envData, "TNOTES_SOCKET": envSocket,
        ]), logPath: dir.file("b.log"))
        try p.waitUntilReady(socket: envSocket)
        let status = try RPCClient(path: envSocket).call("daemon.status")
        #expect(status["dataDir"]?.stringValue == envData)
        #expect(status["socketPath"]?.stringValue == envSocket)
        #expect(!SocketProbe.accepts(cfgSocket))
        #expect(p.stop() == 0, "log:\n\(p.log)")
    }

    // 11
    @Test("--version prints a version and exits 0; --help exits 0")
    func versionAndHelp() throws {
        let dir = TempDirectory()
        let v = try tnotesd(["--version"], env: cleanEnvironment(dir))
        #expect(v.status == 0, "stderr: \(v.stderr)")
        let version = v.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.range(of: #"\d+\.\d+(\.\d+)?"#, options: .regularExpression) != nil, "stdout: \(v.stdout)")

        let h = try tnotesd(["--help"], env: cleanEnvironment(dir))
        #expect(h.status == 0, "stderr: \(h.stderr)")
        #expect(h.stdout.contains("--data-dir") && h.stdout.contains("--socket"), "stdout: \(h.stdout)")
        // Neither touched any files.
        #expect(!exists(dir.file("xdg-data")) && !exists(dir.file("xdg-run")))
    }
}
