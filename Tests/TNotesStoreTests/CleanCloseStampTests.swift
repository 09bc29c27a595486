import Foundation
import Logging
import Testing
import TNotesCore
import TNotesStore
import TNotesTestSupport

/// The whole-file check at open is skipped only for a file exactly as a clean close left it: a crash,
/// any write after the close, or a second start on the same stamp all bring the check back.
@Suite("store: quick_check after a clean close")
struct CleanCloseStampTests {
    func addSermon(_ store: Store) throws {
        try store.writeSync { s in
            _ = try s.commitLocal(.sermons, record: Rec.sermon(Identifier.make(), updatedAt: s.stamp()), op: .upsert)
        }
    }

    @Test func cleanCloseSkipsTheCheckOnceAndOnlyOnce() throws {
        let t = TempStore()
        let first = try t.open()
        #expect(first.quickChecked == false, "a new file has nothing to check")
        try addSermon(first)
        first.close()
        #expect(FileManager.default.fileExists(atPath: t.dbPath + "-clean"))

        let second = try t.open()
        #expect(second.quickChecked == false, "unchanged since a clean close")
        #expect(!FileManager.default.fileExists(atPath: t.dbPath + "-clean"), "the stamp vouches for one start only")
        try addSermon(second)
        // No close (as after kill -9): the next open checks the file.
        let third = try t.open()
        #expect(third.quickChecked == true)
        third.close()
    }

    /// A clean restart takes the outbox counts and the clock from the stamp instead of scanning for them;
    /// they must be what a scan would find, and the clock must still never go backwards.
    @Test func aCleanRestartTakesCountsAndClockFromTheStamp() throws {
        let t = TempStore()
        let first = try t.open()
        for _ in 0..<5 { try addSermon(first) }
        let queued = try first.readSync { s in try s.queuedChanges(limit: 10) }
        try first.writeSync { s in try s.settle(queued[0], outcome: .rejected("refused")) }
        let newest = try first.readSync { s in try s.queuedChanges(limit: 10) }.compactMap {
            try? JSON.parse($0.text)["updatedAt"]?.stringValue
        }.max() ?? ""
        first.close()
        let stamp = try String(contentsOfFile: t.dbPath + "-clean", encoding: .utf8)
        #expect(stamp.contains("\nqueued 4\n") && stamp.contains("\nfailed 1\n") && stamp.contains("\nhlc "), "\(stamp)")

        let second = try t.open()
        #expect(second.quickChecked == false)
        #expect(second.outboxCounts == OutboxCounts(queued: 4, failed: 1))
        let counted = try second.readSync { s in try s.outboxCounts() }
        #expect(counted.queued == 4 && counted.failed == 1)
        let stamped = try second.writeSync { s in s.stamp() }
        #expect(stamped > newest, "the clock went back across a clean restart: \(stamped) after \(newest)")
        second.close()

        // A stamp whose facts are not lines of "key value" is no stamp: the file is checked and counted.
        let third = try t.open()
        third.close()
        let good = try String(contentsOfFile: t.dbPath + "-clean", encoding: .utf8)
        try (good + "garbage\n").write(toFile: t.dbPath + "-clean", atomically: false, encoding: .utf8)
        let fourth = try t.open()
        #expect(fourth.quickChecked == true)
        #expect(fourth.outboxCounts == OutboxCounts(queued: 4, failed: 1))
        fourth.close()
    }

    @Test func aWriteAfterTheCleanCloseBringsTheCheckBack() throws {
        let t = TempStore()
        let store = try t.open()
        try addSermon(store)
        store.close()
        // Scribble over every page but the first, at once (the stamp waited for the clock to tick past the
        // file's mtime, so even this immediate write changes it).
        let handle = try #require(FileHandle(forUpdatingAtPath: t.dbPath))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data((4096..<Int(size)).map { $0 % 7 == 0 ? 0 : 0xA5 }))
        try handle.close()
        do {
            let reopened = try t.open()
            #expect(reopened.quickChecked == true, "a changed file must be checked")
            Issue.record("a scribbled-over store opened")
        } catch {
            #expect("\(error)".contains("integrity check"), "\(error)")
        }
    }

    @Test func aChmodAfterTheCleanCloseBringsTheCheckBack() throws {
        let t = TempStore()
        let store = try t.open()
        try addSermon(store)
        store.close()
        usleep(20_000)
        chmod(t.dbPath, 0o600)
        let reopened = try t.open()
        #expect(reopened.quickChecked == true)
        let count = try reopened.readSync { s in try s.count(.sermons) }
        #expect(count == 1)
    }
}
