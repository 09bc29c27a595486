import Foundation
import Testing
import TNotesCore
import TNotesStore
import Logging
import TNotesTestSupport
import TNotesSQLite

@Suite struct MigrationTests {
    static let fixtureDeviceId = "7d0c7f4e-2f1a-4c59-9a7e-0b7f3f1f6a01"
    static let tables = ["records", "outbox", "sync_cursor", "meta"]

    func fixturePath() throws -> String { try fixturesDirectory().appendingPathComponent("v1.sqlite").path }

    /// Every row of every v1 table, as text, keyed by table.
    func dump(_ path: String) throws -> [String: [[SQLValue]]] {
        let db = try SQLiteConnection(path: path, create: false)
        var out = [String: [[SQLValue]]]()
        out["records"] = try db.query("SELECT collection, id, sermon_id, updated_at, device_id, deleted_at, sort_key, sync_state, body FROM records ORDER BY collection, id").map(\.values)
        out["outbox"] = try db.query("SELECT seq, op_id, collection, record_id, op, change, attempts, last_error, state, created_at FROM outbox ORDER BY seq").map(\.values)
        out["sync_cursor"] = try db.query("SELECT id, cursor, updated_at FROM sync_cursor").map(\.values)
        out["meta"] = try db.query("SELECT key, value FROM meta ORDER BY key").map(\.values)
        return out
    }

    @Test func fixtureIsAFaithfulV1Database() throws {
        let t = TempStore()
        try copyFile(try fixturePath(), to: t.dbPath)
        let db = try SQLiteConnection(path: t.dbPath, create: false)
        #expect(try db.scalar("PRAGMA user_version").int == 1)
        // Same schema as migration step 1 run on an empty database.
        let fresh = try SQLiteConnection(path: t.dir.file("fresh.sqlite"), create: true)
        try fresh.exec(Migrations.all[0].sql)
        let schemaSQL = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        #expect(try db.query(schemaSQL).map(\.values) == (try fresh.query(schemaSQL).map(\.values)))
        // Every body is a canonical record that passes its schema unchanged.
        for row in try db.query("SELECT collection, body FROM records") {
            let collection = try #require(RecordCollection(rawValue: row[0].string ?? ""))
            let text = try #require(row[1].string)
            let body = try JSON.parse(text)
            #expect(body.text == text)
            #expect(try collection.schema.normalize(body) == body.objectValue)
        }
        for row in try db.query("SELECT change FROM outbox") {
            let text = try #require(row[0].string)
            _ = try Change(json: JSON.parse(text))
        }
        let counts = try db.query("SELECT collection, count(*) FROM records GROUP BY collection ORDER BY collection")
            .map { "\($0[0].string!)=\($0[1].int!)" }
        #expect(counts == ["chatMessages=2", "notes=5", "sermons=3", "summaries=1", "transcripts=1"])
        #expect(try db.scalar("SELECT count(*) FROM records WHERE collection='sermons' AND deleted_at IS NOT NULL").int == 1)
    }

