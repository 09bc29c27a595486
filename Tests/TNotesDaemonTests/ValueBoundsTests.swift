import Testing
import TNotesCore
import TNotesTestSupport

// Contract §8.1 (docs/socket-api.md, "Bounds") on the socket: values out of bounds are refused with -32602
// naming the field, the values at the bounds are kept exactly, and nothing is written by a refused call.

@Suite("Value bounds on the socket (contract §8.1)")
struct ValueBoundsTests {
    /// Runs `body` with a fresh daemon, then expects a clean stop.
    private func withDaemon(_ body: (RPCClient) throws -> Void) throws {
        let d = try DaemonProcess().start()
        do {
            try body(try d.client())
        } catch {
            _ = d.stop()
            throw error
        }
        #expect(d.stop() == 0, "tnotesd did not exit 0; log:\n\(d.log)")
    }

    private func refused(_ c: RPCClient, _ method: String, _ params: JSON, field: String,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let e = try c.callError(method, params)
        #expect(e.code == -32602, "\(method): \(e)", sourceLocation: sourceLocation)
        #expect(e.field == field, "\(method): \(e)", sourceLocation: sourceLocation)
    }

    @Test("timestamps, segment times, labels and note text outside the bounds are refused, naming the field")
    func refusedOutsideTheBounds() throws {
        try withDaemon { c in
            let long = String(repeating: "é", count: 1_001)
            try refused(c, "sermon.create", ["title": .string(long)], field: "title")
            try refused(c, "sermon.create", ["title": "ok", "speaker": .string(long)], field: "speaker")
            try refused(c, "sermon.create", ["title": "ok", "serviceType": .string(long)], field: "serviceType")
            let sermon = try c.call("sermon.create", ["title": "Bounds"])
            let sermonId = try #require(sermon["id"])
            try refused(c, "sermon.update", ["id": sermonId, "title": .string(long)], field: "title")

            for bad in [JSON.double(1e19), .double(1.7e308), .double(604_800.001), .int(604_801), .int(Int64.max)] {
                try refused(c, "note.add", ["sermonId": sermonId, "text": "x", "timestamp": bad], field: "timestamp")
            }
            try refused(c, "note.add", ["sermonId": sermonId, "text": .string(String(repeating: "a", count: 100_001)),
                                        "timestamp": 1], field: "text")
            let note = try c.call("note.add", ["sermonId": sermonId, "text": "kept", "timestamp": 12])
            try refused(c, "note.update", ["id": note["id"]!, "timestamp": 1e19], field: "timestamp")

            try refused(c, "transcript.set", ["sermonId": sermonId, "text": "t",
                                              "segments": [["start": 0, "end": 1, "text": "a"],
                                                           ["start": 1, "end": 1e19, "text": "b"]]],
                        field: "segments[1].end")
            try refused(c, "transcript.set", ["sermonId": sermonId, "text": "t",
                                              "segments": [["start": 700_000, "end": 700_001, "text": "a"]]],
                        field: "segments[0].start")

            // Nothing of the refused calls was written: one sermon, one note (unchanged), no transcript.
            let full = try c.call("sermon.get", ["id": sermonId])
            #expect(full["title"]?.stringValue == "Bounds")
            #expect(full["notes"]?.arrayValue?.count == 1)
            #expect(full["notes"]?[0]?["timestamp"]?.doubleValue == 12)
            #expect(full["transcript"]?.isNull ?? true)
            #expect(try c.call("sermon.list", [:])["items"]?.arrayValue?.count == 1)
        }
    }

    @Test("values at the bounds are kept exactly")
    func keptAtTheBounds() throws {
        try withDaemon { c in
            let title = String(repeating: "👨‍👩‍👧", count: 1_000)  // 1,000 characters, 18,000 UTF-8 bytes
            let sermon = try c.call("sermon.create", ["title": .string(title), "speaker": .string(String(repeating: "s", count: 1_000))])
            #expect(sermon["title"]?.stringValue == title)
            let sermonId = try #require(sermon["id"])
            let text = String(repeating: "w", count: 100_000)
            let note = try c.call("note.add", ["sermonId": sermonId, "text": .string(text), "timestamp": 604_800])
            #expect(note["timestamp"]?.doubleValue == 604_800)
            #expect(note["text"]?.stringValue == text)
            let t = try c.call("transcript.set", ["sermonId": sermonId, "text": "t",
                                                  "segments": [["start": 604_799.5, "end": 604_800, "text": "last"]]])
            #expect(t["segments"]?[0]?["end"]?.doubleValue == 604_800)
        }
    }
}

private extension JSON {
    subscript(index: Int) -> JSON? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }
}
