import ArgumentParser
import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// `tnotes models list|install` (contract §8.3, issue #52): which speech-to-text engines the daemon has, and
/// installing the accurate one (sherpa-onnx with Moonshine base English) from pinned PyPI wheels.
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "The speech-to-text engines: which are installed, which one transcribes; install the accurate one.",
        discussion: """
            tnotes transcribes offline. With nothing installed it uses PocketSphinx (Debian's pocketsphinx-en-us), \
            which gets about one word in five wrong on natural speech. `tnotes models install` adds sherpa-onnx with \
            Moonshine base English (about 95 MB from PyPI, every file checked by its sha256), which gets about one \
            word in a hundred wrong; the daemon uses it from the next transcription, with no restart.

            Example:
              tnotes models
              tnotes models install
            """,
        subcommands: [List.self, Install.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the engines, whether each is installed, and the one in use.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try Session(global).run(ModelsList.self, NoParams()) { Self.render($0) }
        }

        static func render(_ json: JSON) -> String {
            let m = LenientRecord<ModelsStatus>(json)
            var lines = ["transcriber: \(m.transcriber ?? "-"), in use: \(m.engine ?? "-") (\(m.model ?? "-"))"]
            if let why = m.fallbackReason { lines.append("  \(why)") }
            for e in m.engines ?? [] {
                lines.append("  \(e.installed ? "installed    " : "not installed") \(e.engine) \(e.model)  \(e.location)")
            }
            return lines.joined(separator: "\n")
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install sherpa-onnx and Moonshine base English (pinned PyPI wheels, sha256-checked) where the daemon looks.",
            discussion: """
                The directory is the daemon's ([processing] model_dir, else <data_dir>/models, as `tnotes models` \
                shows); with no daemon running, $XDG_DATA_HOME/tnotes/models. Needs python3 with pip and access to \
                PyPI. Safe to run again.
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: ArgumentHelp("Install here instead.", valueName: "path")) var dir: String?

        func run() throws {
            guard let script = Self.installScript() else {
                throw Failure.message("the model installer (install-models.sh) was not found beside tnotes or in /usr/share/tnotes")
            }
            let target = try dir ?? Self.daemonDirectory(global) ?? Self.defaultDirectory()
            let argv = ["/bin/bash", script, target]
            var cArgs = argv.map { strdup($0) } + [nil]
            // The installer takes over this process: its output, and its exit status as ours.
            execv(argv[0], &cArgs)
            throw Failure.message("cannot run \(script): \(String(cString: strerror(errno)))")
        }

        /// The daemon's model directory, or nil when it is not running.
        static func daemonDirectory(_ global: GlobalOptions) throws -> String? {
            do {
                let m = LenientRecord<ModelsStatus>(try Session(global).call(ModelsList.self, NoParams()))
                return m.directory
            } catch Failure.unreachable {
                return nil
            }
        }

        static func defaultDirectory() -> String {
            let env = currentEnvironment()
            let data = env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "\(env["HOME"] ?? "/tmp")/.local/share"
            return "\(data)/tnotes/models"
        }

        /// The installer: in the package's share directory, or the source tree's scripts/ for a build from it.
        static func installScript() -> String? {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            let exe = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
            var dir = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)])
            var candidates = ["\(dir)/../share/tnotes/install-models.sh", "/usr/share/tnotes/install-models.sh"]
            for _ in 0..<4 {
                candidates.append("\(dir)/scripts/install-models.sh")
                dir = String(dir[..<(dir.lastIndex(of: "/") ?? dir.startIndex)])
            }
            return candidates.first { access($0, R_OK) == 0 }
        }
    }
}
