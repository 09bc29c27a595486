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
