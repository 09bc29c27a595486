import Foundation
import TNotesCore

extension Bench {
    /// Issue #21 figures: `tnotes export --all --format json` from the seeded daemon, and `tnotes import` of
    /// that backup into a fresh daemon, in records per second, through the real CLI binary.
    func backupRates(socket: String, dir d: String, records: Int) throws -> [Figure] {
        let cli = "\(bin)/tnotes"
        guard FileManager.default.isExecutableFile(atPath: cli) else { throw BenchError("\(cli) is missing") }
        let file = "\(d)/backup.json"
        let exportSeconds = try timed { _ = try run(cli, ["--socket", socket, "export", "--all", "--format", "json", file]) }
        let fresh = try Child("\(bin)/tnotesd", ["--data-dir", "\(d)/c", "--socket", "\(d)/c.sock", "--log-level", logLevel], log: "\(d)/c.log")
        defer { fresh.stop() }
        try Wait.forSocket("\(d)/c.sock")
        let importSeconds = try timed { _ = try run(cli, ["--socket", "\(d)/c.sock", "import", file]) }
        return [
            Figure(name: "tnotes export --all (JSON backup), \(records) records", value: Double(records) / exportSeconds,
                   unit: "records/s", target: nil, higherIsBetter: true),
            Figure(name: "tnotes import of that backup into a fresh daemon", value: Double(records) / importSeconds,
                   unit: "records/s", target: nil, higherIsBetter: true),
        ]
    }
}
