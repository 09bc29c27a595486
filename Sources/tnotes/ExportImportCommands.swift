import ArgumentParser
import TNotesCLIRender
import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Your notes as files you can read (Markdown), or a full backup (JSON) that `tnotes import` restores.",
        discussion: """
            One file per sermon, named by its date and title (2025-11-09-bread-of-life.md): a second export into \
            the same directory updates the files instead of adding new ones. --format json writes each sermon \
            whole. --all --format json writes one backup of every record (tombstones and chat included) to FILE.

            Example:
              tnotes export ~/Documents/sermons
              tnotes export ~/Documents/sermons --audio
              tnotes export --all --format json ~/backups/tnotes-2025-11-09.json
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case markdown, json }

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A directory (a file with --all).", valueName: "path")) var destination: String
    @Option(name: .long, help: "markdown (default) or json.") var format: Format = .markdown
    @Flag(name: .long, help: "One JSON backup of every record instead of a file per sermon (needs --format json).") var all = false
    @Flag(name: .long, help: "Copy each sermon's audio file too.") var audio = false

    func validate() throws {
        if all && format != .json { throw ValidationError("--all writes a JSON backup: add --format json") }
        if all && audio { throw ValidationError("--audio copies files into an export directory, not into a backup file") }
    }

    func run() throws {
        let session = Session(global)
        if all {
            let n = try Backup.write(session: session, to: destination)
            Output.line("exported \(n) records to \(destination)")
            return
        }
        try LocalFiles.makeDirectory(destination)
        var sermons: [JSON] = []
        var list = SermonList.Params()
        list.includeArchived = true
        list.limit = 1000
        repeat {
            let page = Page(lenient: try session.call(SermonList.self, list))
            sermons += page.items
            list.after = page.next.map { .some($0) }
        } while list.after != nil
        let progress = ProgressCounter(label: "exporting", total: sermons.count, enabled: !session.json)
        var names = Set<String>()
        var written = 0, copied = 0
        for s in sermons {
            guard let id = LenientRecord<Sermon>(s).id else { continue }
            let sermon = try session.call(SermonGet.self, IdParams(id: id))
            var name = SermonExport.fileName(sermon)
            // Two sermons with the same date and title: the id keeps them apart (stable across runs).
            if names.contains(name) { name += "-" + id.prefix(8) }
            names.insert(name)
            if format == .json {
                let chat = sermon.objectValue == nil ? JSON.null : try session.call(ChatList.self, SermonIdParams(sermonId: id))
                try LocalFiles.write("\(destination)/\(name).json", SermonExport.json(sermon, chat: chat))
            } else {
                try LocalFiles.write("\(destination)/\(name).md", SermonExport.markdown(sermon))
            }
            written += 1
            if audio, let fileName = LenientRecord<Sermon>(sermon).nested(\.audio)?.fileName,
               let path = LenientRecord<AudioPath.Result>(try session.call(AudioPath.self, SermonIdParams(sermonId: id))).path {
                try LocalFiles.makeDirectory("\(destination)/audio")
                try LocalFiles.copy(path, to: "\(destination)/audio/\(LocalFiles.safeName(fileName))")
                copied += 1
            }
            progress.step()
        }
        progress.done()
        Output.line("exported \(written) sermons to \(destination)" + (audio ? " (\(copied) audio files)" : ""))
    }
}

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore a backup made by `tnotes export --all --format json` (or a directory of them).",
        discussion: """
            Records are merged by id under the normal rules: importing the same backup twice changes nothing, \
            and records this daemon did not have sync like local edits. --audio DIR attaches the audio files in \
            DIR to the sermons whose audio has that file name.

            Example:
              tnotes import ~/backups/tnotes-2025-11-09.json
              tnotes import --audio ~/Recordings
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A backup file, or a directory of them.", valueName: "path")) var source: String?
    @Option(name: .customLong("audio"), help: ArgumentHelp("A directory of audio files to attach by name.", valueName: "dir"))
    var audioDirectory: String?

    func validate() throws {
        if source == nil && audioDirectory == nil { throw ValidationError("give a backup to import, or --audio DIR") }
    }

    func run() throws {
        let session = Session(global)
        if let source {
            let (applied, unchanged) = try Backup.restore(session: session, from: source)
            Output.line("imported \(applied + unchanged) records: \(applied) applied, \(unchanged) unchanged")
        }
        if let audioDirectory {
            let attached = try Backup.attachAudio(session: session, directory: audioDirectory)
            Output.line("attached \(attached) audio files")
        }
    }
}

