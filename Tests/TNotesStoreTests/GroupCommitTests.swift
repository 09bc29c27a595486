import Foundation
import Synchronization
import Testing
import TNotesCore
@testable import TNotesStore
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

    /// The ids whose write has returned, and the groups the store's observer saw commit.
    final class Seen: Sendable {
        let ids = Mutex([String]())
        let groups = Mutex([Int]())
    }

    /// A run of writes (a JSON-RPC batch's): what it queues waits for its close, then commits as one group;
    /// one never closed holds a write no longer than the limit (100 ms), so nothing waits for good.
    @Test func aRunsWritesCommitTogetherAtItsCloseAndAnUnclosedRunEnds() async throws {
        let t = TempStore()
        let store = try t.open()
        defer { store.close() }
        let seen = Seen()
        store.addObserver { changes in seen.groups.withLock { $0.append(changes.count) } }
        func queue(_ ids: [String]) -> Task<Void, any Error> {
            Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for id in ids {
                        group.addTask {
                            try await store.write { s in _ = try s.commitLocal(.sermons, record: Rec.sermon(id, updatedAt: s.stamp()), op: .upsert) }
                            seen.ids.withLock { $0.append(id) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
        // Closed by its owner (the limit set far away, so that a slow machine cannot end the hold early):
        // all 20 are queued and none commits before the close; then they commit as one group.
        store.setWriteRunLimit(.seconds(30))
        let first = (0..<20).map { _ in Identifier.make() }
        let run = store.openWriteRun()
        let writes = queue(first)
        #expect(eventually(timeout: 10, every: 0.005) { store.pending.withLock { $0.jobs.count } == 20 })
        usleep(20_000)
        #expect(seen.ids.withLock { $0.isEmpty }, "a write returned while its run was open")
        #expect(try store.readSync { s in try first.filter { try s.record(.sermons, id: $0) != nil } }.isEmpty)
        run.close()
        try await writes.value
        #expect(Set(seen.ids.withLock { $0 }) == Set(first))
        #expect(seen.groups.withLock { $0 } == [20], "groups committed: \(seen.groups.withLock { $0 })")

        // Never closed: each write is held at most the limit.
        store.setWriteRunLimit(.milliseconds(100))
        let second = (0..<5).map { _ in Identifier.make() }
        let forgotten = store.openWriteRun()
        let started = ContinuousClock.now
        try await queue(second).value
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(90) && waited < .seconds(3), "writes behind a run nobody closed waited \(waited)")
        withExtendedLifetime(forgotten) {}
        let all = try store.readSync { s in try (first + second).filter { try s.record(.sermons, id: $0) != nil } }
        #expect(all.count == 25)
    }
}
