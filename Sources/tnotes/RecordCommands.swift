import ArgumentParser
import TNotesCLIRender
import TNotesClient
import TNotesCore

struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Add, edit and delete a sermon's notes.",
        discussion: """
            --at is the place in the audio: seconds (754), mm:ss (12:34) or h:mm:ss (1:02:03), at most 7 days (168:00:00).
            Without --at, while the sermon is recording (tnotes record), the note takes the recording's clock.

            Example:
              tnotes note add $SERMON --at 12:34 Manna every morning
            """,
        subcommands: [Add.self, Edit.self, Delete.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a note at a place in the audio.",
            discussion: """
                Example:
                  tnotes note add $SERMON --at 12:34 Manna every morning
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
        @Option(name: .long, help: ArgumentHelp("Where in the audio: seconds, mm:ss or h:mm:ss; default the recording's clock while the sermon records.",
                                                valueName: "time"),
                transform: Values.offset) var at: Double?
        @Argument(help: "The note's text.") var text: [String] = []

        func validate() throws {
            if text.isEmpty && Editor.available { return }
            if text.joined(separator: " ").allSatisfy(\.isWhitespace) {
                throw ValidationError("missing the note's text (or set $EDITOR to write it in your editor)")
            }
        }

        func run() throws {
            // No text: the user's editor (validate let this through only when there is one).
            let body = text.isEmpty
                ? try Editor.edit("", help: ["The note\(at.map { " at \(ClockTime.format($0))" } ?? ""). Lines starting with # are ignored;",
                                             "an empty note adds nothing."])
                : text.joined(separator: " ")
            try Session(global).run(NoteAdd.self, .init(sermonId: sermonId, text: body, timestamp: at)) { r in
                let note = LenientRecord<Note>(r)
                return "added note \(note.id ?? "?") at \(ClockTime.format(note.timestamp ?? at ?? 0))"
            }
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a note's text or place.",
            discussion: """
                Give --at, a new text, or both.

                Example:
                  tnotes note edit $NOTE --at 12:40 Manna, every morning
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The note's id.", valueName: "note-id"), transform: Values.id) var noteId: String
        @Option(name: .long, help: ArgumentHelp("New place in the audio: seconds, mm:ss or h:mm:ss.", valueName: "time"),
                transform: Values.offset) var at: Double?
        @Argument(help: "The new text.") var text: [String] = []

        func validate() throws {
            if at == nil && text.isEmpty && !Editor.available {
                throw ValidationError("nothing to change: give --at, a new text, or both (or set $EDITOR to edit the text)")
            }
            if !text.isEmpty && text.joined(separator: " ").allSatisfy(\.isWhitespace) {
                throw ValidationError("the new text must not be empty")
            }
        }

        func run() throws {
            let session = Session(global)
            var p = NoteUpdate.Params(id: noteId, text: text.isEmpty ? nil : text.joined(separator: " "), timestamp: at)
            if at == nil && text.isEmpty {
                // The current text, in the editor.
                let current = LenientRecord<Note>(try session.call(NoteGet.self, IdParams(id: noteId)))
                let before = current.text ?? ""
                let after = try Editor.edit(before, help: ["Note \(noteId) at \(ClockTime.format(current.timestamp ?? 0)).",
                                                           "Lines starting with # are ignored; an empty note changes nothing."])
                if after == before { Output.error("unchanged"); return }
                p.text = after
            }
            try session.run(NoteUpdate.self, p) { r in
                let note = LenientRecord<Note>(r)
                return "updated note \(note.id ?? noteId) at \(ClockTime.format(note.timestamp ?? 0))"
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a note.",
            discussion: """
                Example:
                  tnotes note delete $NOTE
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The note's id.", valueName: "note-id"), transform: Values.id) var noteId: String

        func run() throws {
            try Session(global).run(NoteDelete.self, IdParams(id: noteId)) { r in
                "deleted note \(LenientRecord<Note>(r).id ?? noteId)"
            }
        }
    }
}

/// Reads `--file` (or `-` for standard input); an unreadable file is a usage error naming the flag.
func readFileOption(_ path: String, flag: String = "--file") throws -> String {
    do {
        let bytes = try FileReader.read(path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Failure.usage("\(flag) \(path): not UTF-8 text")
        }
        return text
    } catch let e as FileReader.Failure {
        throw Failure.usage("\(flag): cannot read \(e.description)")
    }
}

struct TranscriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Set a sermon's transcript.",
        discussion: """
            Example:
              tnotes transcript set $SERMON --file transcript.txt
            """,
        subcommands: [Set.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set (create or replace) a sermon's transcript from a file.",
            discussion: """
                The file is plain text, or JSON {"text": ..., "segments": [{"start", "end", "text", \
                "speaker"?}], "status"?} (times in seconds). "-" reads standard input.

                Example:
                  tnotes transcript set $SERMON --file transcript.json
                  my-transcriber sermon.m4a | tnotes transcript set $SERMON --file -
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
        @Option(name: .long, help: ArgumentHelp("Plain text or JSON {text, segments}; - for stdin.", valueName: "path"))
        var file: String
        @Option(name: .long, help: "The transcript's status (default: complete).") var status: ProcessingStatus?

        func run() throws {
            let content = try readFileOption(file)
            // The params as JSON: a JSON file's segments and status go to the daemon as they are, so that one
            // it refuses is refused with the daemon's reason, naming the field.
            var p = TranscriptSet.Params()
            p.sermonId = sermonId
            var params = JSONObject()
            if content.drop(while: \.isWhitespace).first == "{" {
                guard let doc = try? JSON.parse(content), case .object(let o) = doc else {
                    throw Failure.usage("--file \(file): starts with '{' but is not a JSON object")
                }
                let given = LenientRecord<TranscriptSet.Params>(object: o)
                guard let text = given.text else {
                    throw Failure.usage("--file \(file): a JSON transcript needs a string \"text\"")
                }
                let known = [\TranscriptSet.Params.text, \.segments, \.status].map { TranscriptSet.Params.name($0) }
                for key in o.keys where !known.contains(key) {
                    throw Failure.usage("--file \(file): unknown key \"\(key)\" (expected text, segments, status)")
                }
                p.text = text
                params = p.record
                for keyPath in [\TranscriptSet.Params.segments, \.status] {
                    if let v = given.json(at: keyPath), !v.isNull { params[TranscriptSet.Params.name(keyPath)] = v }
                }
            } else {
                var text = content
                while text.hasSuffix("\n") { text.removeLast() }
                p.text = text
                params = p.record
            }
            if let status { params[TranscriptSet.Params.name(\.status)] = .string(status.rawValue) }
            try Session(global).run(TranscriptSet.name, .object(params)) { r in
                let t = LenientRecord<Transcript>(r)
                let n = t.list(\.segments)?.count ?? 0
                return "set transcript of sermon \(sermonId) (\(t.text?.count ?? 0) characters, \(n) segment\(n == 1 ? "" : "s"))"
            }
        }
    }
}

struct SummaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Set a sermon's summary.",
        discussion: """
            Example:
              tnotes summary set $SERMON --type devotional --title "Daily bread" \\
                  --file summary.txt
            """,
        subcommands: [Set.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set (create or replace) a sermon's summary from a text file.",
            discussion: """
                "-" reads standard input.

                Example:
                  tnotes summary set $SERMON --type devotional --title "Daily bread" \\
                  --file summary.txt
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
        @Option(name: .long, help: "The kind of summary.") var type: SummaryType
        @Option(name: .long, help: "The summary's title.") var title: String
        @Option(name: .long, help: ArgumentHelp("The summary text; - for stdin; without it, your $EDITOR.", valueName: "path"))
        var file: String?
        @Option(name: .long, help: "The summary's status (default: complete).") var status: ProcessingStatus?

        func validate() throws {
            if file == nil && !Editor.available { throw ValidationError("missing --file (or set $EDITOR to write the summary in your editor)") }
        }

        func run() throws {
            var text: String
            if let file {
                text = try readFileOption(file)
            } else {
                let current = SermonDetail(lenient: try Session(global).call(SermonGet.self, IdParams(id: sermonId))).summary?.text ?? ""
                text = try Editor.edit(current, help: ["The \(type.rawValue) summary \"\(title)\". Lines starting with # are ignored;",
                                                       "an empty summary changes nothing."])
            }
            while text.hasSuffix("\n") { text.removeLast() }
            var p = SummarySet.Params()
            p.sermonId = sermonId
            p.type = Summary.Kind(rawValue: type.rawValue) ?? .bullet
            p.title = title
            p.text = text
            p.status = status.flatMap { TNotesCore.ProcessingStatus(rawValue: $0.rawValue) }
            try Session(global).run(SummarySet.self, p) { r in
                let summary = LenientRecord<Summary>(r)
                return "set \(summary.type?.rawValue ?? type.rawValue) summary of sermon \(sermonId): \(summary.title ?? title)"
            }
        }
    }
}

struct AudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract: "Attach audio to a sermon; fetch or evict a synced sermon's audio; list the sound sources to record from.",
        discussion: """
            Example:
              tnotes audio import $SERMON ~/Recordings/2025-11-09.m4a
              tnotes audio fetch $SERMON
              tnotes audio evict $SERMON
              tnotes audio sources
            """,
        subcommands: [Import.self, Fetch.self, Evict.self, Sources.self])

    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download a sermon's audio from the sync server to this device.",
            discussion: """
                For a device with [sync] audio = "on-demand" (or a copy evicted from the audio cache). The download \
                resumes after an interruption and is verified by SHA-256; on a terminal a line shows how far it is. \
                It runs on a metered connection too. Prints where the file is.

                Example:
                  tnotes audio fetch $SERMON
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String

        func run() throws {
            let session = Session(global)
            let sermonId = self.sermonId
            let progress = EventProgress(socketPath: session.socketPath, enabled: !global.json, topic: .audioProgress,
                                         firstText: "fetching audio…") { p in
                let event = LenientRecord<AudioProgressEvent>(p)
                return event.sermonId == sermonId && event.state == "fetching" ? ProgressText.audio(p) : nil
            }
            progress?.start()
            let result: JSON
            do {
                result = try session.call(AudioFetch.self, .init(sermonId: sermonId))
                progress?.stop()
            } catch {
                progress?.stop()
                throw error
            }
            if global.json { Output.line(result.text); return }
            let r = LenientRecord<AudioFetch.Result>(result)
            let size = Format.bytes(r.sizeBytes ?? 0)
            Output.line(r.fetched == true ? "fetched \(size): \(r.path ?? "")" : "already on this device (\(size)): \(r.path ?? "")")
        }
    }

    struct Evict: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove this device's copy of a sermon's audio that the server holds.",
            discussion: """
                The sermon keeps its audio on the server and on other devices; tnotes audio fetch brings it back. \
                The only copy (not uploaded yet) is never removed.

                Example:
                  tnotes audio evict $SERMON
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String

        func run() throws {
            try Session(global).run(AudioEvict.self, .init(sermonId: sermonId)) { r in
                LenientRecord<AudioEvict.Result>(r).evicted == true
                    ? "evicted the audio of sermon \(sermonId) from this device (the server keeps it)"
                    : "the audio of sermon \(sermonId) was not on this device"
            }
        }
    }

    struct Sources: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The sound server's sources (`*`: the default).")
        @OptionGroup var global: GlobalOptions
        func run() throws { try Session(global).run(AudioSources.self, NoParams()) { RecordingText.sources($0) } }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy an audio file into the daemon's data dir and attach it to a sermon.",
            discussion: """
                The daemon copies the file and records its size and SHA-256; sync uploads it.

                Example:
                  tnotes audio import $SERMON ~/Recordings/2025-11-09.m4a
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
        @Argument(help: ArgumentHelp("The audio file.", valueName: "path")) var path: String

        func run() throws {
            let absolute = SocketPath.absolute(path)
            try Session(global).run(AudioImport.self, .init(sermonId: sermonId, path: absolute)) { r in
                "imported audio for sermon \(sermonId): \(Render.audio(LenientRecord<Sermon>(r).json(at: \.audio)))"
            }
        }
    }
}
