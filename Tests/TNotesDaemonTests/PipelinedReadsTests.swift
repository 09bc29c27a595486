import Foundation
import TNotesCore
import TNotesTestSupport
import Testing

// Pipelined read-only calls on one connection run side by side (UnixSocketServer + Dispatcher.prepare);
// what a client sees must not change: answers in request order, and a read sees every write sent before it.
@Suite("Pipelined reads")
struct PipelinedReadsTests {
    @Test("a pipeline of writes and reads: answers in order, each read sees the writes before it")
    func readsSeeEarlierWritesInOrder() throws {
        let daemon = try DaemonProcess().start()
        defer { daemon.stop() }
        let c = try daemon.client()
        let sermon = try c.call("sermon.create", ["title": "Pipelined", "date": "2025-11-09"])
        let sid = try #require(sermon["id"]?.stringValue)
        var lines: [String] = []
        var expectedNotes: [Int: Int] = [:]  // request id of a sermon.get → notes it must see
        var added = 0
        for k in 1...200 {
            let request: JSON
            if k % 10 == 0 {
                added += 1
                request = ["jsonrpc": "2.0", "id": .int(Int64(k)), "method": "note.add",
                           "params": ["sermonId": .string(sid), "text": .string("note \(added)"), "timestamp": .int(Int64(added))]]
            } else if k % 7 == 0 {
                request = ["jsonrpc": "2.0", "id": .int(Int64(k)), "method": "daemon.status"]
            } else {
                request = ["jsonrpc": "2.0", "id": .int(Int64(k)), "method": "sermon.get", "params": ["id": .string(sid)]]
                expectedNotes[k] = added
            }
            lines.append(request.text)
        }
        try c.send(bytes: Array((lines.joined(separator: "\n") + "\n").utf8))
        for k in 1...200 {
            let line = try #require(try c.readLine(), "answer \(k) missing")
            let reply = try JSON.parse(Array(line.utf8))
            #expect(reply["id"]?.int64Value == Int64(k), "answers out of order: expected id \(k), got \(line.prefix(80))")
            if let want = expectedNotes[k] {
                let notes = reply["result"]?["notes"]?.arrayValue?.count
                #expect(notes == want, "sermon.get \(k) saw \(String(describing: notes)) notes, expected \(want)")
            } else {
                #expect(reply["error"] == nil, "\(line.prefix(200))")
            }
        }
    }
}
