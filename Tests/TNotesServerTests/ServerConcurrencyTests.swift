import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// Concurrent pushers with a puller polling in between, and server restarts, on SQLite and PostgreSQL.

/// State shared by the pusher threads, the puller thread and the test, under one lock.
final class ConcurrentRun: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var applied = 0
    private(set) var pushedIds = Set<String>()
    private(set) var pulled = [JSON]()
    private(set) var errors = [String]()
    private var pushersDone = false

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
    func pushed(_ answer: PushAnswer, ids: [String]) {
        locked {
            applied += answer.statuses.filter { $0 == "applied" }.count
            pushedIds.formUnion(ids)
        }
    }
    func pulled(_ changes: [JSON]) { locked { pulled += changes } }
    func error(_ e: String) { locked { errors.append(e) } }
    func finishPushers() { locked { pushersDone = true } }
    var pushersFinished: Bool { locked { pushersDone } }
}

@Suite("tnotes-server concurrency and restarts")
struct ServerConcurrencyTests {
    @Test("8 concurrent pushers and a polling puller: the puller sees seq 1…N exactly once, N == applied",
          arguments: Backend.allCases)
    func concurrentPushers(backend: Backend) throws {
        let pushers = 8, perPusher = 40, batchSize = 10
        try withServer(backend) { server, tokens in
            let base = server.baseURL, token = tokens["alice"]!
            let run = ConcurrentRun()
            let group = DispatchGroup()
            for p in 0..<pushers {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    let http = HTTPTestClient(baseURL: base, token: token)
                    let sermon = Identifier.make()
                    // One sermon and 39 notes of it, each pusher its own device and op ids.
                    var changes = [Wire.change(.sermons, Wire.sermon(sermon, title: "pusher \(p)"), deviceId: "dev\(p)")]
                    for i in 1..<perPusher {
                        changes.append(Wire.change(.notes, Wire.note(Identifier.make(), sermonId: sermon, text: "p\(p) n\(i)",
                                                                      timestamp: .int(Int64(i)), updatedAt: Wire.time(Double(i))),
                                                   deviceId: "dev\(p)"))
                    }
                    do {
                        for start in stride(from: 0, to: changes.count, by: batchSize) {
                            let batch = Array(changes[start..<min(start + batchSize, changes.count)])
                            let answer = try http.push(batch)
                            if answer.statuses.contains(where: { $0 != "applied" }) {
                                run.error("pusher \(p): \(answer.results)")
                            }
                            run.pushed(answer, ids: batch.compactMap { $0["id"]?.stringValue })
                        }
                    } catch {
                        run.error("pusher \(p): \(error)")
                    }
                }
            }

            let pullerDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { pullerDone.signal() }
                let http = HTTPTestClient(baseURL: base, token: token)
                var cursor: String?
                do {
                    for _ in 0..<1_000_000 {
                        // Read the flag before the pull: if every push was acknowledged before this pull began,
                        // this pull (and its pages) must reach the end.
                        let finished = run.pushersFinished
                        let page = try http.pullPage(cursor: cursor, limit: 16)
                        run.pulled(page.changes)
                        cursor = page.cursor
                        if finished && !page.hasMore { return }
                    }
                    run.error("puller never finished")
                } catch {
                    run.error("puller: \(error)")
                }
            }
            group.wait()
            run.finishPushers()
            pullerDone.wait()

            #expect(run.errors.isEmpty, "\(run.errors)")
            let total = pushers * perPusher
            #expect(run.applied == total)
            let seen = seqs(run.pulled)
            #expect(seen == Array(1...Int64(run.applied)), "the puller saw seqs out of order, twice or with gaps")
            #expect(Set(run.pulled.compactMap { $0["id"]?.stringValue }) == run.pushedIds)
            let after = try server.client(token).pullAll(limit: 50).changes
            #expect(seqs(after) == Array(1...Int64(total)))
        }
    }

    @Test("a restart keeps records, op ids, audio and tokens; a cursor from before the restart still works",
          arguments: Backend.allCases)
    func restartKeepsData(backend: Backend) throws {
        let server = try backend.makeServer()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let s = Wire.id()
        let batch = [
            Wire.change(.sermons, Wire.sermon(s)),
            Wire.change(.notes, Wire.note(Wire.id(), sermonId: s)),
            Wire.change(.transcripts, Wire.transcript(Wire.id(), sermonId: s)),
            Wire.change(.chatMessages, Wire.chat(Wire.id(), sermonId: s)),
        ]
        #expect(try server.client(token).push(batch).statuses == Array(repeating: "applied", count: 4))
        let audio = testBytes(1234, seed: 7)
        #expect(try server.client(token).putAudio(s, audio, headers: ["X-Content-SHA256": TestSHA256.hex(audio)]).status / 100 == 2)
        let before = try server.client(token).pullAll()

        let status = server.stop()
        #expect(status == 0, "SIGTERM should stop the server with status 0, got \(String(describing: status)); log:\n\(server.log)")
        try server.start()

        var http = server.client(token)
        let tail = try http.pullPage(cursor: before.cursor)
        #expect(tail.changes.isEmpty && !tail.hasMore, "the old cursor is still the end")
        let again = try http.pullAll()
        #expect(JSON.array(again.changes).text == JSON.array(before.changes).text, "the log changed across a restart")
        #expect(try http.push(batch).statuses == Array(repeating: "duplicate", count: 4), "op ids are forgotten")
        #expect(try http.get("/v1/audio/\(s)", headers: noCache).body == Data(audio))

        let n2 = Wire.change(.notes, Wire.note(Wire.id(), sermonId: s, text: "after restart", updatedAt: Wire.time(5)))
        #expect(try http.push([n2]).statuses == ["applied"])
        let next = try http.pullAll(from: before.cursor)
        #expect(next.changes.map { $0["id"] } == [n2["id"]!])
        #expect(seqs(next.changes) == [5])

        // An acknowledged push survives kill -9.
        let n3 = Wire.change(.notes, Wire.note(Wire.id(), sermonId: s, text: "before kill", updatedAt: Wire.time(6)))
        #expect(try http.push([n3]).statuses == ["applied"])
        server.kill9()
        try server.start()
        http = server.client(token)
        let afterKill = try http.pullAll(from: next.cursor)
        #expect(afterKill.changes.map { $0["id"] } == [n3["id"]!], "an acknowledged push was lost by kill -9")
        #expect(seqs(afterKill.changes) == [6])
        // The sequence goes on without a gap.
        #expect(try http.push([Wire.change(.summaries, Wire.summary(Wire.id(), sermonId: s))]).statuses == ["applied"])
        #expect(seqs(try http.pullAll().changes) == Array(1...7))
    }
}
