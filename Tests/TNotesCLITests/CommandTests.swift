import Foundation
import TNotesCore
import TNotesTestSupport
import Testing

// Every command of contract §3 and §6, run as the real `tnotes` binary against a real `tnotesd`.
// `--json` output must equal what the same call answers through the socket.

@Suite("tnotes commands")
struct CommandTests {
    @Test("status: --json equals daemon.status; human output names version, socket and sync state")
    func status() throws {
        let rig = try CLIRig()
        let viaCLI = try rig.json(["status"])
        let viaRPC = try rig.rpc.call("daemon.status")
        #expect(viaCLI.removing("uptimeSeconds") == viaRPC.removing("uptimeSeconds"))
        let r = try rig.run(["status"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("tnotesd 0.1.0 running"))
        #expect(r.stdout.contains(rig.socket))
        #expect(r.stdout.contains("disabled, 0 pending, 0 failed"))
    }

    @Test("sermon create/list/show/update/delete: --json equals the RPC result")
    func sermonLifecycle() throws {
        let rig = try CLIRig()
        let created = try rig.json(["sermon", "create", "--title", "Bread from Heaven", "--speaker", "Ann Lee",
                                    "--service-type", "Evening Service", "--date", "2025-11-09"])
        let id = try #require(created["id"]?.stringValue)
        #expect(created["date"] == "2025-11-09T00:00:00.000Z")
        #expect(created["speaker"] == "Ann Lee")
        #expect(created["serviceType"] == "Evening Service")
        #expect(created == (try rig.rpc.call("sermon.get", ["id": .string(id)])))

        // RFC 3339 with an offset is accepted and sent canonical.
        let second = try rig.json(["sermon", "create", "--title", "Second", "--date", "2025-11-16T10:30:00+01:00"])
        #expect(second["date"] == "2025-11-16T09:30:00.000Z")
        #expect(second["speaker"] == .null)

        #expect(try rig.json(["sermon", "list"]) == (try rig.rpc.call("sermon.list", [:])))
        #expect(try rig.json(["sermon", "show", id]) == (try rig.rpc.call("sermon.get", ["id": .string(id)])))
        // Upper-case ids are accepted.
        #expect(try rig.json(["sermon", "show", id.uppercased()])["id"] == .string(id))

        let human = try rig.run(["sermon", "create", "--title", "Third"])
        #expect(human.status == 0)
        #expect(human.stdout.hasPrefix("created sermon "))

        let updated = try rig.json(["sermon", "update", id, "--title", "Manna", "--speaker", "", "--archive"])
        #expect(updated["title"] == "Manna")
        #expect(updated["speaker"] == .null)
        #expect(updated["isArchived"] == true)
        #expect(updated == (try rig.rpc.call("sermon.get", ["id": .string(id)])))
        let listed = try rig.json(["sermon", "list"])["items"]?.arrayValue ?? []
        #expect(!listed.contains { $0["id"] == .string(id) })
        let archived = try rig.json(["sermon", "list", "--archived"])
        #expect(archived == (try rig.rpc.call("sermon.list", ["includeArchived": true])))
        #expect(archived["items"]?.arrayValue?.contains { $0["id"] == .string(id) } == true)
        let un = try rig.json(["sermon", "update", id, "--unarchive", "--date", "2025-11-10"])
        #expect(un["isArchived"] == false)
        #expect(un["date"] == "2025-11-10T00:00:00.000Z")

        let deleted = try rig.json(["sermon", "delete", id])
        #expect(deleted["id"] == .string(id))
        #expect(deleted["deletedAt"] == (try rig.rpc.call("sermon.get", ["id": .string(id)]))["deletedAt"])
        let again = try rig.run(["sermon", "delete", id])
        #expect(again.status == 1)
    }

    @Test("sermon list follows the daemon's pages")
    func listPages() throws {
        let rig = try CLIRig()
        for i in 0..<105 { _ = try rig.rpc.call("sermon.create", ["title": .string("S\(i)")]) }
        let all = try rig.json(["sermon", "list"])
        #expect(all["items"]?.arrayValue?.count == 105)
        #expect(all["next"] == .null)
        let table = try rig.run(["sermon", "list"])
        #expect(table.status == 0)
        #expect(table.stdout.split(separator: "\n").count == 106)
    }

    @Test("note add --at 12:34 / seconds / h:mm:ss, note edit, note delete")
    func notes() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon()
        let a = try rig.json(["note", "add", sid, "--at", "12:34", "Manna", "every", "morning"])
        #expect(a["timestamp"] == 754)
        #expect(a["text"] == "Manna every morning")
        #expect(a["sermonId"] == .string(sid))
        let b = try rig.json(["note", "add", sid, "--at", "1:02:03", "Closing"])
        #expect(b["timestamp"] == 3723)
        let c = try rig.json(["note", "add", sid, "--at", "90.5", "Half"])
        #expect(c["timestamp"]?.doubleValue == 90.5)
        let human = try rig.run(["note", "add", sid, "--at", "5", "Welcome"])
        #expect(human.status == 0)
        #expect(human.stdout.contains("at 00:05"))

        let sermon = try rig.rpc.call("sermon.get", ["id": .string(sid)])
        let notes = sermon["notes"]?.arrayValue ?? []
        #expect(notes.map { $0["text"]?.stringValue ?? "" } == ["Welcome", "Half", "Manna every morning", "Closing"])
        #expect(notes.first { $0["id"] == a["id"] } == a)

        let aid = a["id"]!.stringValue!
        let edited = try rig.json(["note", "edit", aid, "--at", "12:40", "Manna,", "daily"])
        #expect(edited["timestamp"] == 760)
        #expect(edited["text"] == "Manna, daily")
        let textOnly = try rig.json(["note", "edit", aid, "New", "text"])
        #expect(textOnly["timestamp"] == 760)
        #expect(textOnly["text"] == "New text")
        #expect((try rig.rpc.call("sermon.get", ["id": .string(sid)]))["notes"]?.arrayValue?.first { $0["id"] == a["id"] } == textOnly)

        let del = try rig.json(["note", "delete", aid])
        #expect(del["id"] == .string(aid))
        #expect(try rig.rpc.call("sermon.get", ["id": .string(sid)])["notes"]?.arrayValue?.count == 3)
        // A deleted note is gone for writes: the daemon's error, exit 1.
        let gone = try rig.run(["note", "edit", aid, "--at", "1"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("deleted"))
    }

    @Test("transcript set from plain text and from JSON with segments (segments round-trip)")
    func transcripts() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon()
        let dir = TempDirectory()
        let plain = try dir.write("t.txt", "Good morning, church.\nTurn to Exodus 16.\n")
        let t1 = try rig.json(["transcript", "set", sid, "--file", plain])
        #expect(t1["text"] == "Good morning, church.\nTurn to Exodus 16.")
        #expect(t1["segments"] == [])
        #expect(t1["status"] == "complete")
        #expect(t1 == (try rig.rpc.call("sermon.get", ["id": .string(sid)]))["transcript"])

        let segments: JSON = [
            ["start": 0, "end": 7.5, "text": "Good morning, church."],
            ["start": 7.5, "end": 15, "text": "Turn to Exodus 16.", "speaker": "Ann"],
        ]
        let doc: JSON = ["text": "Good morning, church. Turn to Exodus 16.", "segments": segments]
        let jsonFile = try dir.write("t.json", doc.text)
        let t2 = try rig.json(["transcript", "set", sid, "--file", jsonFile])
        #expect(t2["segments"] == segments)
        #expect(t2["text"] == doc["text"])
        let stored = try rig.rpc.call("sermon.get", ["id": .string(sid)])["transcript"]
        #expect(stored == t2)
        #expect(stored?["segments"] == segments)
        #expect(stored?["id"] == t1["id"])

        // From stdin, with a status.
        let t3 = try rig.json(["transcript", "set", sid, "--file", "-", "--status", "processing"], stdin: "partial")
        #expect(t3["text"] == "partial")
        #expect(t3["status"] == "processing")

        // A JSON file that is not a transcript is a usage error naming --file.
        let bad = try dir.write("bad.json", "{\"segments\": []}")
        let r = try rig.run(["transcript", "set", sid, "--file", bad])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--file"))
        // Segments the daemon refuses: exit 1 with the field.
        let badSeg = try dir.write("seg.json", "{\"text\": \"x\", \"segments\": [{\"start\": 5, \"end\": 1, \"text\": \"x\"}]}")
        let r2 = try rig.run(["transcript", "set", sid, "--file", badSeg])
        #expect(r2.status == 1)
        #expect(r2.stderr.contains("field: segments[0].end"))
    }