    @Test func v1DatabaseIsMigratedWithABackupAndNoRowLost() throws {
        let t = TempStore()
        let pristine = t.dir.file("pristine.sqlite")
        try copyFile(try fixturePath(), to: t.dbPath)
        try copyFile(try fixturePath(), to: pristine)
        let before = try dump(pristine)

        let store = try t.open()
        #expect(store.schemaVersion == Migrations.latestVersion)
        #expect(store.migratedFrom == 1)
        #expect(store.deviceId == Self.fixtureDeviceId)

        // The backup: in the backup directory, a v1 database with the same rows.
        let backup = try #require(store.backupPath)
        #expect(backup.hasPrefix(t.backupDir + "/"))
        #expect(FileManager.default.fileExists(atPath: backup))
        let files = try FileManager.default.contentsOfDirectory(atPath: t.backupDir)
        #expect(files.count == 1)
        let backupDB = try SQLiteConnection(path: backup, create: false)
        #expect(try backupDB.scalar("PRAGMA user_version").int == 1)
        #expect(try backupDB.query("PRAGMA integrity_check").map { $0[0].string } == ["ok"])
        #expect(try dump(backup) == before)

        // Every row survived the migration with identical text.
        store.close()
        let after = try dump(t.dbPath)
        for table in Self.tables where table != "meta" {
            #expect(after[table] == before[table], "\(table) changed")
        }
        // meta keeps deviceId; hlc may only have moved forward.
        let metaBefore = Dictionary(uniqueKeysWithValues: before["meta"]!.map { ($0[0].string!, $0[1].string!) })
        let metaAfter = Dictionary(uniqueKeysWithValues: after["meta"]!.map { ($0[0].string!, $0[1].string!) })
        #expect(metaAfter["deviceId"] == metaBefore["deviceId"])
        #expect(Int64(metaAfter["hlc"] ?? "0")! >= Int64(metaBefore["hlc"]!)!)
        let db = try t.sql()
        #expect(try db.scalar("PRAGMA user_version").int == Int64(Migrations.latestVersion))
        #expect(try db.query("PRAGMA integrity_check").map { $0[0].string } == ["ok"])
    }

    @Test func migratedStoreReadsAndWritesTheOldData() throws {
        let t = TempStore()
        try copyFile(try fixturePath(), to: t.dbPath)
        let store = try t.open()
        let s1 = "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c01"
        let (notes, transcript, summary, outbox, page) = try store.readSync { s in
            (try s.children(.notes, sermonId: s1), try s.children(.transcripts, sermonId: s1).first,
             try s.children(.summaries, sermonId: s1).first, try s.outbox(),
             try s.sermons(includeArchived: true, includeDeleted: false, limit: 10, after: nil))
        }
        #expect(notes.count == 3)
        #expect(transcript?.id == Identifier.derived(from: s1, kind: "transcript"))
        #expect(transcript?.body["segments"]?.arrayValue?.count == 3)
        #expect(summary?.id == Identifier.derived(from: s1, kind: "summary"))
        #expect(outbox.map(\.opId) == (1...4).map { "e0000000-0000-4000-8000-00000000000\($0)" })
        #expect(outbox.last?.state == "failed")
        let counts = try store.readSync { s in try s.outboxCounts() }
        #expect(counts.queued == 3 && counts.failed == 1)
        #expect(page.items.map { $0.body["title"] } == ["Grace Upon Grace — John 1:16", "Walking in the Spirit"])
        // The clock resumes after everything already stored.
        let newest = try t.sql().scalar("SELECT max(updated_at) FROM records").string!
        let stamp = try store.writeSync { s in s.stamp() }
        #expect(stamp > newest)
        // v2 tables work.
        try store.writeSync { s in
            try s.setAudioFile(AudioFileState(sermonId: s1, path: "/x.m4a", sha256: nil, sizeBytes: 3,
                                              localAvailable: true, uploaded: false))
        }
        #expect(try store.readSync { s in try s.audioFile(sermonId: s1)?.localAvailable } == true)
        // The fixture's transcript and summary carry ids derived before they were ordered (`derived`, not
        // `derivedInOrder`): replacing them writes those records again, never a second one beside them.
        let (t2, s2) = try store.writeSync { s in
            (try s.setTranscript(sermonId: s1, text: "Again.", status: "complete", segments: []),
             try s.setSummary(sermonId: s1, title: "Again", text: "Again.", type: "devotional", status: "complete", generatedBy: nil))
        }
        #expect(t2.id == Identifier.derived(from: s1, kind: "transcript") && s2.id == Identifier.derived(from: s1, kind: "summary"))
        #expect(t2.id != Identifier.derivedInOrder(from: s1, kind: "transcript"))
        #expect(try store.readSync { s in (try s.children(.transcripts, sermonId: s1).count, try s.children(.summaries, sermonId: s1).count) } == (1, 1))
    }

