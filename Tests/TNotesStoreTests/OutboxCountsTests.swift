import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport

/// `Store.outboxCounts` is kept in memory (status calls must not scan the outbox); it has to equal a real
/// count of the table after every kind of change: local writes, each settle outcome, group commits in
/// which some writes roll back, failed transactions, and a reopen.
@Suite("store: outbox counts")
struct OutboxCountsTests {
    struct Refused: Error {}

    func expectExact(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let counted = try store.readSync { s in try s.outboxCounts() }
        #expect(store.outboxCounts == OutboxCounts(queued: counted.queued, failed: counted.failed),
                "kept \(store.outboxCounts), counted \(counted)", sourceLocation: sourceLocation)
    }

    @Test func keptCountsEqualTheTable() async throws {
        let t = TempStore()
        let store = try t.open()
        #expect(store.outboxCounts == OutboxCounts())

        // Local writes, one at a time and as a group with every fourth write failing after it wrote.
        let sermon = Identifier.make()
        try await store.write { s in _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert) }
        await withTaskGroup(of: Void.self) { group in
            for k in 0..<60 {
                group.addTask {
                    try? await store.write { s in
                        _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "n\(k)", at: Double(k),
                                                                       updatedAt: s.stamp()), op: .upsert)
                        if k % 4 == 0 { throw Refused() }
                    }
                }
            }
        }
        try expectExact(store)
        #expect(store.outboxCounts.queued == 1 + 45)

        // A transaction that fails as a whole changes nothing.
        _ = try? await store.write { s in
            _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "lost", at: 1, updatedAt: s.stamp()),
                                  op: .upsert)
            throw Refused()
        }
        try expectExact(store)

        // Settles: applied, duplicate, superseded remove entries; rejected moves one to failed.
        let queued = try await store.read { s in try s.queuedChanges(limit: 100) }
        let outcomes: [StoreSession.PushOutcome] = [.applied, .duplicate, .superseded, .rejected("bad"), .rejected("worse")]
        try await store.write { s in
            for (k, e) in queued.prefix(20).enumerated() { try s.settle(e, outcome: outcomes[k % outcomes.count]) }
        }
        try expectExact(store)
        #expect(store.outboxCounts == OutboxCounts(queued: 46 - 20, failed: 8))
        // Settling an entry a second time (already gone, or already failed) changes nothing more.
        try await store.write { s in
            for e in queued.prefix(5) { try s.settle(e, outcome: .applied) }
        }
        try expectExact(store)

        // A reopen counts afresh and agrees.
        let before = store.outboxCounts
        store.close()
        let reopened = try t.open()
        #expect(reopened.outboxCounts == before)
        try expectExact(reopened)
        reopened.close()
    }
}
