import Foundation
import TNotesCore
import TNotesTestSupport
import Testing

// Exit statuses of contract §3: 0 ok, 1 RPC error, 2 usage error (naming the flag), 69 daemon unreachable;
// the socket path rule of §1; `--help` everywhere.

@Suite("tnotes exit codes and help")
struct ExitCodeTests {
    @Test("69 when no daemon listens: the message names the socket tried and how to start tnotesd",
          arguments: [["status"], ["sermon", "list"], ["rpc", "daemon.status"], ["watch"], ["sync", "status"]])
    func unreachable(command: [String]) throws {
        let empty = TempDirectory()
        let sock = empty.file("tnotesd.sock")
        let r = try CLI.run(["--socket", sock] + command)
        #expect(r.status == 69)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains(sock))
        #expect(r.stderr.contains("systemctl --user start tnotesd"))
        #expect(r.stderr.contains("`tnotesd --socket \(sock)`"))
    }

    @Test("2 for bad flag values, naming the flag", arguments: [
        (["note", "add", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--at", "xx", "text"], "--at"),
        (["note", "add", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--at", "12:60", "text"], "--at"),
        (["note", "add", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--at", "-5", "text"], "--at"),
        (["note", "edit", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--at", "1:2:3:4"], "--at"),
        (["sermon", "create", "--title", "T", "--date", "notadate"], "--date"),
        (["sermon", "create", "--title", "T", "--date", "2025-02-30"], "--date"),
        (["sermon", "update", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--date", "yesterday"], "--date"),
        (["sermon", "create"], "--title"),
        (["summary", "set", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--type", "poem", "--title", "T", "--file", "x"], "--type"),
        (["transcript", "set", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--file", "/nonexistent/t.txt"], "--file"),
        (["summary", "set", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--type", "bullet", "--title", "T", "--file", "/nonexistent"], "--file"),
        (["transcript", "set", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--file", "/tmp", "--status", "done"], "--status"),
        (["sermon", "show", "not-a-uuid"], "<id>"),
        (["note", "delete", "123"], "<note-id>"),
        (["sermon", "list", "--bogus"], "--bogus"),
        (["sermon", "update", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--archive", "--unarchive"], "--archive"),
        (["sermon", "update", "3f2504e0-4f89-41d3-9a0c-0305e82c3301"], "nothing to change"),
        (["note", "add", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "--at", "5"], "text"),
        (["frobnicate"], "frobnicate"),
    ])
    func usageErrors(args: [String], mentions: String) throws {
        let rig = try CLIRig()
        let r = try rig.run(args)
        #expect(r.status == 2, "\(args): \(r.stderr)")
        #expect(r.stderr.contains(mentions), "\(args): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("1 for an unknown sermon id, with the daemon's message on stderr")
    func rpcErrors() throws {
        let rig = try CLIRig()
        let unknown = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        for args in [["sermon", "show", unknown], ["sermon", "update", unknown, "--title", "x"], ["sermon", "delete", unknown],
                     ["note", "add", unknown, "--at", "1", "x"], ["note", "delete", unknown]] {
            let r = try rig.run(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.contains("Not found"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains(unknown))
            #expect(r.stdout.isEmpty)
        }
        // --json changes nothing about errors.
        #expect(try rig.run(["--json", "sermon", "show", unknown]).status == 1)
    }

    @Test("socket path: $TNOTES_SOCKET, socket_path in tnotesd.toml, $XDG_RUNTIME_DIR/tnotes/tnotesd.sock")
    func socketResolution() throws {
        let rig = try CLIRig()
        let viaEnv = try CLI.run(["status"], env: ["TNOTES_SOCKET": rig.socket])
        #expect(viaEnv.status == 0, "\(viaEnv.stderr)")

        let cfg = TempDirectory()
        _ = try cfg.write("tnotes/tnotesd.toml", "# test\nsocket_path = \"\(rig.socket)\"\n\n[sync]\ninterval = 60\n")
        let viaConfig = try CLI.run(["status"], env: ["XDG_CONFIG_HOME": cfg.path])
        #expect(viaConfig.status == 0, "\(viaConfig.stderr)")

        // The default: $XDG_RUNTIME_DIR/tnotes/tnotesd.sock (here a link to the daemon's socket directory).
        let runtime = TempDirectory()
        try FileManager.default.createSymbolicLink(atPath: runtime.file("tnotes"),
                                                   withDestinationPath: (rig.socket as NSString).deletingLastPathComponent)
        let viaXDG = try CLI.run(["status"], env: ["XDG_RUNTIME_DIR": runtime.path])
        #expect(viaXDG.status == 0, "\(viaXDG.stderr)")

        // --socket beats everything.
        let flag = try CLI.run(["--socket", rig.socket, "status"], env: ["TNOTES_SOCKET": "/nonexistent/x.sock"])
        #expect(flag.status == 0)

        // Without XDG_RUNTIME_DIR: /run/tnotes/tnotesd.sock as root, else /tmp/tnotes-<uid>/tnotesd.sock.
        let expected = getuid() == 0 ? "/run/tnotes/tnotesd.sock" : "/tmp/tnotes-\(getuid())/tnotesd.sock"
        let fallback = try CLI.run(["status"], env: ["XDG_CONFIG_HOME": TempDirectory().path])
        if !FileManager.default.fileExists(atPath: expected) {
            #expect(fallback.status == 69)
            #expect(fallback.stderr.contains(expected))
        }
    }

    static let commands: [[String]] = [
        [], ["status"], ["sermon"], ["sermon", "create"], ["sermon", "list"], ["sermon", "show"], ["sermon", "update"],
        ["sermon", "delete"], ["note"], ["note", "add"], ["note", "edit"], ["note", "delete"], ["transcript"],
        ["transcript", "set"], ["summary"], ["summary", "set"], ["audio"], ["audio", "import"], ["sync"], ["sync", "now"],
        ["sync", "status"], ["rpc"], ["watch"], ["completions"],
    ]

    @Test("--help on every command, with an example", arguments: commands)
    func help(command: [String]) throws {
        let r = try CLI.run(command + ["--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("USAGE: tnotes"))
        #expect(r.stdout.contains("Example"), "\(command)")
    }

    @Test("colours only on a terminal, never with NO_COLOR",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func colours() throws {
        let rig = try CLIRig()
        _ = try rig.makeSermon("Coloured")
        let cmd = "'\(CLI.path)' --socket '\(rig.socket)' sermon list"
        var env = CLI.environment()
        env["NO_COLOR"] = nil
        let tty = try ProcessRunner.run("/usr/bin/script", ["-qec", cmd, "/dev/null"], environment: env)
        #expect(tty.stdout.contains("\u{1B}["))
        env["NO_COLOR"] = "1"
        let noColor = try ProcessRunner.run("/usr/bin/script", ["-qec", cmd, "/dev/null"], environment: env)
        #expect(noColor.stdout.contains("Coloured"))
        #expect(!noColor.stdout.contains("\u{1B}["))
        env["NO_COLOR"] = nil
        let piped = try ProcessRunner.run(CLI.path, ["--socket", rig.socket, "sermon", "list"], environment: env)
        #expect(piped.stdout.contains("Coloured"))
        #expect(!piped.stdout.contains("\u{1B}["))
    }
}
