import Foundation
import Testing
import TNotesCore
import TNotesStore

@Suite struct StoreMergeTests {
    let sermonId = "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c01"
    let noteId = "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c01"

    @Test func freshStoreHasDeviceIdAndLatestSchema() throws {
        let t = TempStore()
        let store = try t.open()
        #expect(store.schemaVersion == Migrations.latestVersion)
        #expect(store.migratedFrom == 0)
        #expect(store.backupPath == nil)
        #expect(Identifier.isUUID(store.deviceId))
        let id = store.deviceId
        store.close()
        #expect(try t.open().deviceId == id)  // kept for the life of the database
        #expect(!FileManager.default.fileExists(atPath: t.backupDir))
    }

    /// A pulled id past every stored one of its collection skips the look-up (`storedVersion`): ids that
    /// are not past it, in any order, still find what is stored, within one write and across writes.
    @Test func pulledIdsInAnyOrderFindTheirStoredVersions() throws {
        let t = TempStore()
        let store = try t.open()
        let early = "2025-11-06T10:00:00.000Z", later = "2025-11-07T10:00:00.000Z", latest = "2025-11-08T10:00:00.000Z"
        let low = "00000000-0000-4000-8000-000000000001", mid = "7fffffff-0000-4000-8000-000000000001"
        let high = "ffffffff-0000-4000-8000-000000000001"
        // One page: the greatest id first, then smaller ones, then the greatest again (older, then newer).
        let first = try store.writeSync { s in
            try [high, low, mid].map { try s.apply(Rec.pulled(.sermons, Rec.sermon($0, title: "v1", updatedAt: later)), origin: .remote) }
                + [try s.apply(Rec.pulled(.sermons, Rec.sermon(high, title: "older", updatedAt: early)), origin: .remote),
                   try s.apply(Rec.pulled(.sermons, Rec.sermon(mid, title: "v2", updatedAt: latest)), origin: .remote)]
        }
        #expect(first == [.applied, .applied, .applied, .superseded, .applied])
        // A later page: an older version of each is superseded (found), a newer one replaces it.
        let second = try store.writeSync { s in
            try [low, mid, high].map { try s.apply(Rec.pulled(.sermons, Rec.sermon($0, title: "older", updatedAt: early)), origin: .remote) }
                + [try s.apply(Rec.pulled(.sermons, Rec.sermon(low, title: "v3", updatedAt: latest)), origin: .remote)]
        }
        #expect(second == [.superseded, .superseded, .superseded, .applied])
        let titles = try store.readSync { s in try [low, mid, high].map { try s.record(.sermons, id: $0)?.body["title"]?.stringValue } }
        #expect(titles == ["v3", "v2", "v1"])
        // Another collection keeps its own greatest id: a note id below the sermons' is still new there.
        let note = try store.writeSync { s in
            try s.apply(Rec.pulled(.notes, Rec.note(low, sermonId: high, text: "n", at: 1, updatedAt: later)), origin: .remote)
        }
        #expect(note == .applied)
        #expect(try store.readSync { s in try s.history(.sermons, id: low, limit: 10).count } == 1, "the replaced version went to the history")
    }

    @Test func localCommitQueuesExactlyTheStoredChange() throws {
        let t = TempStore()
        let store = try t.open()
        let saved = try store.writeSync { s in
            try s.commitLocal(.sermons, record: Rec.sermon(sermonId, updatedAt: s.stamp()), op: .upsert)
        }
        #expect(saved.syncState == .pending)
        let (stored, outbox) = try store.readSync { s in (try s.record(.sermons, id: sermonId), try s.outbox()) }
        #expect(stored == saved)
        #expect(outbox.count == 1)
        let entry = try #require(outbox.first)
        #expect(entry.collection == "sermons" && entry.recordId == sermonId && entry.op == "upsert")
        #expect(entry.state == "queued" && entry.attempts == 0 && entry.lastError == nil)
        let json = try JSON.parse(entry.change)
        #expect(json.text == entry.change)  // canonical text, exactly what will be pushed
        let change = try Change(json: json)  // and it passes the server's gate
        #expect(change.opId == entry.opId)
        #expect(change.collection == .sermons && change.id == sermonId && change.op == .upsert)
        #expect(change.deviceId == store.deviceId)
        #expect(change.updatedAt == stored?.updatedAt)
        #expect(change.record == stored?.body)
        #expect(stored?.deviceId == store.deviceId)
    }

