import Foundation
import Testing
import TNotesCore
import TNotesStore
import TNotesSQLite
import TNotesTestSupport

/// The store reserves its WAL's space with zeros as the first work of its queue (WALReserve), so that commits overwrite
/// blocks instead of growing the file. The zeros must never read as frames: a copy of the files taken while
/// the store is open (what a power cut leaves) recovers every committed write and nothing else.
@Suite("store: WAL space reserved at open")
struct WALReserveTests {
    static let reserved = 32 + 1250 * (24 + 4096)  // a quarter more than 1000 pages, the checkpoint mark

    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test func reservedAtOpenAndZerosNeverReadAsFrames() async throws {
        let t = TempStore()
        let store = try t.open()
        try store.readSync { _ in }  // the reservation is the queue's first work
        #expect(size(t.dbPath + "-wal") == Self.reserved)
        let sermon = Identifier.make()
        var notes: [String] = []
        try await store.write { s in _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert) }
        for k in 0..<40 {
            let id = Identifier.make()
            notes.append(id)
            try await store.write { s in
                _ = try s.commitLocal(.notes, record: Rec.note(id, sermonId: sermon, text: "note \(k)", at: Double(k), updatedAt: s.stamp()),
                                      op: .upsert)
            }
        }
        // Commits wrote into the reserved space: the file did not grow.
        #expect(size(t.dbPath + "-wal") == Self.reserved)

        // The files as a power cut would leave them: the WAL holds the commits, then zeros.
        let copy = TempDirectory("walcopy")
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: t.dbPath + suffix, toPath: copy.file("tnotes.sqlite") + suffix)
        }
        store.close()
        let db = try SQLiteConnection(path: copy.file("tnotes.sqlite"), create: false)
        #expect(try db.scalar("PRAGMA quick_check").string == "ok")
        let stored = try db.query("SELECT id FROM records WHERE collection = 'notes' ORDER BY id").compactMap { $0[0].string }
        #expect(stored == notes.sorted())
        #expect(try db.scalar("SELECT count(*) FROM outbox").int == 41)
    }

    @Test func aStoreReopensOnItsReservedWAL() async throws {
        let t = TempStore()
        var store = try t.open()
        let sermon = Identifier.make()
        try await store.write { s in _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert) }
        store.close()
        // A clean close checkpoints and empties the WAL; the next open reserves it again, and reads the same.
        #expect(size(t.dbPath + "-wal") <= 0)
        store = try t.open()
        try store.readSync { _ in }
        #expect(size(t.dbPath + "-wal") == Self.reserved)
        #expect(try store.readSync { s in try s.record(.sermons, id: sermon) } != nil)
        store.close()
    }

    /// Small commits checkpoint at 1000 frames, so the WAL wraps inside its reserved space; a large commit lets
    /// it grow to 10 000 first (CheckpointPolicy).
    @Test func smallCommitsWrapInsideTheReserveLargeOnesDoNotCheckpoint() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make()
        try await store.write { s in _ = try s.commitLocal(.sermons, record: Rec.sermon(sermon, updatedAt: s.stamp()), op: .upsert) }
        // ~600 commits of a few frames each: several times the reserve's 1250 frames.
        for k in 0..<600 {
            try await store.write { s in
                _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: "note \(k)", at: Double(k),
                                                               updatedAt: s.stamp()), op: .upsert)
            }
        }
        #expect(size(t.dbPath + "-wal") == Self.reserved)

        // One commit of ~1500 pages: the WAL holds it all afterwards (no checkpoint at 1000). The search index's
        // catch-up is held: its chunks, background work, checkpoint after themselves (`checkpointIfPastSmallCommits`).
        let hold = store.holdSearchIndex()
        defer { hold.release() }
        let text = String(repeating: "grace upon grace ", count: 200)
        try await store.write { s in
            for k in 0..<1500 {
                _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: text + "\(k)", at: Double(k),
                                                               updatedAt: s.stamp()), op: .upsert)
            }
        }
        let frames = try t.sql().query("PRAGMA wal_checkpoint(PASSIVE)").first?[1].int ?? 0
        #expect(frames > 1500, "the large commit's frames were checkpointed early: \(frames) left")
        store.close()
    }

    /// The search index's catch-up checkpoints after its own large chunks, so that the next small commit (a
    /// person's `note.add`) does not inherit a long WAL to checkpoint (issue #57).
    @Test func searchCatchUpLeavesNoLongWALToTheNextWrite() async throws {
        let t = TempStore()
        let store = try t.open()
        let sermon = Identifier.make()
        let text = String(repeating: "grace upon grace ", count: 200)
        let hold = store.holdSearchIndex()
        try await store.write { s in
            for k in 0..<1500 {
                _ = try s.commitLocal(.notes, record: Rec.note(Identifier.make(), sermonId: sermon, text: text + "\(k)", at: Double(k),
                                                               updatedAt: s.stamp()), op: .upsert)
            }
        }
        hold.release()
        try await store.catchUpSearch()
        // Everything the catch-up's chunks wrote is in the database file: nothing is left for a write to copy.
        // Read from the WAL index (the -shm file) without checkpointing: the frames written (`mxFrame`, offset
        // 16) against those copied back (`nBackfill`, offset 96).
        let shm = try #require(FileManager.default.contents(atPath: t.dbPath + "-shm"))
        func u32(_ at: Int) -> Int { shm[at..<at + 4].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) } }
        let (written, copied) = (u32(16), u32(96))
        #expect(written > 1500, "the catch-up wrote \(written) frames")
        #expect(written - copied < 1000, "the WAL still held \(written - copied) frames to checkpoint")
        store.close()
    }
}