    @Test("summary set, audio import")
    func summaryAndAudio() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon()
        let dir = TempDirectory()
        let file = try dir.write("s.txt", "God gives enough for today.\n")
        let s = try rig.json(["summary", "set", sid, "--type", "devotional", "--title", "Daily bread", "--file", file])
        #expect(s["type"] == "devotional")
        #expect(s["title"] == "Daily bread")
        #expect(s["text"] == "God gives enough for today.")
        #expect(s == (try rig.rpc.call("sermon.get", ["id": .string(sid)]))["summary"])

        let bytes = (0..<5000).map { UInt8($0 % 251) }
        let audio = dir.file("sermon.m4a")
        #expect(FileManager.default.createFile(atPath: audio, contents: Data(bytes)))
        let imported = try rig.json(["audio", "import", sid, audio])
        #expect(imported == (try rig.rpc.call("sermon.get", ["id": .string(sid)])))
        #expect(imported["audio"]?["sizeBytes"] == 5000)
        #expect(imported["audio"]?["localAvailable"] == true)
        let sum = try ProcessRunner.run("/usr/bin/sha256sum", [audio])
        #expect(imported["audio"]?["sha256"]?.stringValue == sum.stdout.split(separator: " ").first.map(String.init))
        let show = try rig.run(["sermon", "show", sid])
        #expect(show.stdout.contains("Audio:    sermon.m4a, 5.0 kB, on this device, not uploaded"))
        // A relative path is resolved against the CLI's working directory: run from the file's folder.
        let rel = try ProcessRunner.run("/bin/sh", ["-c", "cd '\(dir.path)' && '\(CLI.path)' --socket '\(rig.socket)' audio import \(sid) sermon.m4a"],
                                        environment: CLI.environment())
        #expect(rel.status == 0, "\(rel.stderr)")
        let missing = try rig.run(["audio", "import", sid, dir.file("nope.m4a")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("field: path"))
    }

