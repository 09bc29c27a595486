import Testing
import TNotesCore
import TNotesTestSupport

/// Both backends merge a push batch presuming its op ids new, and the records of its changes made on no
/// version (no `base`) new, without looking them up (`PostgresPushBatch.LookUpScope.presumingNew`, the SQLite
/// transaction's `mergePresumingNew`); one that is known after all breaks a key, nothing of that attempt stays,
/// and the batch is merged again with everything looked up. These pushes are each such case, over HTTP.
@Suite("tnotes-server: a push whose op ids or new records are known after all")
struct ServerPresumedNewTests {
    @Test("a batch sent again, a change made on no version whose record is stored, and both in one batch are decided as if looked up",
          arguments: Backend.allCases)
    func knownAfterAllIsDecidedAgain(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let a = Wire.id(), b = Wire.id(), c = Wire.id()
            let first = [Wire.change(.sermons, Wire.sermon(a, title: "a", updatedAt: Wire.time(10))),
                         Wire.change(.sermons, Wire.sermon(b, title: "b", updatedAt: Wire.time(10)))]
            #expect(try http.push(first).statuses == ["applied", "applied"])
            // The same batch again, its answer lost: every op id is known.
            #expect(try http.push(first).statuses == ["duplicate", "duplicate"])
            // A newer version of a made on no version (a client that sends none, a restored backup) beside a new
            // record; then an older version of b, also made on no version.
            let second = [Wire.change(.sermons, Wire.sermon(a, title: "a2", updatedAt: Wire.time(20))),
                          Wire.change(.sermons, Wire.sermon(c, title: "c", updatedAt: Wire.time(20)))]
            #expect(try http.push(second).statuses == ["applied", "applied"])
            #expect(try http.push([Wire.change(.sermons, Wire.sermon(b, title: "old b", updatedAt: Wire.time(5)))]).statuses
                    == ["superseded"])
            // One op id known and one record stored, in one batch with a new change: each decided on its own.
            let d = Wire.id()
            let third = [first[0], Wire.change(.sermons, Wire.sermon(c, title: "c2", updatedAt: Wire.time(30))),
                         Wire.change(.sermons, Wire.sermon(d, title: "d", updatedAt: Wire.time(30)))]
            #expect(try http.push(third).statuses == ["duplicate", "applied", "applied"])

            // Each applied version logged once, in order, with gap-free seqs: nothing of a refused attempt stayed.
            let log = try http.pullAll(from: nil, limit: 100).changes
            #expect(log.map { $0["id"]?.stringValue ?? "?" } == [a, b, a, c, c, d])
            #expect(log.map { $0["seq"]?.int64Value ?? -1 } == [1, 2, 3, 4, 5, 6])
            #expect(log.map { $0["record"]?["title"]?.stringValue ?? "?" } == ["a", "b", "a2", "c", "c2", "d"])
            // A first sync sees each record at its last version.
            let snapshot = try http.get("/v1/sync/snapshot?limit=100", headers: noCache)
            let titles = Dictionary(uniqueKeysWithValues: (snapshot.json?["changes"]?.arrayValue ?? []).map {
                ($0["id"]?.stringValue ?? "?", $0["record"]?["title"]?.stringValue ?? "?")
            })
            #expect(titles == [a: "a2", b: "b", c: "c2", d: "d"])
        }
    }
}
