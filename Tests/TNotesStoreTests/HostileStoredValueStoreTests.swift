import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesStore
import TNotesTestSupport

/// Contract §8.1 at the store: numbers a row can hold however it got there (written by hand, by an old
/// version, or by SQLite's own integer arithmetic overflowing into REAL) are read without trapping.
@Suite("store: hostile stored numbers")
struct HostileStoredValueStoreTests {
    @Test("a REAL beyond Int64 reads clamped, NaN reads as nothing; integers read as they are")
    func sqlValueIntIsTotal() {
        #expect(SQLValue.double(1e19).int == .max)
        #expect(SQLValue.double(-1e19).int == .min)
        #expect(SQLValue.double(9.223372036854775808e18).int == .max)  // 2^63
        #expect(SQLValue.double(.greatestFiniteMagnitude).int == .max)
        #expect(SQLValue.double(.infinity).int == .max && SQLValue.double(-.infinity).int == .min)
        #expect(SQLValue.double(.nan).int == nil)
        #expect(SQLValue.double(-7.9).int == -7)
        #expect(SQLValue.int(.min).int == .min)
    }

    @Test("a job at attempts Int64.max is claimed (attempts + 1 overflows into REAL) and listed; not_before at Int64.min is due")
    func jobsWithHostileNumbers() async throws {
        let t = TempStore()
        let store = try t.open()
        let sid = Identifier.make()
        let job = try await store.write { s in try s.enqueueJob(kind: .transcribe, sermonId: sid) }
        let other = try await store.write { s in try s.enqueueJob(kind: .summarize, sermonId: sid, params: ["type": "bullet"]) }
        let sql = try t.sql()
        try sql.run("UPDATE jobs SET attempts = 9223372036854775807 WHERE id = ?", [.text(job.id)])
        try sql.run("UPDATE jobs SET not_before = -9223372036854775808, attempts = -9223372036854775808 WHERE id = ?", [.text(other.id)])
        let due = try await store.read { s in try s.nextJobDue() }
        #expect(due == .min)
        var claimed: [JobRecord] = []
        for _ in 0..<2 {
            if let j = try await store.write({ s in try s.claimNextJob(nowMillis: Timestamp.nowMillis()) }) { claimed.append(j) }
        }
        #expect(claimed.count == 2)
        let overflowed = try #require(claimed.first { $0.id == job.id })
        #expect(overflowed.attempts == .max, "attempts + 1 past Int64.max is a REAL in SQLite, read clamped")
        let listed = try await store.read { s in try s.jobs() }
        #expect(listed.count == 2)
        _ = listed.map(\.json)  // nextAttemptAt of a not_before at Int64.min renders
        // Settling and the by-hand flag work on such rows too.
        try await store.write { s in try s.settleJob(id: job.id, state: .failed, error: "x", refundAttempt: true) }
        let retried = try #require(try await store.write { s in try s.retryJob(id: job.id) })
        #expect(retried.isHandRequested && retried.params[JobRecord.byHandKey] == true && retried.attempts == 0)
        store.close()
    }

    @Test("a sermon's audio.sizeBytes stored as 1e19 or -5 is listed for download without trapping")
    func audioSizeBeyondInt64() async throws {
        let t = TempStore()
        let store = try t.open()
        let ids = [Identifier.make(), Identifier.make()]
        try await store.write { s in
            for id in ids {
                var sermon = Rec.sermon(id, updatedAt: "2025-11-02T10:00:00.000Z")
                sermon["audio"] = ["fileName": "a.ogg", "sizeBytes": 10, "sha256": .string(String(repeating: "a", count: 64))]
                try s.apply(Rec.pulled(.sermons, sermon), origin: .remote)
            }
        }
        let sql = try t.sql()
        for (id, size) in zip(ids, ["1e19", "-5"]) {
            let body = try #require(try sql.scalar("SELECT body FROM records WHERE id = ?", [.text(id)]).string)
            try sql.run("UPDATE records SET body = ? WHERE id = ?",
                        [.text(body.replacingOccurrences(of: "\"sizeBytes\":10", with: "\"sizeBytes\":\(size)")), .text(id)])
        }
        let wanted = try await store.read { s in try s.audioToDownload() }
        #expect(Set(wanted.map(\.sizeBytes)) == [.max, -5], "\(wanted)")
        store.close()
    }

    @Test("a store whose scripture index is rebuilt at open skips a body that does not parse, and opens")
    func referenceRebuildSkipsUnparseableBodies() async throws {
        let t = TempStore()
        var store = try t.open()
        let sid = Identifier.make()
        try await store.write { s in
            try s.apply(Rec.pulled(.sermons, Rec.sermon(sid, title: "Romans 8", updatedAt: "2025-11-02T10:00:00.000Z")), origin: .remote)
            try s.apply(Rec.pulled(.notes, Rec.note(Identifier.make(), sermonId: sid, text: "John 3:16", at: 12,
                                                    updatedAt: "2025-11-02T10:00:00.000Z")), origin: .remote)
        }
        store.close()
        let sql = try t.sql()
        try sql.run("INSERT INTO records(collection, id, sermon_id, updated_at, device_id, sync_state, body) VALUES ('notes', ?, ?, '2025-11-02T10:00:00.000Z', 'd', 'synced', '{not json')",
                    [.text(Identifier.make()), .text(sid)])
        try sql.run("UPDATE derived_state SET version = 0 WHERE name = 'scripture_refs'")
        store = try t.open()
        let refs = try await store.read { s in try s.scriptureReferences(sermonId: sid) }
        #expect(refs.map { "\($0)" } == ["Romans 8", "John 3:16"], "\(refs)")
        store.close()
    }
}