/// The backup document: `{format: "tnotes-backup", version: 1, exportedAt, deviceId, records: [{collection,
/// deviceId, record}]}`, written a page at a time.
enum Backup {
    static func write(session: Session, to path: String) throws -> Int {
        let file = try LocalFiles.Writer(path: path)
        let status = LenientRecord<DaemonStatus>(try session.call(DaemonStatusMethod.self, NoParams()))
        // The document's head, written by the document's own shape without its records, which the pages then
        // add as its last member (a backup of a million records is never in memory at once).
        var head = BackupDocument()
        head.exportedAt = Timestamp.now()
        head.deviceId = status.deviceId
        var members = head.record
        members[BackupDocument.name(\.records)] = nil
        try file.write(String(JSON.object(members).text.dropLast()) + ",\(JSON.string(BackupDocument.name(\.records)).text):[\n")
        var params = BackupExport.Params(after: nil, limit: 2000)
        var count = 0
        var progress: ProgressCounter?
        repeat {
            let page = Page(lenient: try session.call(BackupExport.self, params))
            if progress == nil { progress = ProgressCounter(label: "exporting", total: Int(page.total ?? 0), enabled: !session.json) }
            for item in page.items {
                try file.write((count == 0 ? "" : ",\n") + item.text)
                count += 1
                progress?.step()
            }
            params.after = page.next.map { .some($0) }
        } while params.after != nil
        try file.write("\n]}\n")
        try file.close()
        progress?.done()
        return count
    }

    static func restore(session: Session, from path: String) throws -> (Int, Int) {
        var files = [path]
        if LocalFiles.isDirectory(path) {
            files = try LocalFiles.list(path).filter { $0.hasSuffix(".json") }.sorted().map { "\(path)/\($0)" }
        }
        var applied = 0, unchanged = 0
        for f in files {
            let doc: JSON
            do { doc = try JSON.parse(try FileReader.read(f)) } catch { throw Failure.usage("\(f): not a JSON backup (\(error))") }
            let backup = LenientRecord<BackupDocument>(doc)
            guard backup.format == BackupDocument.formatName, let records = backup.json(at: \.records)?.arrayValue else {
                throw Failure.usage("\(f): not a tnotes backup (made by tnotes export --all --format json)")
            }
            let progress = ProgressCounter(label: "importing", total: records.count, enabled: !session.json)
            var i = 0
            while i < records.count {
                let batch = Array(records[i..<min(records.count, i + 1000)])
                let r = BackupImport.Result(lenient: try session.call(BackupImport.self, .init(items: batch.map { $0.objectValue ?? [:] })))
                applied += Int(r.applied)
                unchanged += Int(r.unchanged)
                i += batch.count
                progress.step(batch.count)
            }
            progress.done()
        }
        return (applied, unchanged)
    }

    static func attachAudio(session: Session, directory: String) throws -> Int {
        let files = Set(try LocalFiles.list(directory))
        var attached = 0
        var list = SermonList.Params()
        list.includeArchived = true
        list.limit = 1000
        repeat {
            let page = Page(lenient: try session.call(SermonList.self, list))
            for s in page.items {
                let sermon = LenientRecord<Sermon>(s)
                guard let id = sermon.id, let name = sermon.nested(\.audio)?.fileName, files.contains(name),
                      LenientRecord<SermonDetail.AudioState>(sermon.json(at: \.audio)).localAvailable != true
                else { continue }
                _ = try session.call(AudioImport.self, .init(sermonId: id, path: "\(directory)/\(name)"))
                attached += 1
            }
            list.after = page.next.map { .some($0) }
        } while list.after != nil
        return attached
    }
}

/// "exporting 1200/5000 (850/s)" on standard error, rewritten in place, on a terminal only.
final class ProgressCounter {
    let label: String
    let total: Int
    let line: ProgressLine
    private var count = 0
    private let started = Timestamp.nowMillis()
    private var lastShown: Int64 = 0

    init(label: String, total: Int, enabled: Bool) {
        self.label = label
        self.total = total
        line = ProgressLine(enabled: enabled)
    }

    func step(_ n: Int = 1) {
        count += n
        let now = Timestamp.nowMillis()
        guard now - lastShown >= 100 || count == total else { return }
        lastShown = now
        line.show(ProgressText.counter(label: label, count: count, total: total, elapsedSeconds: Double(now - started) / 1000))
    }

    func done() { line.clear() }
}
