import ArgumentParser
import TNotesCLIRender
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// `tnotes record` (contract §8.2): start a recording, and stop, pause, resume or look at it.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a sermon from the microphone (or any sound source).",
        discussion: """
            The daemon records from the sound server (PulseAudio, or PipeWire's pulse server) into the sermon's
            audio. While it records, `tnotes note add SERMON TEXT` without --at stamps the note with the
            recording's clock. Stopping attaches the audio and queues its transcription.

            Examples:
              tnotes record --title "Grace upon grace" --speaker "Pastor Lee"
              tnotes record pause
              tnotes record stop
            """,
        subcommands: [Start.self, Stop.self, Pause.self, Resume.self, Status.self],
        defaultSubcommand: Start.self)

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start", abstract: "Start recording (a new sermon, or --sermon for an existing one).")

        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "The new sermon's title.") var title: String?
        @Option(name: .long, help: "The speaker.") var speaker: String?
        @Option(name: .long, help: ArgumentHelp("An existing sermon to record into.", valueName: "sermon-id"),
                transform: Values.id) var sermon: String?
        @Option(name: .long, help: ArgumentHelp("A sound source (see `tnotes audio sources`); default the default source.",
                                                valueName: "name")) var source: String?

        func run() throws {
            var p = RecordingStart.Params()
            p.title = title
            p.speaker = speaker.map { .some($0) }
            p.sermonId = sermon
            p.source = source
            // On a terminal (and not --json): the full-screen view; otherwise start and return.
            guard !global.json, isatty(0) == 1, isatty(1) == 1 else {
                try Session(global).run(RecordingStart.self, p) { r in
                    RecordingText.status(r) + "\nstop with: tnotes record stop"
                }
                return
            }
            let started = try Session(global).call(RecordingStart.self, p)
            let sermonId = LenientRecord<RecordingStatus>(started).sermonId ?? "-"
            let status = try RecordingView.run(global: global, started: started, title: title ?? "Recording")
            if status == 0 {
                Output.line("stopped; sermon \(sermonId)")
            } else {
                Output.line("still recording (sermon \(sermonId)); stop with: tnotes record stop")
                throw ExitCode(status)
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop, attach the audio and queue its transcription.")
        @OptionGroup var global: GlobalOptions
        func run() throws { try Session(global).run(RecordingStop.self, NoParams()) { RecordingText.status($0) } }
    }

    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause (the recording's clock stops).")
        @OptionGroup var global: GlobalOptions
        func run() throws { try Session(global).run(RecordingPause.self, NoParams()) { RecordingText.status($0) } }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume a paused recording.")
        @OptionGroup var global: GlobalOptions
        func run() throws { try Session(global).run(RecordingResume.self, NoParams()) { RecordingText.status($0) } }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the recording, if any.")
        @OptionGroup var global: GlobalOptions
        func run() throws { try Session(global).run(RecordingStatusMethod.self, NoParams()) { RecordingText.status($0) } }
    }
}
