import Foundation
import TNotesClient
import TNotesCore
import TNotesSQLite

extension Bench {
    /// Contract §6.2 figures on a seeded store: `search.query` latency (p50, p99) over its notes and transcript
    /// segments, and the size of the search index (full-text and scripture references) beside the whole file.
    func searchFigures(socket: String, dataDir: String, scale: Int, notes: Int, transcripts: Int) throws -> [Figure] {
        let c = try RPCConnection(path: socket)
        // Queries as people type them, from the seed's vocabulary: a word, two words, a phrase (each matching
        // a few hundred rows at 1×), and a prefix (`abcd*`, matching thousands: like "forg*" in English).
        // Prefixes are measured apart: FTS5 ranks every match before the first row comes out, so their time
        // grows with the match count, while words and phrases stay flat.
        var words: [String] = [], prefixes: [String] = []
        for i in 0..<48 {
            let a = Vocabulary.word(i * 7919), b = Vocabulary.word(i * 104_729 + 3)
            switch i % 3 {
            case 0: words.append(a)
            case 1: words.append("\(a) \(b)")
            default: words.append("\"\(a) \(b)\"")
            }
            prefixes.append(String(a.prefix(4)) + "*")
        }
        func latencies(_ queries: [String], _ n: Int) throws -> [Double] {
            for q in queries.prefix(8) { _ = try c.call("search.query", ["q": .string(q)]) }  // warm the cache
            var lat = [Double]()
            for i in 0..<n {
                let t = Date()
                _ = try c.call("search.query", ["q": .string(queries[i % queries.count])])
                lat.append(Date().timeIntervalSince(t) * 1000)
            }
            return lat.sorted()
        }
        let lat = try latencies(words, quick ? 300 : 2000)
        let prefixLat = try latencies(prefixes, quick ? 100 : 500)
        func p99(_ l: [Double]) -> Double { l[min(l.count - 1, Int(Double(l.count) * 0.99))] }
        let db = try SQLiteConnection(path: "\(dataDir)/tnotes.sqlite", create: false)
        let indexBytes = try db.scalar("""
            SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'search_%' OR name LIKE 'scripture_refs%' OR name = 'derived_state'
            """).int ?? 0
        let fileBytes = try db.scalar("SELECT sum(pgsize) FROM dbstat").int ?? 0
        let what = "\(notes / 1000) k notes + \(transcripts / 1000) k transcripts"
        return [
            Figure(name: "search.query p50, words and phrases, \(what) (\(scale)×)", value: lat[lat.count / 2], unit: "ms",
                   target: nil, higherIsBetter: false),
            Figure(name: "search.query p99, words and phrases, \(what) (\(scale)×)", value: p99(lat), unit: "ms",
                   target: "< 5 ms", higherIsBetter: false),
            Figure(name: "search.query p99, prefix queries (thousands of matches), \(what) (\(scale)×)", value: p99(prefixLat), unit: "ms",
                   target: nil, higherIsBetter: false),
            Figure(name: "search index size (\(scale)×)", value: Double(indexBytes) / 1_048_576, unit: "MiB",
                   baseline: Double(fileBytes) / 1_048_576, baselineName: "the whole database", target: nil, higherIsBetter: false),
        ]
    }

    /// Durable `note.add` per second with the full-text index against the same daemon build without it (its
    /// rows table made an inert view in a copy of the store), one client: what keeping the index costs a write.
    func searchWriteOverhead(count: Int) throws -> Figure {
        let d = "\(dir)/search-writes"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        func rate(_ data: String, dropIndex: Bool) throws -> Double {
            if dropIndex {
                // A store made by this build, then its index made inert: search_docs becomes an empty view whose
                // inserts do nothing, so a write skips the index rows and FTS (and only those).
                let first = try Child("\(bin)/tnotesd", ["--data-dir", data, "--socket", "\(d)/s.sock", "--log-level", logLevel], log: "\(d)/log")
                try Wait.forSocket("\(d)/s.sock")
                first.stop()
                let db = try SQLiteConnection(path: "\(data)/tnotes.sqlite", create: false)
                try db.exec("""
                    DROP TABLE search_docs;
                    CREATE VIEW search_docs(doc, collection, record_id, sermon_id, kind, start, body) AS
                        SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;
                    CREATE TRIGGER search_docs_inert INSTEAD OF INSERT ON search_docs BEGIN SELECT 1; END;
                    """)
                unlink("\(data)/tnotes.sqlite-clean")
            }
            let daemon = try Child("\(bin)/tnotesd", ["--data-dir", data, "--socket", "\(d)/s.sock", "--log-level", logLevel], log: "\(d)/log")
            defer { daemon.stop() }
            try Wait.forSocket("\(d)/s.sock")
            let c = try RPCConnection(path: "\(d)/s.sock")
            let sid = try c.call("sermon.create", ["title": "bench"])["id"]!
            let t = try timed {
                for i in 0..<count {
                    _ = try c.call(NoteAdd.self, .init(sermonId: sid.stringValue ?? "", text: Vocabulary.sentence(seed: i, words: 8), timestamp: Double(i)))
                }
            }
            return Double(count) / t
        }
        // Alternated twice and averaged, so disk drift does not favour either.
        let with1 = try rate("\(d)/with1", dropIndex: false), without1 = try rate("\(d)/without1", dropIndex: true)
        let without2 = try rate("\(d)/without2", dropIndex: true), with2 = try rate("\(d)/with2", dropIndex: false)
        return Figure(name: "durable note.add with the search index, 1 client", value: (with1 + with2) / 2, unit: "writes/s",
                      baseline: (without1 + without2) / 2, baselineName: "the same daemon with its index made inert",
                      target: "≥ 0.9 of without", higherIsBetter: true)
    }
}

/// A fixed vocabulary of made-up words (three syllables each), so seeded text has the spread of real
/// prose: a query matches hundreds of rows, not all or none.
enum Vocabulary {
    static let syllables = ["ba", "ko", "ri", "mu", "sen", "tal", "vo", "dri", "pe", "lun", "gar", "si", "no", "fe", "qua", "zo"]

    static func word(_ n: Int) -> String {
        let k = (n &* 2_654_435_761) & 0xFFF
        return syllables[k & 15] + syllables[(k >> 4) & 15] + syllables[(k >> 8) & 15]
    }

    static func sentence(seed: Int, words: Int) -> String {
        (0..<words).map { word(seed &* 31 &+ $0 &* 7) }.joined(separator: " ")
    }
}
