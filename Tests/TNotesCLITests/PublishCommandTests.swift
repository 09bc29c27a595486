import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// `tnotes publish` and `tnotes unpublish` (contract §6.5 CLI).
@Suite("tnotes publish and unpublish")
struct PublishCommandTests {
    @Test("publish prints the page's URL once synced (queued when offline); unpublish; bad ids exit 2, unknown ones 1")
    func publishAndUnpublish() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let daemon = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        daemon.extraArguments = ["--config", try daemon.dir.write("tnotesd.toml", syncConfigText(serverURL: server.baseURL))]
        let rig = try CLIRig(daemon: daemon)
        let sid = try rig.makeSermon("Bread of Life")
        try rig.rpc.call("note.add", ["sermonId": .string(sid), "text": "I am the bread of life", "timestamp": 95])

        let p = try rig.run(["publish", sid, "--transcript"])
        #expect(p.status == 0 && p.stdout.hasPrefix("\(server.baseURL)/p/bread-of-life-"), "\(p.stdout)\(p.stderr)")
        let json = try rig.json(["publish", sid])
        #expect(json["state"] == "published" && json["parts"] == ["notes", "summary"])
        let u = try rig.run(["unpublish", sid])
        #expect(u.status == 0 && u.stdout.hasPrefix("unpublished: bread-of-life-"), "\(u.stdout)\(u.stderr)")
        #expect(try rig.run(["unpublish", sid]).status == 1)
        #expect(try rig.run(["publish", "nope"]).status == 2)
        #expect(try rig.run(["publish", Identifier.make()]).status == 1)

        // Without sync, the publish is queued.
        let offline = try CLIRig()
        let other = try offline.makeSermon("Offline")
        let q = try offline.run(["publish", other])
        #expect(q.status == 0 && q.stdout.contains("queued"), "\(q.stdout)\(q.stderr)")
    }
}
