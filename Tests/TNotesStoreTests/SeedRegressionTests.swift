import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesSQLite

/// Regressions for the bugs listed in docs/seed-bugs.md, at the store level.
@Suite struct SeedRegressionTests {
    let sermonId = "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c01"
    let localTime = "2025-11-06T12:00:00.000Z"

    enum RemoteSermon: String, CaseIterable { case older, same, newer }

    /// B1 (seed 000 "CRITICAL BUG #1"): a pull for a sermon that already exists locally must still bring in its
    /// notes, transcript and summary, whatever happens to the sermon record itself.
    @Test(arguments: RemoteSermon.allCases)
    func pulledChildrenOfAnExistingSermonAreApplied(_ remote: RemoteSermon) throws {
        let t = TempStore()
        let store = try t.open()
        // The sermon is here already and synced (it came from the server earlier).
        let local = try Rec.pulled(.sermons, Rec.sermon(sermonId, title: "Local title", updatedAt: localTime), seq: 1)
        #expect(try store.writeSync { s in try s.apply(local, origin: .remote) } == .applied)

        let sermonTime: String
        switch remote {
        case .older: sermonTime = "2025-11-06T11:00:00.000Z"
        case .same: sermonTime = localTime
        case .newer: sermonTime = "2025-11-06T13:00:00.000Z"
        }
        let noteIds = ["9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c01", "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c02",
                       "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c03"]
        // Children are older than the local sermon: their versions are judged on their own.
        let childTime = "2025-11-06T10:30:00.000Z"
        var pulled = [try Rec.pulled(.sermons, Rec.sermon(sermonId, title: "Remote title", updatedAt: sermonTime), seq: 2)]
        for (i, id) in noteIds.enumerated() {
            pulled.append(try Rec.pulled(.notes, Rec.note(id, sermonId: sermonId, text: "Key point \(i + 1)",
                                                          at: [120.5, 300, 845.25][i], updatedAt: childTime), seq: 3 + i))
        }
        let transcriptChange = try Rec.pulled(.transcripts, Rec.transcript(sermonId: sermonId, updatedAt: childTime), seq: 10)
        let summaryChange = try Rec.pulled(.summaries, Rec.summary(sermonId: sermonId, updatedAt: childTime), seq: 11)
        pulled += [transcriptChange, summaryChange]

        let outcomes = try store.writeSync { s in try pulled.map { try s.apply($0, origin: .remote) } }
        let expectedSermon: MergeOutcome = remote == .older ? .superseded : remote == .same ? .duplicate : .applied
        #expect(outcomes == [expectedSermon] + Array(repeating: MergeOutcome.applied, count: 5))

        // What sermon.get reads: the sermon and its live children.
        let (sermon, notes, transcripts, summaries, outbox) = try store.readSync { s in
            (try s.record(.sermons, id: sermonId), try s.children(.notes, sermonId: sermonId),
             try s.children(.transcripts, sermonId: sermonId), try s.children(.summaries, sermonId: sermonId),
             try s.outbox())
        }
        #expect(sermon?.body["title"] == (remote == .newer ? "Remote title" : "Local title"))
        #expect(Set(notes.map(\.id)) == Set(noteIds))
        #expect(notes.allSatisfy { $0.syncState == .synced })
        #expect(transcripts.count == 1)
        #expect(summaries.count == 1)
        #expect(transcripts.first?.body == transcriptChange.record)
        #expect(summaries.first?.body == summaryChange.record)
        #expect(outbox.isEmpty)

        // B4: segments come back exactly as sent, as an array.
        let segments = try #require(transcripts.first?.body["segments"])
        #expect(segments == Rec.segments)
        #expect(segments.text == Rec.segments.text)
        let db = try t.sql()
        let types = try db.query("SELECT json_type(body,'$.segments') FROM records WHERE collection='transcripts'")
        #expect(types.map { $0[0].string } == ["array"])
        let n = try db.scalar("SELECT json_array_length(body,'$.segments') FROM records WHERE collection='transcripts'")
        #expect(n.int == 3)
        let raw = try db.scalar("SELECT json_extract(body,'$.segments[2].text') FROM records WHERE collection='transcripts'")
        #expect(raw.string == "\"Walk by the Spirit\" — not run, walk. 🙏")
    }

