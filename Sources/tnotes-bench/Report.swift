import Foundation
import TNotesCore

struct Figure {
    let name: String
    let value: Double
    let unit: String
    var baseline: Double? = nil
    var baselineName: String? = nil
    let target: String?
    let higherIsBetter: Bool
    /// A figure whose best value is 0 (a word error rate): 0 is a measurement, not a missing figure.
    var mayBeZero = false

    /// value / baseline for rates; baseline / value … no: always value ÷ baseline, read with the unit.
    var ratio: Double? { baseline.map { $0 > 0 ? value / $0 : 0 } }

    var json: JSON {
        var o: JSONObject = ["name": .string(name), "value": .double(value), "unit": .string(unit),
                                 "higherIsBetter": .bool(higherIsBetter)]
        if let baseline { o["baseline"] = .double(baseline) }
        if let baselineName { o["baselineName"] = .string(baselineName) }
        if let ratio { o["ratio"] = .double(ratio) }
        if let target { o["target"] = .string(target) }
        return .object(o)
    }
}

struct Report {
    let machine: String
    let quick: Bool
    var figures = [Figure]()

    mutating func add(_ f: [Figure]) { for x in f { add(x) } }
    mutating func add(_ f: Figure) {
        figures.append(f)
        print("  \(f.name): \(Self.format(f.value)) \(f.unit)" + (f.baseline.map { " (baseline \(Self.format($0)))" } ?? ""))
        fflush(nil)
    }

    static func machineLine() -> String {
        let cpus = ProcessInfo.processInfo.activeProcessorCount
        let mem = ProcessInfo.processInfo.physicalMemory / (1 << 30)
        return "\(cpus) cores, \(mem) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
    }

    func markdown() -> String {
        var lines = ["| figure | value | baseline | ratio | target |", "|---|---:|---:|---:|---|"]
        for f in figures {
            let v = Self.format(f.value) + " " + f.unit
            let b = f.baseline.map { Self.format($0) + " " + f.unit + (f.baselineName.map { " (\($0))" } ?? "") } ?? "–"
            let r = f.ratio.map { String(format: "%.2f", $0) } ?? "–"
            lines.append("| \(f.name) | \(v) | \(b) | \(r) | \(f.target ?? "") |")
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ v: Double) -> String {
        v >= 100 ? String(format: "%.0f", v) : v >= 10 ? String(format: "%.1f", v) : String(format: "%.3f", v)
    }

    var json: JSON {
        ["machine": .string(machine), "quick": .bool(quick), "date": .string(Timestamp.now()),
         "figures": .array(figures.map(\.json))]
    }
}
