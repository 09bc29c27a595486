import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Progress lines (issue #21): on a terminal only, never when piped, with --json, NO_COLOR or TERM=dumb.
@Suite("progress on a terminal")
struct ProgressTests {
    @Test("tnotes sync shows its progress under a pseudo-terminal and nothing without one",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func syncProgress() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let daemon = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        daemon.extraArguments = ["--config", try daemon.dir.write("tnotesd.toml", syncConfigText(serverURL: server.baseURL, batchSize: 50))]
        let rig = try CLIRig(daemon: daemon)
        var env = CLI.environment()
        env["NO_COLOR"] = nil
        env["TERM"] = "xterm"
        func addNotes() throws {
            let sid = try rig.makeSermon()
            for i in 0..<200 { try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": .string("n\(i)"), "timestamp": .int(Int64(i))]) }
        }
        try addNotes()
        let cmd = "'\(CLI.path)' --socket '\(rig.socket)' sync"
        let tty = try ProcessRunner.run("/usr/bin/script", ["-qec", cmd, "/dev/null"], environment: env)
        #expect(tty.stdout.contains("syncing"), "\(tty.stdout)")
        #expect(tty.stdout.contains("pushed "), "the result line: \(tty.stdout)")

        try addNotes()
        let piped = try ProcessRunner.run(CLI.path, ["--socket", rig.socket, "sync"], environment: env)
        #expect(piped.status == 0 && !piped.stderr.contains("syncing") && piped.stdout.hasPrefix("pushed "), "\(piped.stdout)\(piped.stderr)")
        try addNotes()
        env["NO_COLOR"] = "1"
        let noColor = try ProcessRunner.run("/usr/bin/script", ["-qec", cmd, "/dev/null"], environment: env)
        #expect(!noColor.stdout.contains("syncing") && noColor.stdout.contains("pushed "), "\(noColor.stdout)")
    }
}