    /// B1, the other way round: children pulled before their sermon are kept, and show up once it arrives.
    @Test func childrenArrivingBeforeTheirSermonAreKept() throws {
        let t = TempStore()
        let store = try t.open()
        let noteId = "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c01"
        let note = try Rec.pulled(.notes, Rec.note(noteId, sermonId: sermonId, text: "early", at: 1,
                                                   updatedAt: "2025-11-06T10:00:00.000Z"))
        let sermon = try Rec.pulled(.sermons, Rec.sermon(sermonId, updatedAt: localTime), seq: 2)
        #expect(try store.writeSync { s in [try s.apply(note, origin: .remote), try s.apply(sermon, origin: .remote)] }
                == [.applied, .applied])
        #expect(try store.readSync { s in try s.children(.notes, sermonId: sermonId) }.map(\.id) == [noteId])
    }

    /// B2: a child written locally is queued as its own Change, independent of its sermon's payload.
    @Test func locallyWrittenChildrenAreQueuedAsTheirOwnChanges() throws {
        let t = TempStore()
        let store = try t.open()
        try store.writeSync { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermonId, updatedAt: s.stamp()), op: .upsert)
        }
        try store.writeSync { s in
            _ = try s.commitLocal(.transcripts, record: Rec.transcript(sermonId: sermonId, updatedAt: s.stamp()), op: .upsert)
            _ = try s.commitLocal(.summaries, record: Rec.summary(sermonId: sermonId, updatedAt: s.stamp()), op: .upsert)
        }
        let outbox = try store.readSync { s in try s.outbox() }
        #expect(outbox.map(\.collection) == ["sermons", "transcripts", "summaries"])
        let transcript = try Change(json: JSON.parse(outbox[1].change))
        #expect(transcript.record["segments"] == Rec.segments)
        #expect(try JSON.parse(outbox[1].change)["record"]?["segments"]?.arrayValue != nil)
        #expect(outbox[0].change.contains("segments") == false)  // nothing rides on the parent
    }

    /// B4: a double-encoded segments string from the wire is refused before it reaches the store.
    @Test func doubleEncodedSegmentsNeverReachTheStore() throws {
        var record = Rec.transcript(sermonId: sermonId, updatedAt: localTime)
        record["segments"] = .string(Rec.segments.text)
        let wire = JSON.object([
            "seq": 1, "collection": "transcripts", "id": record["id"]!, "op": "upsert", "updatedAt": .string(localTime),
            "deviceId": .string(Rec.otherDevice), "record": .object(record),
        ])
        #expect(throws: FieldError(field: "record.segments",
                                   reason: "must be an array, not a string (a JSON string holding an array is not accepted)")) {
            _ = try Change(json: wire, requireOpId: false)
        }
    }

    /// Deleting a sermon must not lose its children's data: tombstones keep the whole record (no hard delete).
    @Test func tombstonedSermonKeepsItsRows() throws {
        let t = TempStore()
        let store = try t.open()
        try store.writeSync { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermonId, updatedAt: s.stamp()), op: .upsert)
        }
        try store.writeSync { s in
            let now = s.stamp()
            _ = try s.commitLocal(.sermons, record: Rec.sermon(sermonId, updatedAt: now, deletedAt: now), op: .delete)
        }
        let (rec, count, live) = try store.readSync { s in
            (try s.record(.sermons, id: sermonId), try s.count(.sermons, live: false), try s.count(.sermons))
        }
        #expect(rec?.isDeleted == true)
        #expect(rec?.body["title"] == "Walking in the Spirit")
        #expect(count == 1 && live == 0)
        let listed = try store.readSync { s in
            try s.sermons(includeArchived: true, includeDeleted: false, limit: 10, after: nil).items.count
        }
        #expect(listed == 0)
    }
}