    @Test func localCommitNormalizesAndRefusesInvalidRecords() throws {
        let t = TempStore()
        let store = try t.open()
        let saved = try store.writeSync { s in
            try s.commitLocal(.notes, record: ["id": .string(noteId.uppercased()), "sermonId": .string(sermonId),
                                               "text": "hi", "timestamp": 1, "createdAt": "2025-11-06",
                                               "updatedAt": .string(s.stamp())], op: .upsert)
        }
        #expect(saved.id == noteId)
        #expect(saved.body["deletedAt"] == .null)
        var bad = Rec.transcript(sermonId: sermonId, updatedAt: Timestamp.now())
        bad["segments"] = .string(Rec.segments.text)  // seed B4
        #expect(throws: StoreError.self) {
            try store.writeSync { s in try s.commitLocal(.transcripts, record: bad, op: .upsert) }
        }
        // The failed write left nothing behind.
        #expect(try store.readSync { s in try s.outbox().count } == 1)
        #expect(try store.readSync { s in try s.count(.transcripts, live: false) } == 0)
    }

    @Test func remoteApplyEnqueuesNothingAndIsSynced() throws {
        let t = TempStore()
        let store = try t.open()
        let outcome = try store.writeSync { s in
            try s.apply(try Rec.pulled(.sermons, Rec.sermon(sermonId, updatedAt: "2025-11-02T13:00:00.000Z")),
                        origin: .remote)
        }
        #expect(outcome == .applied)
        let (rec, outbox) = try store.readSync { s in (try s.record(.sermons, id: sermonId), try s.outbox()) }
        #expect(outbox.isEmpty)
        #expect(rec?.syncState == .synced)
        #expect(rec?.deviceId == Rec.otherDevice)
    }

    @Test func olderRemoteLosesToPendingLocalEdit() throws {
        let t = TempStore()
        let store = try t.open()
        let local = try store.writeSync { s in
            try s.commitLocal(.notes, record: Rec.note(noteId, sermonId: sermonId, text: "local edit", at: 10,
                                                       updatedAt: s.stamp()), op: .upsert)
        }
        let older = Rec.note(noteId, sermonId: sermonId, text: "remote, older", at: 11, updatedAt: "2025-01-01T00:00:00.000Z")
        let outcome = try store.writeSync { s in try s.apply(try Rec.pulled(.notes, older), origin: .remote) }
        #expect(outcome == .superseded)
        let rec = try store.readSync { s in try s.record(.notes, id: noteId) }
        #expect(rec?.body == local.body)
        #expect(rec?.syncState == .pending)
        #expect(try store.readSync { s in try s.outbox().count } == 1)
    }

    @Test func newerRemoteWins() throws {
        let t = TempStore()
        let store = try t.open()
        try store.writeSync { s in
            _ = try s.commitLocal(.notes, record: Rec.note(noteId, sermonId: sermonId, text: "local", at: 10,
                                                           updatedAt: s.stamp()), op: .upsert)
        }
        let future = Timestamp.format(millis: Timestamp.nowMillis() + 60_000)
        let newer = Rec.note(noteId, sermonId: sermonId, text: "remote, newer", at: 12, updatedAt: future)
        let change = try Rec.pulled(.notes, newer)
        #expect(try store.writeSync { s in try s.apply(change, origin: .remote) } == .applied)
        let rec = try store.readSync { s in try s.record(.notes, id: noteId) }
        #expect(rec?.body == change.record)
        #expect(rec?.body["text"] == "remote, newer")
        #expect(rec?.syncState == .synced)
        #expect(rec?.deviceId == Rec.otherDevice)
    }

    @Test func equalTimesAreDecidedByDeviceIdOnBothSides() throws {
        let t = TempStore()
        let store = try t.open()
        let at = "2025-11-06T10:00:00.000Z"
        let low = try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "from 0000", at: 1, updatedAt: at),
                                 deviceId: "00000000-0000-4000-8000-000000000000")
        let high = try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "from ffff", at: 1, updatedAt: at),
                                  deviceId: "ffffffff-ffff-4fff-bfff-ffffffffffff")
        #expect(try store.writeSync { s in [try s.apply(high, origin: .remote), try s.apply(low, origin: .remote)] }
                == [.applied, .superseded])
        #expect(try store.readSync { s in try s.record(.notes, id: noteId)?.body["text"] } == "from ffff")
    }

    @Test func sameRemoteChangeTwiceIsDuplicate() throws {
        let t = TempStore()
        let store = try t.open()
        let change = try Rec.pulled(.summaries, Rec.summary(sermonId: sermonId, updatedAt: "2025-11-02T13:39:59.000Z"))
        #expect(try store.writeSync { s in try s.apply(change, origin: .remote) } == .applied)
        let before = try store.readSync { s in try s.record(.summaries, id: change.id) }
        #expect(try store.writeSync { s in try s.apply(change, origin: .remote) } == .duplicate)
        #expect(try store.readSync { s in try s.record(.summaries, id: change.id) } == before)
    }

    @Test func chatMessageTwiceIsDuplicateAndUnchanged() throws {
        let t = TempStore()
        let store = try t.open()
        let chatId = "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d01"
        let first = try Rec.pulled(.chatMessages, Rec.chat(chatId, sermonId: sermonId, content: "What verse?"))
        let again = try Rec.pulled(.chatMessages, Rec.chat(chatId, sermonId: sermonId, content: "What verse?"), seq: 2)
        var edited = Rec.chat(chatId, sermonId: sermonId, content: "tampered")
        edited["createdAt"] = "2030-01-01T00:00:00.000Z"
        let tampered = try Rec.pulled(.chatMessages, edited, deviceId: "ffffffff-ffff-4fff-bfff-ffffffffffff", seq: 3)
        let outcomes = try store.writeSync { s in
            [try s.apply(first, origin: .remote), try s.apply(again, origin: .remote), try s.apply(tampered, origin: .remote)]
        }
        #expect(outcomes == [.applied, .duplicate, .duplicate])
        let rec = try store.readSync { s in try s.record(.chatMessages, id: chatId) }
        #expect(rec?.body == first.record)
        #expect(try store.readSync { s in try s.outbox().isEmpty })
        // A local append of an id that exists changes nothing either.
        try store.writeSync { s in _ = try s.commitLocal(.chatMessages, record: edited, op: .upsert) }
        #expect(try store.readSync { s in try s.record(.chatMessages, id: chatId)?.body } == first.record)
    }

    @Test func clockMovesPastAFutureRemoteVersion() throws {
        let t = TempStore()
        let store = try t.open()
        let tomorrow = Timestamp.nowMillis() + 86_400_000
        let future = Timestamp.format(millis: tomorrow)
        try store.writeSync { s in
            _ = try s.apply(try Rec.pulled(.sermons, Rec.sermon(sermonId, updatedAt: future)), origin: .remote)
        }
        let next = try store.writeSync { s in s.stamp() }
        #expect(next > future)
        // An edit made now, after seeing tomorrow's version, wins over it.
        let edited = try store.writeSync { s in
            try s.commitLocal(.sermons, record: Rec.sermon(sermonId, title: "edited after pull", updatedAt: s.stamp()),
                              op: .upsert)
        }
        #expect(edited.updatedAt > future)
        #expect(try store.readSync { s in try s.record(.sermons, id: sermonId)?.body["title"] } == "edited after pull")
        // And the clock survives a restart.
        store.close()
        let reopened = try t.open()
        let afterRestart = try reopened.writeSync { s in s.stamp() }
        #expect(afterRestart > edited.updatedAt)
    }

    @Test func localStampsAreStrictlyIncreasing() throws {
        let t = TempStore()
        let store = try t.open()
        let stamps = try store.writeSync { s in (0..<500).map { _ in s.stamp() } }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(stamps.allSatisfy { Timestamp.canonical($0) == $0 })
    }

    @Test func deleteCarriesTheFullTombstone() throws {
        let t = TempStore()
        let store = try t.open()
        let note = try store.writeSync { s in
            try s.commitLocal(.notes, record: Rec.note(noteId, sermonId: sermonId, text: "to be deleted", at: 42.5,
                                                       updatedAt: s.stamp()), op: .upsert)
        }
        let tomb = try store.writeSync { s in
            var body = note.body
            let now = s.stamp()
            body["updatedAt"] = .string(now)
            body["deletedAt"] = .string(now)
            return try s.commitLocal(.notes, record: body, op: .delete)
        }
        let outbox = try store.readSync { s in try s.outbox() }
        #expect(outbox.map(\.op) == ["upsert", "delete"])
        let change = try Change(json: JSON.parse(outbox[1].change))
        #expect(change.op == .delete)
        #expect(change.record == tomb.body)
        #expect(change.record["deletedAt"] == tomb.body["updatedAt"])
        #expect(change.record["text"] == "to be deleted")
        #expect(change.record["sermonId"] == .string(sermonId))
        #expect(change.record["timestamp"] == 42.5)
        // A tombstone is a version like any other: the row stays, hidden from live reads.
        let (live, all, count) = try store.readSync { s in
            (try s.children(.notes, sermonId: sermonId), try s.children(.notes, sermonId: sermonId, includeDeleted: true),
             try s.count(.notes, live: false))
        }
        #expect(live.isEmpty)
        #expect(all.map(\.body) == [tomb.body])
        #expect(count == 1)
        // An older remote upsert cannot resurrect it.
        let stale = try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "zombie", at: 1,
                                                    updatedAt: "2025-01-01T00:00:00.000Z"))
        #expect(try store.writeSync { s in try s.apply(stale, origin: .remote) } == .superseded)
        #expect(try store.readSync { s in try s.record(.notes, id: noteId)?.isDeleted } == true)
    }

    @Test func localDeleteWithoutTombstoneIsRefused() throws {
        // Seed bug: a delete op that carries no tombstone. The store must never queue a Change that
        // the server's gate (Change(json:)) would refuse.
        let t = TempStore()
        let store = try t.open()
        #expect(throws: (any Error).self) {
            try store.writeSync { s in
                try s.commitLocal(.notes, record: Rec.note(noteId, sermonId: sermonId, text: "x", at: 1,
                                                           updatedAt: s.stamp()), op: .delete)
            }
        }
        let outbox = try store.readSync { s in try s.outbox() }
        for entry in outbox { _ = try Change(json: JSON.parse(entry.change)) }
        #expect(outbox.isEmpty)
    }

    @Test func remoteTombstoneIsApplied() throws {
        let t = TempStore()
        let store = try t.open()
        try store.writeSync { s in
            _ = try s.apply(try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "x", at: 1,
                                                            updatedAt: "2025-11-02T10:00:00.000Z")), origin: .remote)
        }
        let del = try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "x", at: 1,
                                                  updatedAt: "2025-11-02T11:00:00.000Z",
                                                  deletedAt: "2025-11-02T11:00:00.000Z"), op: .delete, seq: 2)
        #expect(try store.writeSync { s in try s.apply(del, origin: .remote) } == .applied)
        #expect(try store.readSync { s in try s.children(.notes, sermonId: sermonId) }.isEmpty)
        #expect(try store.readSync { s in try s.outbox() }.isEmpty)
    }

    @Test func failedTransactionRollsBackRecordsOutboxAndChanges() throws {
        struct Boom: Error {}
        let t = TempStore()
        let store = try t.open()
        #expect(throws: Boom.self) {
            try store.writeSync { s in
                _ = try s.commitLocal(.sermons, record: Rec.sermon(sermonId, updatedAt: s.stamp()), op: .upsert)
                throw Boom()
            }
        }
        #expect(try store.readSync { s in try s.record(.sermons, id: sermonId) } == nil)
        #expect(try store.readSync { s in try s.outbox() }.isEmpty)
    }

    @Test func observersSeeCommittedChangesWithTheirOrigin() throws {
        let t = TempStore()
        let store = try t.open()
        let seen = LockedBox<[RecordChange]>([])
        store.addObserver { changes in seen.mutate { $0 += changes } }
        try store.writeSync { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermonId, updatedAt: s.stamp()), op: .upsert)
            _ = try s.apply(try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "n", at: 1,
                                                            updatedAt: "2025-11-02T10:00:00.000Z")), origin: .remote)
        }
        // A superseded/duplicate version is not a change.
        try store.writeSync { s in
            _ = try s.apply(try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "n", at: 1,
                                                            updatedAt: "2025-11-02T10:00:00.000Z")), origin: .remote)
        }
        let changes = seen.value
        #expect(changes.map(\.collection) == [.sermons, .notes])
        #expect(changes.map(\.origin) == [.local, .remote])
        #expect(changes.last?.sermonId == sermonId)
    }
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: T
    init(_ value: T) { _value = value }
    var value: T { lock.withLock { _value } }
    func mutate(_ f: (inout T) -> Void) { lock.withLock { f(&_value) } }
}
