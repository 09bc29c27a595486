import Foundation
import Logging
import TNotesCore
import TNotesStore
import TNotesSQLite

struct Sizes {
    var sermons: Int
    var notesPerSermon: Int
    var notes: Int { sermons * notesPerSermon }
    func scaled(_ k: Int) -> Sizes { Sizes(sermons: sermons * k, notesPerSermon: notesPerSermon) }
}

/// Fills a device's store through the store's own write path (records + outbox entries, as the RPC
/// methods would), in large transactions so seeding does not dominate the run.
enum Seeder {
    static func seed(dataDir: String, sizes: Sizes) throws {
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        let store = try Store(path: "\(dataDir)/tnotes.sqlite", backupDirectory: "\(dataDir)/backups",
                              logger: Logger(label: "bench"))
        defer { store.close() }
        let chunk = 500
        var done = 0
        while done < sizes.sermons {
            let n = min(chunk, sizes.sermons - done)
            let first = done
            try store.writeSync { s in
                for k in 0..<n {
                    let i = first + k
                    let id = Identifier.make()
                    let now = s.stamp()
                    try s.commitLocal(.sermons, record: [
                        "id": .string(id), "title": .string("Sermon \(i)"), "date": .string(now), "serviceType": "Sunday Service",
                        "speaker": "Pastor", "createdAt": .string(now), "updatedAt": .string(now),
                    ], op: .upsert)
                    for j in 0..<sizes.notesPerSermon {
                        let t = s.stamp()
                        try s.commitLocal(.notes, record: [
                            "id": .string(Identifier.make()), "sermonId": .string(id), "text": .string("Note \(j) of sermon \(i): \(Vocabulary.sentence(seed: i &* 10 &+ j, words: 4))"),
                            Note.name(\.timestamp): .int(Int64(j * 30)), "createdAt": .string(t), "updatedAt": .string(t),
                        ], op: .upsert)
                    }
                    var segments = [JSON]()
                    for q in 0..<20 {
                        segments.append(["start": .int(Int64(q * 10)), "end": .int(Int64(q * 10 + 9)), "text": .string("segment \(q) \(Vocabulary.sentence(seed: i &* 20 &+ q &+ 7_000_000, words: 4))")])
                    }
                    try s.commitLocal(.transcripts, record: [
                        "id": .string(Identifier.derivedInOrder(from: id, kind: "transcript")), "sermonId": .string(id),
                        "text": .string("Transcript of sermon \(i)"), "segments": .array(segments), "updatedAt": .string(s.stamp()),
                    ], op: .upsert)
                }
            }
            done += n
        }
    }

    static func sermonIds(dataDir: String, limit: Int) throws -> [String] {
        let db = try SQLiteConnection(path: "\(dataDir)/tnotes.sqlite", create: false)
        return try db.query("SELECT id FROM records WHERE collection = 'sermons' LIMIT ?", [.int(Int64(limit))]).compactMap { $0[0].string }
    }

    static func outboxTexts(dataDir: String) throws -> [String] {
        let db = try SQLiteConnection(path: "\(dataDir)/tnotes.sqlite", create: false)
        return try db.query("SELECT change FROM outbox ORDER BY seq").compactMap { $0[0].string }
    }
}
