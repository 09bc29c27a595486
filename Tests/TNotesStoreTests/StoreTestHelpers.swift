import Foundation
import Logging
import TNotesCore
import TNotesStore
import TNotesTestSupport
import TNotesSQLite

/// A store on a fresh temporary directory.
final class TempStore {
    let dir: TempDirectory
    var dbPath: String { dir.file("tnotes.sqlite") }
    var backupDir: String { dir.file("backups") }

    init() { dir = TempDirectory("tns") }

    func open() throws -> Store {
        try Store(path: dbPath, backupDirectory: backupDir, logger: Logger(label: "tnotes.test"))
    }

    /// A second, independent connection for looking at the raw tables.
    func sql() throws -> SQLiteConnection { try SQLiteConnection(path: dbPath, create: false) }
}

enum Rec {
    static let otherDevice = "c3a1b2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"

    static func sermon(_ id: String, title: String = "Walking in the Spirit", updatedAt: String,
                       deletedAt: String? = nil) -> JSONObject {
        ["id": .string(id), "title": .string(title), "date": "2025-11-02T10:00:00.000Z", "serviceType": "Sunday Service",
         "speaker": "Pastor John", "isArchived": false, "transcriptionStatus": "complete", "summaryStatus": "complete",
         "audio": .null, "createdAt": "2025-11-02T09:58:00.000Z", "updatedAt": .string(updatedAt),
         "deletedAt": JSON(deletedAt)]
    }

    static func note(_ id: String, sermonId: String, text: String, at seconds: Double, updatedAt: String,
                     deletedAt: String? = nil) -> JSONObject {
        ["id": .string(id), "sermonId": .string(sermonId), "text": .string(text), "timestamp": seconds.rounded() == seconds ? .int(Int64(seconds)) : .double(seconds),
         "createdAt": "2025-11-02T10:00:00.000Z", "updatedAt": .string(updatedAt), "deletedAt": JSON(deletedAt)]
    }

    static let segments: JSON = [
        ["start": 0, "end": 4.5, "text": "Good morning, church.", "speaker": "Pastor John"],
        ["start": 4.5, "end": 12.25, "text": "Turn with me to Galatians chapter five."],
        ["start": 12.25, "end": 19, "text": "\"Walk by the Spirit\" — not run, walk. 🙏", "speaker": "Pastor John"],
    ]

    static func transcript(sermonId: String, updatedAt: String, segments: JSON = Rec.segments) -> JSONObject {
        ["id": .string(Identifier.derivedInOrder(from: sermonId, kind: "transcript")), "sermonId": .string(sermonId),
         "text": "Good morning, church. Turn with me to Galatians chapter five.", "status": "complete",
         "segments": segments, "updatedAt": .string(updatedAt), "deletedAt": .null]
    }

    static func summary(sermonId: String, updatedAt: String) -> JSONObject {
        ["id": .string(Identifier.derivedInOrder(from: sermonId, kind: "summary")), "sermonId": .string(sermonId),
         "title": "Keeping in step", "text": "Life in the Spirit is a walk.", "type": "devotional",
         "status": "complete", "updatedAt": .string(updatedAt), "deletedAt": .null]
    }

    static func chat(_ id: String, sermonId: String, content: String, deviceId: String = otherDevice) -> JSONObject {
        ["id": .string(id), "sermonId": .string(sermonId), "role": "user", "content": .string(content),
         "createdAt": "2025-11-02T14:00:00.000Z", "deviceId": .string(deviceId)]
    }

    /// A change as it arrives by pull: wire JSON text, decoded and validated by `Change(json:)`.
    static func pulled(_ collection: RecordCollection, _ record: JSONObject, op: Change.Op = .upsert,
                       deviceId: String = otherDevice, seq: Int = 1) throws -> Change {
        let updatedAt = record["updatedAt"]?.stringValue ?? record["createdAt"]!.stringValue!
        let wire = JSON.object([
            "seq": .int(Int64(seq)), "collection": .string(collection.rawValue), "id": record["id"]!,
            "op": .string(op.rawValue), "updatedAt": .string(updatedAt), "deviceId": .string(deviceId),
            "record": .object(record),
        ]).text
        var c = try Change(json: try JSON.parse(wire), requireOpId: false)
        c.opId = "pull-\(seq)"
        return c
    }
}

func fixturesDirectory() throws -> URL {
    guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
        throw CocoaError(.fileNoSuchFile)
    }
    return url
}

func fileBytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

func copyFile(_ from: String, to: String) throws {
    try FileManager.default.copyItem(atPath: from, toPath: to)
}
