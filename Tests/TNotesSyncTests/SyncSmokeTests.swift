import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// The simplest end-to-end sync: one server, two daemons, a sermon and its children from A reach B.
@Suite("sync smoke")
struct SyncSmokeTests {
    @Test("a sermon made on A, then notes/transcript/summary added on A, all reach B")
    func sermonAndChildrenReachB() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let config = "[sync]\nserver_url = \"\(server.baseURL)\"\ninterval = 300\nrealtime = false\n"
        let a = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        let b = DaemonProcess(environment: ["TNOTES_TOKEN": token])
        for d in [a, b] {
            let path = try d.dir.write("tnotesd.toml", config)
            d.extraArguments = ["--config", path]
            try d.start()
        }
        defer { a.stop(); b.stop() }
        let ca = try a.client(), cb = try b.client()
        let sermon = try ca.call("sermon.create", ["title": "Grace"])
        let id = try #require(sermon["id"]?.stringValue)
        try ca.call("sync.now", ["wait": true])
        try cb.call("sync.now", ["wait": true])
        #expect(try cb.call("sermon.get", ["id": .string(id)])["title"] == "Grace")

        // The sermon now exists on B; children added later on A must still arrive (seed 000's bug).
        try ca.call("note.add", ["sermonId": .string(id), "text": "n1", "timestamp": 5])
        let segments: JSON = [["start": 0, "end": 2.5, "text": "hello", "speaker": "P"]]
        try ca.call("transcript.set", ["sermonId": .string(id), "text": "tx", "segments": segments])
        try ca.call("summary.set", ["sermonId": .string(id), "title": "S", "text": "sum", "type": "bullet"])
        let pushed = try ca.call("sync.now", ["wait": true])
        // The note, the transcript, the summary, and the sermon twice (its transcription and summary statuses follow).
        #expect(pushed["pushed"]?.int64Value == 5)
        try cb.call("sync.now", ["wait": true])
        let onB = try cb.call("sermon.get", ["id": .string(id)])
        #expect(onB["notes"]?.arrayValue?.first?["text"] == "n1")
        #expect(onB["transcript"]?["segments"] == segments)
        #expect(onB["summary"]?["title"] == "S")
        #expect(onB["syncState"] == "synced")
        #expect(try ca.call("sync.pending") == [])
    }
}