    @Test("sync with sync disabled: exit 1 with the daemon's reason; sync status shows the state")
    func syncDisabled() throws {
        let rig = try CLIRig()
        let r = try rig.run(["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("sync is disabled"))
        #expect(try rig.run(["sync", "--no-wait"]).status == 1)
        _ = try rig.makeSermon()
        let st = try rig.run(["sync", "status"])
        #expect(st.status == 0)
        #expect(st.stdout.contains("state:         disabled"))
        #expect(st.stdout.contains("pending ops:   1"))
        #expect(st.stdout.contains("last success:  never"))
        #expect(try rig.json(["sync", "status"]) == (try rig.rpc.call("sync.status")))
    }

    @Test("sync against a real tnotes-server: counts, --no-wait, status")
    func syncWithServer() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let daemon = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        let config = try daemon.dir.write("tnotesd.toml", "[sync]\nserver_url = \"\(server.baseURL)\"\ninterval = 300\nrealtime = false\n")
        daemon.extraArguments = ["--config", config]
        let rig = try CLIRig(daemon: daemon)
        let sid = try rig.makeSermon()
        _ = try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "n", "timestamp": 1])

        let started = try rig.run(["sync", "--no-wait"])
        #expect(started.status == 0)
        #expect(started.stdout == "sync started\n")
        let r = try rig.run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.stdout.trimmingCharacters(in: .newlines)
        #expect(line.wholeMatch(of: try Regex("pushed [0-9]+, pulled [0-9]+, [0-9]+ conflicts? in [0-9]+ ms")) != nil, "\(line)")

