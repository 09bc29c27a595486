import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// Concurrent writes commit in groups; each write still stands or falls alone.
@Suite("store: group commit")
struct GroupCommitTests {
    struct Refused: Error {}

    @Test func aFailingWriteInAGroupRollsBackOnlyItself() async throws {
        let t = TempStore()
        let store = try t.open()
        let ids = (0..<200).map { _ in Identifier.make() }
        let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
            for (k, id) in ids.enumerated() {
                group.addTask {
                    do {
                        try await store.write { s in
                            _ = try s.commitLocal(.sermons, record: Rec.sermon(id, updatedAt: s.stamp()), op: .upsert)
                            // Every fifth write fails after it has written: none of it may remain.
                            if k % 5 == 0 { throw Refused() }
                        }
                        return (id, true)
                    } catch {
                        return (id, false)
                    }
                }
            }
            var all = [String: Bool]()
            for await (id, ok) in group { all[id] = ok }
            return all
        }
        #expect(outcomes.values.filter { $0 }.count == 160)
        let stored: Set<String> = try store.readSync { s in
            Set(try ids.filter { try s.record(.sermons, id: $0) != nil })
        }
        #expect(stored == Set(outcomes.filter { $0.value }.map(\.key)), "exactly the acknowledged writes are stored")
        let outbox = try store.readSync { s in try s.outbox(limit: 1000) }
        #expect(outbox.count == 160, "one outbox entry per acknowledged write, none for the failed ones")
        #expect(Set(outbox.map(\.recordId)) == Set(outcomes.filter { $0.value }.map(\.key)))
        store.close()
        let check = try t.sql().query("PRAGMA integrity_check").map { $0[0].string }
        #expect(check == ["ok"])
    }
}
