import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.4: any number of `tnotes-server` processes on one PostgreSQL database serve the same users
/// interchangeably, audio included, with no sticky sessions and no shared disk (each instance here has a
/// data directory of its own).
@Suite("sync: two server instances on one PostgreSQL")
struct SyncInstancesTests {
    /// A second instance on the first one's database, with its own data directory.
    static func secondInstance(of first: ServerProcess) throws -> ServerProcess {
        let second = ServerProcess(database: first.database)
        try second.start()
        return second
    }

    /// Two running instances on one new PostgreSQL database, and a user's token.
    static func twoInstances() throws -> (ServerProcess, ServerProcess, String) {
        let first = try Backend.postgres.makeServer()
        let token = try first.addUser("alice")
        try first.start()
        do {
            return (first, try secondInstance(of: first), token)
        } catch {
            first.stop()
            throw error
        }
    }

    @Test("A on instance 1 and B on instance 2: realtime delivery, and a killed instance loses nothing")
    func realtimeAcrossInstances() throws {
        let first = try Backend.postgres.makeServer()
        // The rig starts `first` and adds the user; B's URL is instance 2's, known only once it runs.
        let rig = try SyncRig(interval: 600, backoffBase: 0.2, backoffMax: 1, startDevices: false, realtime: nil, server: first)
        defer { rig.stop() }
        let second = try Self.secondInstance(of: first)
        defer { second.stop() }
        let config = syncConfigText(serverURL: second.baseURL, interval: 600, backoffBase: 0.2, backoffMax: 1, realtime: nil)
        rig.b.extraArguments = ["--config", try rig.b.dir.write("tnotesd.toml", config)]
        try rig.a.start()
        try rig.b.start()
        try rig.withLogs {
            let sermon = try #require(try rig.rpc(0).call("sermon.create", ["title": "Two servers"])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            try SyncRealtimeTests.waitRealtime(rig)
            let sub = try SyncRealtimeTests.subscribe(rig.b)
            let latency = try SyncRealtimeTests.deliver(rig, sermon: sermon, sub: sub, text: "via instance 1")
            #expect(latency != nil, "B (instance 2) did not see A's note (instance 1) within 5 s\n\(second.log.suffix(2000))")

            // Instance 2 dies (B's); A's acknowledged change waits in PostgreSQL and reaches B once 2 is back.
            let port2 = second.port
            second.kill9()
            let note = try rig.rpc(0).call("note.add", ["sermonId": .string(sermon), "text": "while 2 was down", "timestamp": 2])
            #expect(try rig.rpc(0).call("sync.now", ["wait": true])["pushed"]?.int64Value == 1)
            try second.start(port: port2)
            let id = try #require(note["id"]?.stringValue)
            #expect(try SyncRealtimeTests.awaitRecordChanged(sub, id: id, timeout: 15) != nil,
                    "B did not get the note pushed while its instance was down")

            // Instance 1 dies right after acknowledging a push: instance 2 has it.
            let late = try rig.rpc(0).call("note.add", ["sermonId": .string(sermon), "text": "acked by 1", "timestamp": 3])
            #expect(try rig.rpc(0).call("sync.now", ["wait": true])["pushed"]?.int64Value == 1)
            first.kill9()
            let lateId = try #require(late["id"]?.stringValue)
            #expect(try SyncRealtimeTests.awaitRecordChanged(sub, id: lateId, timeout: 15) != nil)
            let http = HTTPTestClient(baseURL: second.baseURL, token: rig.token)
            #expect(try http.pullAll().changes.contains { $0["id"]?.stringValue == lateId })
        }
    }

    @Test("acknowledged pushes survive kill -9 of the instance that acknowledged them, either way round")
    func acknowledgedPushesSurviveKill() throws {
        let (first, second, token) = try Self.twoInstances()
        defer { first.stop(); second.stop() }
        for (writer, reader) in [(first, second), (second, first)] {
            let sids = (0..<50).map { _ in Wire.id() }
            let answer = try writer.client(token).push(sids.map { Wire.change(.sermons, Wire.sermon($0)) })
            #expect(answer.statuses == Array(repeating: "applied", count: 50))
            let port = writer.port
            writer.kill9()
            let seen = Set(try reader.client(token).pullAll().changes.compactMap { $0["id"]?.stringValue })
            #expect(Set(sids).isSubset(of: seen), "\(Set(sids).subtracting(seen).count) acknowledged changes missing")
            try writer.start(port: port)
        }
    }

    @Test("audio uploaded through instance 1 downloads through instance 2 (sha256, Range), then is replaced")
    func audioAcrossInstances() throws {
        let (first, second, token) = try Self.twoInstances()
        defer { first.stop(); second.stop() }
        let one = first.client(token), two = second.client(token)
        let sid = Wire.id()
        // Over three 1 MiB chunks, so ranges cross chunk boundaries.
        let bytes = testBytes(3 << 20 + 12345, seed: 42)
        let hex = TestSHA256.hex(bytes)
        let put = try one.putAudio(sid, bytes, headers: ["X-Content-SHA256": hex])
        #expect((200...201).contains(put.status), "PUT: \(put.status) \(put.text)")

        let whole = try two.get("/v1/audio/\(sid)", headers: noCache)
        #expect(whole.status == 200)
        #expect(TestSHA256.hex(Array(whole.body)) == hex)
        #expect(whole.header("X-Content-SHA256") == hex)
        let from = (1 << 20) - 10, to = (2 << 20) + 10
        let part = try two.get("/v1/audio/\(sid)", headers: noCache.merging(["Range": "bytes=\(from)-\(to)"]) { $1 })
        #expect(part.status == 206)
        #expect(Array(part.body) == Array(bytes[from...to]))
        let tail = try two.get("/v1/audio/\(sid)", headers: noCache.merging(["Range": "bytes=-100"]) { $1 })
        #expect(Array(tail.body) == Array(bytes.suffix(100)))

        // A mismatched upload through instance 2 changes nothing; a good one replaces the blob everywhere.
        let other = testBytes(5000, seed: 7)
        let bad = try two.putAudio(sid, other, headers: ["X-Content-SHA256": hex])
        #expect(bad.status == 400, "\(bad.status) \(bad.text)")
        #expect(TestSHA256.hex(Array(try one.get("/v1/audio/\(sid)", headers: noCache).body)) == hex)
        let good = try two.putAudio(sid, other, headers: ["X-Content-SHA256": TestSHA256.hex(other)])
        #expect((200...201).contains(good.status))
        #expect(Array(try one.get("/v1/audio/\(sid)", headers: noCache).body) == other)
    }
}