    @Test func reopeningAMigratedDatabaseMakesNoSecondBackup() throws {
        let t = TempStore()
        try copyFile(try fixturePath(), to: t.dbPath)
        try t.open().close()
        let again = try t.open()
        #expect(again.migratedFrom == Migrations.latestVersion)
        #expect(again.backupPath == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.backupDir).count == 1)
    }

    func expectRefusedAndUntouched(_ path: String, backupDir: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> DatabaseOpenError?
    {
        let bytes = try fileBytes(path)
        var caught: DatabaseOpenError?
        do {
            _ = try Store(path: path, backupDirectory: backupDir, logger: .init(label: "tnotes.test"))
            Issue.record("Store opened \(path)", sourceLocation: sourceLocation)
        } catch {
            caught = error
        }
        #expect(try fileBytes(path) == bytes, "the file changed", sourceLocation: sourceLocation)
        let dir = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(name + "-") }
        #expect(leftovers.isEmpty, "side files left: \(leftovers)", sourceLocation: sourceLocation)
        let backups = (try? FileManager.default.contentsOfDirectory(atPath: backupDir)) ?? []
        #expect(backups.isEmpty, "a backup was written: \(backups)", sourceLocation: sourceLocation)
        return caught
    }

    @Test func garbageFileIsRefusedAndUntouched() throws {
        let t = TempStore()
        var rng = SystemRandomNumberGenerator()
        let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) })
        try garbage.write(to: URL(fileURLWithPath: t.dbPath))
        let error = try expectRefusedAndUntouched(t.dbPath, backupDir: t.backupDir)
        guard case .notADatabase = error else { Issue.record("expected .notADatabase, got \(String(describing: error))"); return }
    }

    @Test func textFileIsRefusedAndUntouched() throws {
        let t = TempStore()
        _ = try t.dir.write("tnotes.sqlite", "this is my shopping list, not a database\n")
        let error = try expectRefusedAndUntouched(t.dbPath, backupDir: t.backupDir)
        #expect(error != nil)
    }

    @Test func truncatedFixtureIsRefusedAndUntouched() throws {
        let t = TempStore()
        let full = try Data(contentsOf: URL(fileURLWithPath: try fixturePath()))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: t.dbPath))
        let error = try expectRefusedAndUntouched(t.dbPath, backupDir: t.backupDir)
        #expect(error != nil)
    }

    @Test func fixtureWithCorruptPagesIsRefusedAndUntouched() throws {
        let t = TempStore()
        var data = try Data(contentsOf: URL(fileURLWithPath: try fixturePath()))
        // Scribble over everything after the first page (the header stays valid).
        for i in 4096..<data.count where i % 7 != 0 { data[i] = 0xA5 }
        try data.write(to: URL(fileURLWithPath: t.dbPath))
        let error = try expectRefusedAndUntouched(t.dbPath, backupDir: t.backupDir)
        #expect(error != nil)
    }

    @Test func newerSchemaIsRefusedAndUntouched() throws {
        let t = TempStore()
        try copyFile(try fixturePath(), to: t.dbPath)
        do {
            let db = try SQLiteConnection(path: t.dbPath, create: false)
            try db.exec("PRAGMA user_version = 99")
        }
        let error = try expectRefusedAndUntouched(t.dbPath, backupDir: t.backupDir)
        guard case .tooNew(_, let version, let supported) = error else {
            Issue.record("expected .tooNew, got \(String(describing: error))")
            return
        }
        #expect(version == 99)
        #expect(supported == Migrations.latestVersion)
    }

    @Test func emptyFileBecomesANewDatabase() throws {
        let t = TempStore()
        _ = FileManager.default.createFile(atPath: t.dbPath, contents: Data())
        let store = try t.open()
        #expect(store.migratedFrom == 0)
        #expect(store.schemaVersion == Migrations.latestVersion)
    }
}
