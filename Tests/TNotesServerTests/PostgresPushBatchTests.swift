import Foundation
import Logging
import ServiceLifecycle
import Testing
import TNotesCore
import TNotesServer
import TNotesTestSupport

/// On PostgreSQL a push batch is looked up, planned and its write call built before the user's lock is taken
/// (`ServerStorage.prepareBatch`); the call takes the lock and writes only if none of the batch's records was
/// logged since the look-up and none of its op ids was taken (`applyPrepared`), else the batch is looked up
/// again and decided under the lock. These drive the storage directly, so that another push can be committed
/// exactly between the preparing and the applying.
@Suite("tnotes-server: a PostgreSQL push batch prepared before the lock")
struct PostgresPushBatchTests {
    /// A migrated storage on a fresh database, its connection pool running, and a user's id.
    static func withStorage(_ body: (PostgresServerStorage, Int64) async throws -> Void) async throws {
        try await withStorage { storage, user, _ in try await body(storage, user) }
    }

    /// The same, with the database's URL (for statements made behind the storage's back).
    static func withStorage(_ body: (PostgresServerStorage, Int64, String) async throws -> Void) async throws {
        let url = try PostgresServer.shared.get().makeDatabase()
        let storage = try PostgresServerStorage(url: url, logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await storage.connectionService?.run() }
            defer { group.cancelAll() }
            try await storage.migrate()
            let user = try await storage.createUser(name: "u", at: Timestamp.now())
            try await body(storage, user, url)
        }
    }

    /// `on`: the version the change was made on (a device editing a record it holds sends it), nil for a new record.
    static func sermon(_ id: String, title: String, at updatedAt: String, on base: String? = nil) -> (change: Change, body: String) {
        let record: JSONObject = ["id": .string(id), "title": .string(title), "updatedAt": .string(updatedAt)]
        let change = Change(opId: Identifier.make(), collection: .sermons, id: id, op: .upsert, updatedAt: updatedAt,
                            deviceId: "devA", record: record, base: base.map { RecordVersion(updatedAt: $0, deviceId: "devA") })
        return (change, JSON.object(record).text)
    }

    /// As `SyncService.push` does it: what was prepared is applied on its own if its look-up still holds
    /// (`fast`), else the batch is merged in a transaction, looked up under the lock.
    static func push(_ storage: PostgresServerStorage, _ user: Int64, _ batch: [(change: Change, body: String)],
                     prepared: (any Sendable)?) async throws -> (statuses: [String], fast: Bool) {
        if let prepared, let applied = try await storage.applyPrepared(prepared) {
            return (applied.verdicts.map(\.status), true)
        }
        let statuses = try await storage.transaction(user: user) { tx in
            try await tx.mergeBatch(batch.map(\.change), bodies: batch.map(\.body)).map(\.status)
        }
        return (statuses, false)
    }

    @Test("a batch prepared before another push changed its record is decided again under the lock")
    func stalePreparationIsNotUsed() async throws {
        try await Self.withStorage { storage, user in
            let id = Identifier.make()
            let older = Self.sermon(id, title: "older", at: "2026-01-01T00:00:00.000Z")
            let newer = Self.sermon(id, title: "newer", at: "2026-01-02T00:00:00.000Z")
            // Prepared while the record does not exist: as a plan, an insert of a new record.
            let prepared = await storage.prepareBatch(user: user, changes: [older.change], bodies: [older.body])
            #expect(prepared != nil)
            #expect(try await Self.push(storage, user, [newer], prepared: nil).statuses == ["applied"])
            // Used as it was, the insert would break the primary key; decided again, it loses to the newer version.
            let again = try await Self.push(storage, user, [older], prepared: prepared)
            #expect(again.statuses == ["superseded"])
            #expect(!again.fast)
            #expect(try await storage.lastSeq(user: user) == 1)
            let log = try await storage.changes(user: user, after: 0, limit: 10)
            #expect(log.map(\.seq) == [1])
            #expect(log.first?.updatedAt == newer.change.updatedAt)
        }
    }

    @Test("a batch prepared before another push changed one of its records is decided again, every change of it")
    func partlyStalePreparationIsDecidedAgain() async throws {
        try await Self.withStorage { storage, user in
            let a = Self.sermon(Identifier.make(), title: "a", at: "2026-01-01T00:00:00.000Z")
            let bId = Identifier.make()
            let bOlder = Self.sermon(bId, title: "b older", at: "2026-01-01T00:00:00.000Z")
            let bNewer = Self.sermon(bId, title: "b newer", at: "2026-01-03T00:00:00.000Z")
            let unrelated = Self.sermon(Identifier.make(), title: "unrelated", at: "2026-01-01T00:00:00.000Z")
            let prepared = await storage.prepareBatch(user: user, changes: [a.change, bOlder.change], bodies: [a.body, bOlder.body])
            #expect(prepared != nil)
            // Two pushes committed in between: one of other records, one of b.
            #expect(try await Self.push(storage, user, [unrelated], prepared: nil).statuses == ["applied"])
            #expect(try await Self.push(storage, user, [bNewer], prepared: nil).statuses == ["applied"])
            let again = try await Self.push(storage, user, [a, bOlder], prepared: prepared)
            #expect(again.statuses == ["applied", "superseded"])
            #expect(!again.fast)
            let log = try await storage.changes(user: user, after: 0, limit: 10)
            #expect(log.map(\.id) == [unrelated.change.id, bId, a.change.id])
            #expect(log.map(\.seq) == [1, 2, 3])
        }
    }

    /// The call sends the keys of the changes it logs once, as their columns, and only the others' apart: a
    /// record that the batch does not write still counts for the check.
    @Test("a batch whose superseded change's record was logged since its look-up is decided again")
    func supersededRecordLoggedSinceIsDecidedAgain() async throws {
        try await Self.withStorage { storage, user in
            let xId = Identifier.make()
            let xStored = Self.sermon(xId, title: "x stored", at: "2026-01-02T00:00:00.000Z")
            let xOlder = Self.sermon(xId, title: "x older", at: "2026-01-01T00:00:00.000Z")
            let xNewest = Self.sermon(xId, title: "x newest", at: "2026-01-03T00:00:00.000Z")
            let y = Self.sermon(Identifier.make(), title: "y", at: "2026-01-01T00:00:00.000Z")
            #expect(try await Self.push(storage, user, [xStored], prepared: nil).statuses == ["applied"])
            // Planned: x's older version superseded (nothing logged for x), y applied.
            let prepared = await storage.prepareBatch(user: user, changes: [xOlder.change, y.change], bodies: [xOlder.body, y.body])
            #expect(prepared != nil)
            #expect(try await Self.push(storage, user, [xNewest], prepared: nil).statuses == ["applied"])
            let again = try await Self.push(storage, user, [xOlder, y], prepared: prepared)
            #expect(again.statuses == ["superseded", "applied"])
            #expect(!again.fast, "x was logged after the look-up, so the plan's verdict on it is not used")
            let log = try await storage.changes(user: user, after: 0, limit: 10)
            #expect(log.map(\.id) == [xId, xId, y.change.id])
        }
    }

    /// postgres-nio hands back a statement's rows before PostgreSQL has run it, and an error comes with the rows:
    /// a batch write whose rows were never read failed unseen, and the transaction's COMMIT, answered by a
    /// ROLLBACK, passed. The push then answered `applied` for changes that were not stored.
    @Test("a batch write that fails is an error, never an answer")
    func failedWriteIsAnError() async throws {
        try await Self.withStorage { storage, user, url in
            let mine = Self.sermon(Identifier.make(), title: "mine", at: "2026-01-01T00:00:00.000Z")
            let prepared = await storage.prepareBatch(user: user, changes: [mine.change], bodies: [mine.body])
            #expect(prepared != nil)
            // A constraint no logged change can meet (made behind the storage's back): the batch's write fails.
            _ = try PostgresServer.shared.get().sql(url, "ALTER TABLE changes ADD CONSTRAINT refuse_all CHECK (seq < 0) NOT VALID")
            await #expect(throws: (any Error).self) { _ = try await Self.push(storage, user, [mine], prepared: prepared) }
            await #expect(throws: (any Error).self) { _ = try await Self.push(storage, user, [mine], prepared: nil) }
            _ = try PostgresServer.shared.get().sql(url, "ALTER TABLE changes DROP CONSTRAINT refuse_all")
            #expect(try await storage.lastSeq(user: user) == 0)
            #expect(try await storage.records(user: user, after: nil, limit: 10, tombstones: true).isEmpty)
            // Nothing of it was kept (its op id neither), so the same prepared push now applies.
            let again = try await Self.push(storage, user, [mine], prepared: prepared)
            #expect(again.statuses == ["applied"])
            #expect(again.fast)
        }
    }

    @Test("a batch prepared before another push of other records is used, its seqs after that push's")
    func preparationStillValidTakesSeqsUnderTheLock() async throws {
        try await Self.withStorage { storage, user in
            let mine = [Self.sermon(Identifier.make(), title: "a", at: "2026-01-01T00:00:00.000Z"),
                        Self.sermon(Identifier.make(), title: "b", at: "2026-01-01T00:00:01.000Z")]
            let prepared = await storage.prepareBatch(user: user, changes: mine.map(\.change), bodies: mine.map(\.body))
            #expect(prepared != nil)
            let other = Self.sermon(Identifier.make(), title: "other", at: "2026-01-01T00:00:02.000Z")
            #expect(try await Self.push(storage, user, [other], prepared: nil).statuses == ["applied"])
            let applied = try await Self.push(storage, user, mine, prepared: prepared)
            #expect(applied.statuses == ["applied", "applied"])
            #expect(applied.fast)
            #expect(try await storage.lastSeq(user: user) == 3)
            let log = try await storage.changes(user: user, after: 0, limit: 10)
            #expect(log.map(\.seq) == [1, 2, 3])
            #expect(log.map(\.id) == [other.change.id] + mine.map(\.change.id))
            // The records' rows carry the seqs of their versions: a snapshot names them.
            let records = try await storage.records(user: user, after: nil, limit: 10, tombstones: false)
            #expect(Set(records.map { "\($0.id)@\($0.seq)" })
                    == Set([other.change.id + "@1", mine[0].change.id + "@2", mine[1].change.id + "@3"]))
            // The same prepared batch again: its records were logged since its look-up, so it is decided
            // again, and every op id is now known (duplicates).
            let again = try await Self.push(storage, user, mine, prepared: prepared)
            #expect(again.statuses == ["duplicate", "duplicate"])
            #expect(!again.fast)
            #expect(try await storage.lastSeq(user: user) == 3)
        }
    }

    /// A change that loses logs nothing, so only its op id tells that it was decided: a second copy of the same
    /// push, prepared before the first one committed, must answer as a second processing does.
    @Test("a batch whose op id was taken since its look-up, with nothing logged, is decided again")
    func opIdTakenMeanwhileIsDecidedAgain() async throws {
        try await Self.withStorage { storage, user in
            let id = Identifier.make()
            let newer = Self.sermon(id, title: "newer", at: "2026-01-02T00:00:00.000Z")
            #expect(try await Self.push(storage, user, [newer], prepared: nil).statuses == ["applied"])
            let older = Self.sermon(id, title: "older", at: "2026-01-01T00:00:00.000Z")
            let prepared = await storage.prepareBatch(user: user, changes: [older.change], bodies: [older.body])
            #expect(prepared != nil)
            // The same change, pushed again and decided first: superseded, its op id kept, nothing logged.
            #expect(try await Self.push(storage, user, [older], prepared: nil).statuses == ["superseded"])
            let again = try await Self.push(storage, user, [older], prepared: prepared)
            #expect(again.statuses == ["duplicate"])
            #expect(!again.fast)
            #expect(try await storage.lastSeq(user: user) == 1)
        }
    }

    /// A batch prepared before the lock is not looked up by its op ids (schema step 12): the call writes them
    /// first, and one the log already has fails there, before the lock, with nothing of the call kept.
    @Test("a batch sent again (its op ids in the log), prepared without looking op ids up, is answered duplicate")
    func resentBatchIsDecidedAgain() async throws {
        try await Self.withStorage { storage, user in
            let batch = [Self.sermon(Identifier.make(), title: "a", at: "2026-01-01T00:00:00.000Z"),
                         Self.sermon(Identifier.make(), title: "b", at: "2026-01-01T00:00:01.000Z")]
            #expect(try await Self.push(storage, user, batch, prepared: nil).statuses == ["applied", "applied"])
            let prepared = try #require(await storage.prepareBatch(user: user, changes: batch.map(\.change), bodies: batch.map(\.body)))
            let refused = try await storage.applyPrepared(prepared)
            #expect(refused == nil, "a known op id refuses the prepared call")
            let again = try await Self.push(storage, user, batch, prepared: prepared)
            #expect(again.statuses == ["duplicate", "duplicate"])
            #expect(!again.fast)
            #expect(try await storage.lastSeq(user: user) == 2)
            // A sent change beside a new one: the new one applies once, the refused call kept nothing of it.
            let fresh = Self.sermon(Identifier.make(), title: "c", at: "2026-01-01T00:00:02.000Z")
            let mixed = [batch[0], fresh]
            let preparedMixed = await storage.prepareBatch(user: user, changes: mixed.map(\.change), bodies: mixed.map(\.body))
            let decided = try await Self.push(storage, user, mixed, prepared: preparedMixed)
            #expect(decided.statuses == ["duplicate", "applied"])
            #expect(!decided.fast)
            #expect(try await storage.lastSeq(user: user) == 3)
            #expect(try await Self.push(storage, user, mixed, prepared: nil).statuses == ["duplicate", "duplicate"])
            #expect(try await storage.changes(user: user, after: 0, limit: 10).map(\.id) == batch.map(\.change.id) + [fresh.change.id])
        }
    }

    /// A change made on no version (`base` nil) is presumed a new record by the look-up made before the lock
    /// (`LookUpScope.presumingNew`). One whose record exists after all (a legacy client, a restored backup)
    /// breaks the records' key in the call: nothing of the call is kept, and the batch is decided again under
    /// the lock, as it would have been decided had it been looked up.
    @Test("a change presumed new whose record exists is decided again under the lock: newer applies, older loses")
    func presumedNewRecordThatExistsIsDecidedAgain() async throws {
        try await Self.withStorage { storage, user in
            let id = Identifier.make()
            #expect(try await Self.push(storage, user, [Self.sermon(id, title: "first", at: "2026-01-02T00:00:00.000Z")],
                                        prepared: nil).statuses == ["applied"])
            let fresh = Self.sermon(Identifier.make(), title: "fresh", at: "2026-01-03T00:00:00.000Z")
            let newer = [Self.sermon(id, title: "newer", at: "2026-01-03T00:00:00.000Z"), fresh]
            let prepared = try #require(await storage.prepareBatch(user: user, changes: newer.map(\.change), bodies: newer.map(\.body)))
            let refused = try await storage.applyPrepared(prepared)
            #expect(refused == nil, "the record presumed new exists")
            #expect(try await storage.lastSeq(user: user) == 1, "nothing of the refused call was kept")
            let decided = try await Self.push(storage, user, newer, prepared: prepared)
            #expect(decided.statuses == ["applied", "applied"])
            #expect(!decided.fast)
            let older = [Self.sermon(id, title: "older", at: "2026-01-01T00:00:00.000Z")]
            let olderPrepared = await storage.prepareBatch(user: user, changes: older.map(\.change), bodies: older.map(\.body))
            #expect(try await Self.push(storage, user, older, prepared: olderPrepared).statuses == ["superseded"])
            #expect(try await storage.lastSeq(user: user) == 3)
            let records = try await storage.records(user: user, after: nil, limit: 10, tombstones: true)
            #expect(records.first { $0.id == id }?.record.text.contains("\"newer\"") == true)
            #expect(records.count == 2)
        }
    }

    @Test("a batch applied on its own answers the seqs around it, and one that logs nothing an empty range")
    func appliedOnItsOwnAnswersItsRange() async throws {
        try await Self.withStorage { storage, user in
            let first = [Self.sermon(Identifier.make(), title: "a", at: "2026-01-01T00:00:00.000Z")]
            #expect(try await Self.push(storage, user, first, prepared: nil).statuses == ["applied"])
            let batch = [Self.sermon(Identifier.make(), title: "b", at: "2026-01-01T00:00:01.000Z"),
                         Self.sermon(Identifier.make(), title: "c", at: "2026-01-01T00:00:02.000Z")]
            let prepared = try #require(await storage.prepareBatch(user: user, changes: batch.map(\.change), bodies: batch.map(\.body)))
            let applied = try #require(try await storage.applyPrepared(prepared))
            #expect(applied.verdicts.map(\.status) == ["applied", "applied"])
            #expect(applied.seqBefore == 1)
            #expect(applied.seqAfter == 3)
            #expect(try await storage.lastSeq(user: user) == 3)
            // Each logged row reads its body through its record (the current version's is kept there only).
            let log = try await storage.changes(user: user, after: 1, limit: 10)
            #expect(log.map(\.id) == batch.map(\.change.id))
            #expect(log.map(\.seq) == [2, 3])
            // An older version of b (made on that version) logs nothing: the seq stays, and the range is empty.
            let stale = Self.sermon(batch[0].change.id, title: "old", at: "2025-01-01T00:00:00.000Z", on: "2026-01-01T00:00:01.000Z")
            let losing = try #require(await storage.prepareBatch(user: user, changes: [stale.change], bodies: [stale.body]))
            let none = try #require(try await storage.applyPrepared(losing))
            #expect(none.verdicts.map(\.status) == ["superseded"])
            #expect(none.seqBefore == 3)
            #expect(none.seqAfter == 3)
            #expect(try await storage.lastSeq(user: user) == 3)
        }
    }

    /// Stored records are updated one by one by their key inside the call (a set-based update was planned, from
    /// statistics that saw the user as empty, as a read of all the user's records for every batch).
    @Test("a batch applied on its own updates stored records, new and old versions both pull with their bodies")
    func appliedOnItsOwnUpdatesStoredRecords() async throws {
        try await Self.withStorage { storage, user, url in
            // Statistics taken while the user had nothing, as a new user's first pushes see them.
            _ = try PostgresServer.shared.get().sql(url, "ANALYZE")
            let ids = (0..<3).map { _ in Identifier.make() }
            let first = ids.map { Self.sermon($0, title: "first", at: "2026-01-01T00:00:00.000Z") }
            #expect(try await Self.push(storage, user, first, prepared: nil).statuses == ["applied", "applied", "applied"])
            // Two of them again, newer, beside a new one: an update of two stored records and an insert.
            let fresh = Self.sermon(Identifier.make(), title: "new", at: "2026-01-02T00:00:00.000Z")
            let second = [Self.sermon(ids[0], title: "second", at: "2026-01-02T00:00:00.000Z", on: "2026-01-01T00:00:00.000Z"), fresh,
                          Self.sermon(ids[2], title: "second", at: "2026-01-02T00:00:00.000Z", on: "2026-01-01T00:00:00.000Z")]
            let prepared = try #require(await storage.prepareBatch(user: user, changes: second.map(\.change), bodies: second.map(\.body)))
            let applied = try #require(try await storage.applyPrepared(prepared))
            #expect(applied.verdicts.map(\.status) == ["applied", "applied", "applied"])
            #expect((applied.seqBefore, applied.seqAfter) == (3, 6))
            let records = try await storage.records(user: user, after: nil, limit: 10, tombstones: true)
            let titles = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0.record.text) })
            #expect(titles[ids[0]]?.contains("\"second\"") == true)
            #expect(titles[ids[1]]?.contains("\"first\"") == true)
            #expect(titles[ids[2]]?.contains("\"second\"") == true)
            #expect(titles[fresh.change.id]?.contains("\"new\"") == true)
            // The log keeps every version's body: the replaced ones moved into their log rows as they went.
            let log = try await storage.changes(user: user, after: 0, limit: 10)
            #expect(log.map(\.seq) == [1, 2, 3, 4, 5, 6])
            #expect(log.map { $0.record.text.contains("\"first\"") } == [true, true, true, false, false, false])
            #expect(log.map(\.id) == ids + [ids[0], fresh.change.id, ids[2]])
        }
    }
}
