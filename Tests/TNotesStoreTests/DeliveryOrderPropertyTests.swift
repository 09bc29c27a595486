import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// Store-level merge properties: the same set of remote versions, delivered in any order and with
/// repeats, leaves every store with the same records (same bodies, same winners). Seeded, so a failure
/// can be replayed; `TNOTES_PROPERTY_CASES` raises the number of cases.
@Suite("merge properties at the store level")
struct DeliveryOrderPropertyTests {
    static var cases: Int { Int(ProcessInfo.processInfo.environment["TNOTES_PROPERTY_CASES"] ?? "") ?? 25 }

    @Test("any delivery order (with duplicates) of the same changes yields the same store")
    func anyOrderSameStore() throws {
        var rng = SeededRNG(seed: 0xD15C0)
        let devices = ["dev-a", "dev-b", "dev-c"]
        for _ in 0..<Self.cases {
            // A few records, each with several versions from several devices, some equal in time.
            let sermonId = Identifier.make()
            let noteIds = (0..<3).map { _ in Identifier.make() }
            var changes = [Change]()
            // One device never makes two different versions with the same stamp (its HLC only moves
            // forward), so (record, updatedAt, deviceId) is unique; equal times across devices are allowed.
            var used = Set<String>()
            for v in 0..<6 {
                let t = "2025-11-06T10:00:0\(Int(rng.next() % 4)).000Z"
                let dev = devices[Int(rng.next() % 3)]
                let n = noteIds[Int(rng.next() % 3)]
                guard used.insert("\(t)|\(dev)").inserted else { continue }
                changes.append(try Rec.pulled(.sermons, Rec.sermon(sermonId, title: "t\(v)", updatedAt: t), deviceId: dev))
                let deleted = rng.next() % 4 == 0
                changes.append(try Rec.pulled(.notes, Rec.note(n, sermonId: sermonId, text: "n\(v)", at: Double(v), updatedAt: t,
                                                          deletedAt: deleted ? t : nil),
                                          op: deleted ? .delete : .upsert, deviceId: dev))
            }
            changes.append(try Rec.pulled(.chatMessages, Rec.chat(Identifier.make(), sermonId: sermonId, content: "hi"), deviceId: "dev-a"))

            var dumps = [String]()
            for _ in 0..<3 {
                var order = changes + changes.prefix(Int(rng.next() % 4))  // some delivered twice
                order.shuffle(using: &rng)
                let temp = TempStore()
                let store = try temp.open()
                for c in order { try store.writeSync { s in _ = try s.apply(c, origin: .remote) } }
                store.close()
                let db = try temp.sql()
                dumps.append(try db.query("SELECT collection, id, updated_at, device_id, deleted_at, body FROM records ORDER BY collection, id")
                    .map { $0.values.map { "\($0)" }.joined(separator: "|") }.joined(separator: "\n"))
            }
            #expect(dumps[0] == dumps[1] && dumps[1] == dumps[2], "delivery order changed the outcome")
        }
    }
}