        _ = try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "m", "timestamp": 2])
        let j = try rig.json(["sync"])
        // 1, unless the daemon's own local-change trigger pushed the note first.
        #expect([0, 1].contains(j["pushed"]?.int64Value ?? -1), "\(j.text)")
        #expect(j["conflicts"] == 0)
        #expect(j["durationMs"]?.int64Value != nil)

        let st = try rig.run(["sync", "status"])
        #expect(st.status == 0)
        #expect(st.stdout.contains("state:         idle"))
        #expect(st.stdout.contains("server:        \(server.baseURL)"))
        #expect(st.stdout.contains("pending ops:   0"))
        #expect(!st.stdout.contains("last success:  never"))
        #expect(try rig.json(["sync", "status"]) == (try rig.rpc.call("sync.status")))
    }

    @Test("rpc METHOD [JSON_PARAMS], params from stdin with -")
    func rawRPC() throws {
        let rig = try CLIRig()
        let sid = try rig.makeSermon()
        let r = try rig.run(["rpc", "sermon.get", "{\"id\": \"\(sid)\"}"])
        #expect(r.status == 0)
        #expect(try JSON.parse(r.stdout) == (try rig.rpc.call("sermon.get", ["id": .string(sid)])))
        let viaStdin = try rig.run(["rpc", "sermon.list", "-"], stdin: "{\"limit\": 1}\n")
        #expect(viaStdin.status == 0)
        #expect(try JSON.parse(viaStdin.stdout) == (try rig.rpc.call("sermon.list", ["limit": 1])))
        let noParams = try rig.run(["rpc", "sync.status"])
        #expect(try JSON.parse(noParams.stdout) == (try rig.rpc.call("sync.status")))

        let badJSON = try rig.run(["rpc", "sermon.get", "{id:"])
        #expect(badJSON.status == 2)
        #expect(badJSON.stderr.contains("json-params"))
        let unknown = try rig.run(["rpc", "no.such.method"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("Method not found"))
        let field = try rig.run(["rpc", "note.add", "{\"sermonId\": \"\(sid)\", \"text\": \"x\", \"timestamp\": -1}"])
        #expect(field.status == 1)
        #expect(field.stderr.contains("(field: timestamp)"))
    }

    @Test("watch prints one line per event until interrupted; --json prints JSON lines")
    func watch() throws {
        let rig = try CLIRig()
        let human = try RunningCLI(["--socket", rig.socket, "watch", "--topic", "record.changed"])
        let json = try RunningCLI(["--socket", rig.socket, "--json", "watch"])
        var made = [String]()
        let seen = eventually(timeout: 15, every: 0.2) {
            made.append((try? rig.makeSermon("watched")) ?? "")
            return human.stdout.contains("record.changed") && json.stdout.contains("record.changed")
        }
        #expect(seen, "human: \(human.stdout) \(human.stderr) json: \(json.stdout) \(json.stderr)")
        let last = try #require(made.last)
        #expect(eventually(timeout: 5) { human.stdout.contains("upsert sermons \(last) (local)") })
        #expect(human.stop() == 0)
        #expect(eventually(timeout: 5) { json.lines.contains { (try? JSON.parse($0))?["id"] == .string(last) } })
        #expect(json.stop() == 0)
        for line in json.lines {
            let e = try JSON.parse(line)
            #expect(e["topic"] != nil)
            if e["topic"] == "record.changed" {
                #expect(e["collection"] == "sermons")
                #expect(e["op"] == "upsert")
            }
        }
        let bad = try rig.run(["watch", "--topic", "nope"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--topic"))
    }

    @Test("watch ends with 69 when the daemon goes away")
    func watchDaemonGone() throws {
        let rig = try CLIRig()
        let w = try RunningCLI(["--socket", rig.socket, "watch"])
        usleep(300_000)
        rig.daemon.stop()
        #expect(eventually(timeout: 10) { !w.process.isRunning })
        #expect(w.stop() == 69)
        #expect(w.stderr.contains("closed the connection"))
    }

    @Test("completions bash|zsh|fish come from argument-parser's generator", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) throws {
        let r = try CLI.run(["completions", shell])
        #expect(r.status == 0)
        #expect(r.stdout.contains("tnotes"))
        #expect(r.stdout.contains("sermon"))
        #expect(r.stdout.contains("transcript"))
        let bad = try CLI.run(["completions", "tcsh"])
        #expect(bad.status == 2)
    }

    @Test("`tnotes --json sermon list | python3 -m json.tool` succeeds")
    func pipeToJSONTool() throws {
        let rig = try CLIRig()
        _ = try rig.makeSermon("Piped")
        let r = try ProcessRunner.run("/bin/sh", ["-c", "'\(CLI.path)' --socket '\(rig.socket)' --json sermon list | python3 -m json.tool"],
                                      environment: CLI.environment())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"title\": \"Piped\""))
    }
}
