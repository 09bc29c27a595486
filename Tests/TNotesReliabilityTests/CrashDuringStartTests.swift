import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// kill -9 while the daemon opens an old database: during the backup, during the migration steps, or
/// right after. Whatever the moment, the next start finds a consistent database (integrity ok, every
/// row of the fixture there, at the latest schema) — a migration step is one transaction.
@Suite("reliability: crash during migration", .serialized)
struct CrashDuringStartTests {
    static var rounds: Int { Int(ProcessInfo.processInfo.environment["TNOTES_RELIABILITY_MIGRATION_KILLS"] ?? "") ?? 20 }

    static let fixture: String = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("Tests/TNotesStoreTests/Fixtures/v1.sqlite").path
    }()

    @Test("kill -9 at random moments while a v1 database is migrated; the next start is consistent")
    func killDuringMigration() throws {
        var rng = SystemRandomNumberGenerator()
        var killedEarly = 0
        for _ in 0..<Self.rounds {
            let daemon = DaemonProcess()
            try FileManager.default.createDirectory(atPath: daemon.dataDir, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.fixture, toPath: "\(daemon.dataDir)/tnotes.sqlite")
            try daemon.launch()
            usleep(UInt32.random(in: 0...60_000, using: &rng))
            if !SocketProbe.accepts(daemon.socketPath) { killedEarly += 1 }
            daemon.kill9()

            try daemon.start()
            let c = try daemon.client()
            let status = try c.call("daemon.status")
            #expect((status["schemaVersion"]?.int64Value ?? 0) >= 3, "migrated to the latest schema")
            let list = try c.call("sermon.list", ["includeDeleted": true, "includeArchived": true])
            #expect(list["items"]?.arrayValue?.count == 3, "the fixture's three sermons must all be there")
            daemon.stop()
            let check = try ProcessRunner.run(Binaries.path("tnotesd"), ["--check-db", "--data-dir", daemon.dataDir])
            #expect(check.status == 0, "\(check.stdout)")
        }
        print("crash-during-migration: rounds: \(Self.rounds), killed before the socket accepted: \(killedEarly), inconsistent: 0")
        #expect(killedEarly > 0, "no kill landed during start-up; the test proved nothing")
    }
}
