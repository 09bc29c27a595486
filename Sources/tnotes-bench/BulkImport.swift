import Foundation
import TNotesClient
import TNotesCore
import TNotesSQLite

extension Bench {
    /// A bulk import over the socket as a migration script would do it: every sermon, then every note, in
    /// JSON-RPC batches of 500 calls (`sermon.create` with client-chosen ids, `note.add`), each batch sent
    /// and answered before the next. Every answer must be a result. The floor beside it: the same rows
    /// inserted into a fresh SQLite file in one transaction (no JSON-RPC, no records, no index).
    func bulkImport(sizes: Sizes) throws -> Figure {
        let d = "\(dir)/bulk-import"
        try? FileManager.default.removeItem(atPath: d)
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        let daemon = try Child("\(bin)/tnotesd", ["--data-dir", "\(d)/data", "--socket", "\(d)/s.sock", "--log-level", logLevel],
                               log: "\(d)/log")
        defer { daemon.stop() }
        try Wait.forSocket("\(d)/s.sock")
        let c = try RPCConnection(path: "\(d)/s.sock")
        let sermonIds = (0..<sizes.sermons).map { _ in Identifier.make() }
        var calls: [JSON] = sermonIds.enumerated().map { k, id in
            ["method": "sermon.create", "params": ["id": .string(id), "title": .string("Imported sermon \(k)"),
                                                   "date": .string("2024-\(String(format: "%02d", k % 12 + 1))-07")]]
        }
        for k in 0..<sizes.notes {
            calls.append(["method": "note.add", "params": ["sermonId": .string(sermonIds[k % sermonIds.count]),
                                                           "text": .string(Vocabulary.sentence(seed: k, words: 12)),
                                                           Note.name(\.timestamp): .int(Int64(k % 3600))]])
        }
        let batches = stride(from: 0, to: calls.count, by: 500).map { start in
            JSON.array(calls[start..<min(start + 500, calls.count)].enumerated().map { k, call in
                guard case .object(var o) = call else { return call }
                o["jsonrpc"] = "2.0"
                o["id"] = .int(Int64(start + k))
                return .object(o)
            }).bytes + [0x0A]
        }
        let seconds = try timed {
            for line in batches {
                guard case .array(let answers) = try c.exchange(line) else {
                    throw BenchError("no batch answer")
                }
                if let bad = answers.first(where: { $0["result"] == nil }) { throw BenchError("bulk import call failed: \(bad.text)") }
            }
        }
        let floor = try timed {
            let db = try SQLiteConnection(path: "\(d)/floor.sqlite", create: true)
            try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE r(id TEXT PRIMARY KEY, body TEXT)")
            try db.transaction {
                for (k, call) in calls.enumerated() { try db.run("INSERT INTO r VALUES (?, ?)", [.text(String(k)), .text(call.text)]) }
            }
        }
        return Figure(name: "bulk import over the socket, \(sizes.sermons) sermons + \(sizes.notes) notes in JSON-RPC batches of 500",
                      value: seconds, unit: "s", baseline: floor, baselineName: "the same rows in one SQLite transaction",
                      target: "< 10 s at 1×", higherIsBetter: false)
    }
}
