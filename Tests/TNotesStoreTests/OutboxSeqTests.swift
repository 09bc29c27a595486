import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport

/// Store v9 gives outbox seqs itself (no AUTOINCREMENT) and reads a record's sync state through the seq of its
/// latest entry (`queued_seq`, no index of the outbox by record). What must hold: a running store never gives a
/// seq twice, even once the outbox has drained; a seq given again after a restart does not make another record
/// read as pending; and a record reads pending exactly while its latest entry is queued.
@Suite("store: outbox seqs and sync state")
struct OutboxSeqTests {
    func state(_ store: Store, _ collection: RecordCollection, _ id: String) throws -> SyncState? {
        try store.readSync { s in try s.record(collection, id: id)?.syncState }
    }

    @Test func seqsAreNotReusedInARunAndReusedSeqsDoNotLeakAcrossRecords() async throws {
        let t = TempStore()
        var store = try t.open()
        let sermon = Identifier.make(), first = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.notes, record: Rec.note(first, sermonId: sermon, text: "first", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(try state(store, .notes, first) == .pending)
        let queued = try await store.read { s in try s.queuedChanges(limit: 10) }
        #expect(queued.map(\.seq) == [1, 2])
        try await store.write { s in for e in queued { try s.settle(e, outcome: .applied) } }
        #expect(try state(store, .notes, first) == .synced)
        #expect(try state(store, .sermons, sermon) == .synced)

        // The outbox is empty now; the next entry still gets a seq the run has not given.
        let second = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.notes, record: Rec.note(second, sermonId: sermon, text: "second", at: 2, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(try await store.read { s in try s.queuedChanges(limit: 10) }.map(\.seq) == [3])
        let third = try await store.read { s in try s.queuedChanges(limit: 10) }
        try await store.write { s in for e in third { try s.settle(e, outcome: .applied) } }

        // After a restart with an empty outbox, seqs start again at 1: the records that named 1 and 2 still read
        // as synced while entries 1 and 2 of other records are queued.
        store.close()
        store = try t.open()
        let a = Identifier.make(), b = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.notes, record: Rec.note(a, sermonId: sermon, text: "a", at: 3, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.notes, record: Rec.note(b, sermonId: sermon, text: "b", at: 4, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(try await store.read { s in try s.queuedChanges(limit: 10) }.map(\.seq) == [1, 2])
        #expect(try state(store, .sermons, sermon) == .synced)
        #expect(try state(store, .notes, first) == .synced)
        #expect(try state(store, .notes, a) == .pending)
        #expect(try state(store, .notes, b) == .pending)

        // After a restart with entries still queued, the next seq is past the greatest of them (the store
        // reads it at open), and the queued ones keep theirs.
        store.close()
        store = try t.open()
        let c = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.notes, record: Rec.note(c, sermonId: sermon, text: "c", at: 5, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(try await store.read { s in try s.queuedChanges(limit: 10) }.map(\.seq) == [1, 2, 3])
        #expect(try state(store, .notes, c) == .pending)
        store.close()
    }

    @Test func aRecordReadsPendingWhileItsLatestEntryIsQueued() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make(), note = Identifier.make()
        try await store.write { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "v1", at: 1, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "v2", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        let queued = try await store.read { s in try s.queuedChanges(limit: 10) }
        #expect(queued.count == 3)
        // Settled in order, as the engine does: the earlier version's entry goes, the latest is still queued.
        try await store.write { s in try s.settle(queued[1], outcome: .applied) }
        #expect(try state(store, .notes, note) == .pending)
        try await store.write { s in try s.settle(queued[2], outcome: .applied) }
        #expect(try state(store, .notes, note) == .synced)
        // A rejected latest entry shows the error; a new edit is pending again.
        try await store.write { s in
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "v3", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        let v3 = try await store.read { s in try s.queuedChanges(limit: 10) }.last!
        try await store.write { s in try s.settle(v3, outcome: .rejected("refused")) }
        #expect(try state(store, .notes, note) == .error)
        try await store.write { s in
            _ = try s.commitLocal(.notes, record: Rec.note(note, sermonId: sermon, text: "v4", at: 1, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(try state(store, .notes, note) == .pending)
        store.close()
    }
}
