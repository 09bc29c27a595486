import ArgumentParser
import Foundation
import TNotesCore
import TNotesTestSupport

/// tnotes-bench: speed, scale and memory of the real processes, each figure next to a baseline measured
/// in the same run on the same machine (absolute times on shared machines are noise; ratios are not).
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tnotes-bench",
        abstract: "Speed, scale and memory of tnotesd and tnotes-server, each figure beside a baseline of the same run.",
        discussion: "Runs the release build's binaries found next to this one. Exits 1 when a figure is missing or invalid.")

    /// The parts `--only` can name; `none` runs no part (with `--keep`, only the seeding of each scale).
    static let sections = ["writes", "transcription", "recognizers", "recording", "realtime", "reads", "sync", "none"]

    @Flag(help: "A small run (100 sermons per 1×, scales 1,4): a check that every figure is produced.")
    var quick = false

    @Option(help: "Comma-separated scales of 10,000 sermons and 100,000 notes each.")
    var scales: String?

    @Option(help: "Where the JSON report goes (its directory is created if missing).")
    var out = ".build/bench-results.json"

    @Option(help: "A PostgreSQL URL for the server's second backend, or `auto` for a throwaway durable cluster on loopback.")
    var postgres: String?

    @Option(help: "Comma-separated parts to run (\(BenchCommand.sections.joined(separator: ", "))); the figure count check is then skipped.")
    var only: String?

    @Option(help: "The sherpa-onnx installation (scripts/install-models.sh DIR); its figures are left out when it is missing.")
    var models = ".build/models"

    @Option(help: "The spoken passages (scripts/speech/make-speech.sh DIR), made there when missing.")
    var speech = ".build/speech"

    @Flag(help: "Leave the temp dir (stores, logs) for a look afterwards.")
    var keep = false

    // No page-cache fill before the timed syncs (see `PageCacheFill`): the syncs' new file pages then come from
    // free memory, which on a VM that returns it to the host costs a host fault per page.
    @Flag(help: "Do not fill the page cache before each timed sync.")
    var coldMemory = false

    var scaleList: [Int] { (scales ?? (quick ? "1,4" : "1,4,16")).split(separator: ",").compactMap { Int($0) } }
    var onlySet: Set<String>? { only.map { Set($0.split(separator: ",").map(String.init)) } }

    func validate() throws {
        if let scales, scales.split(separator: ",", omittingEmptySubsequences: false).contains(where: { (Int($0) ?? 0) <= 0 }) {
            throw ValidationError("--scales: \"\(scales)\" is not a comma-separated list of positive whole numbers")
        }
        if let unknown = onlySet?.subtracting(Self.sections).sorted(), !unknown.isEmpty {
            throw ValidationError("--only: unknown part \(unknown.joined(separator: ", ")); the parts are \(Self.sections.joined(separator: ", "))")
        }
        if let postgres, postgres != "auto", !postgres.hasPrefix("postgres://"), !postgres.hasPrefix("postgresql://") {
            throw ValidationError("--postgres: \"\(postgres)\" is neither a postgres:// URL nor auto")
        }
    }

    func run() throws {
        // A throwaway cluster on loopback (initdb in a temp dir), as the tests use, but durable (fsync=on); or the
        // database of a URL.
        let postgres = PostgresDatabases(given: postgres == "auto" ? nil : postgres,
                                         cluster: postgres == "auto" ? try PostgresServer.durable.get() : nil)
        let base = quick ? Sizes(sermons: 100, notesPerSermon: 10) : Sizes(sermons: 10_000, notesPerSermon: 10)
        // The quick run never fills (its syncs are small; it is a check that every figure is produced).
        let fillsPageCache = !quick && !coldMemory
        let bench = try Bench(quick: quick, only: onlySet, keep: keep, fillsPageCache: fillsPageCache)
        var report = Report(machine: Report.machineLine() + (fillsPageCache ? "; page cache filled before each timed sync" : "; cold memory"),
                            quick: quick)
        defer {
            bench.pageCacheFill?.remove()
            if keep { say("kept \(bench.dir)") } else { bench.cleanup() }
        }

        say("tnotes-bench \(quick ? "(quick)" : "") — binaries: \(bench.bin)")
        var rawWriteRate: Double?
        if bench.wants("writes") {
            let figures = try bench.durableWrites(count: quick ? 300 : 3000)
            rawWriteRate = figures.first?.baseline
            report.add(figures)
            report.add(try bench.searchWriteOverhead(count: quick ? 200 : 2000))
        }
        if bench.wants("transcription") {
            report.add(try bench.transcription(minutes: quick ? 0.5 : 10))
        }
        var recognizerFigures = 0
        if bench.wants("recognizers") {
            if !FileManager.default.fileExists(atPath: "\(speech)/sower-neural.json") {
                guard FileManager.default.isExecutableFile(atPath: "scripts/speech/make-speech.sh") else {
                    throw BenchError("no spoken passages in \(speech), and scripts/speech/make-speech.sh is not here to make them")
                }
                _ = try tnotes_bench.run("scripts/speech/make-speech.sh", [speech])
            }
            let figures = try bench.recognizers(speechDir: speech, modelsDir: models, passages: quick ? ["sower"] : ["sower", "shepherd"])
            recognizerFigures = figures.count
            report.add(figures)
        }
        if bench.wants("recording") {
            report.add(try bench.recording(seconds: quick ? 12 : 60))
        }
        if bench.wants("realtime") {
            report.add(try bench.realtime(postgres: postgres, edits: quick ? 30 : 200, idlePulls: quick ? 200 : 1000))
        }
        let scales = scaleList
        for scale in scales {
            let sizes = base.scaled(scale)
            say("scale \(scale)×: \(sizes.sermons) sermons, \(sizes.notes) notes, \(sizes.sermons) transcripts")
            let figures = try bench.scaleRun(sizes: sizes, scale: scale, postgres: postgres, quick: quick, rawWriteRate: rawWriteRate)
            for f in figures { report.add(f) }
            // A scale's stores go once it is measured: at 16× they are 22 GB, and kept beside the smaller
            // scales' until exit they once filled the disk mid-run.
            if !keep { bench.cleanup(scale: scale) }
        }
        say("")
        say(report.markdown())
        let outURL = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: outURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(report.json.text.utf8).write(to: outURL)
        say("\nJSON written to \(out)")
        // Every figure must have been measured (a speed is never pass/fail here; a missing figure is).
        let bad = report.figures.filter {
            !$0.value.isFinite || $0.value < 0 || ($0.value == 0 && !$0.mayBeZero) || ($0.baseline.map { !$0.isFinite || $0 <= 0 } ?? false)
        }
        let backends = postgres.isEmpty ? 1 : 2
        // The first term is the durable writes section: note.add with 1 and 8 clients, note.update, the idle
        // local-only RSS, the RSS 0.5 s after start and note.add with the search index; then transcription (3), the recognizers (6 for each
        // installed engine: WER and speed for two voices, RSS after, the worker's peak) and recording (4).
        let expected = 6 + 3 + recognizerFigures + 4 + 3 * (postgres.isEmpty ? 1 : 3) + 2 + scales.count * (12 + 9 * backends) + (scales.contains(1) ? backends + 2 + 1 : 0)
        if !bad.isEmpty || (only == nil && report.figures.count != expected) {
            say("missing or invalid figures: \(bad.map(\.name)); \(report.figures.count) of \(expected) produced")
            throw ExitCode(1)
        }
    }
}
