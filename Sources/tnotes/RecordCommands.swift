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
            var p: JSONObject = ["sermonId": .string(sermonId), "text": .string(body)]
            if let at { p["timestamp"] = Values.number(at) }
            try Session(global).run("note.add", .object(p)) { r in
                "added note \(r["id"]?.stringValue ?? "?") at \(ClockTime.format(r["timestamp"]?.doubleValue ?? at ?? 0))"
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
            var p: JSONObject = ["id": .string(noteId)]
            if let at { p["timestamp"] = Values.number(at) }
            if !text.isEmpty { p["text"] = .string(text.joined(separator: " ")) }
            if at == nil && text.isEmpty {
                // The current text, in the editor.
                let current = try session.call("note.get", ["id": .string(noteId)])
                let before = current["text"]?.stringValue ?? ""
                let after = try Editor.edit(before, help: ["Note \(noteId) at \(ClockTime.format(current["timestamp"]?.doubleValue ?? 0)).",
                                                           "Lines starting with # are ignored; an empty note changes nothing."])
                if after == before { Output.error("unchanged"); return }
                p["text"] = .string(after)
            }
            try session.run("note.update", .object(p)) { r in
                "updated note \(r["id"]?.stringValue ?? noteId) at \(ClockTime.format(r["timestamp"]?.doubleValue ?? 0))"
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
            try Session(global).run("note.delete", ["id": .string(noteId)]) { r in
                "deleted note \(r["id"]?.stringValue ?? noteId)"
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
            var p: JSONObject = ["sermonId": .string(sermonId)]
            if content.drop(while: \.isWhitespace).first == "{" {
                guard let doc = try? JSON.parse(content), case .object(let o) = doc else {
                    throw Failure.usage("--file \(file): starts with '{' but is not a JSON object")
                }
                guard let text = o["text"], text.stringValue != nil else {
                    throw Failure.usage("--file \(file): a JSON transcript needs a string \"text\"")
                }
                for key in o.keys where !["text", "segments", "status"].contains(key) {
                    throw Failure.usage("--file \(file): unknown key \"\(key)\" (expected text, segments, status)")
                }
                p["text"] = text
                if let segments = o["segments"], !segments.isNull { p["segments"] = segments }
                if let s = o["status"], !s.isNull { p["status"] = s }
            } else {
                var text = content
                while text.hasSuffix("\n") { text.removeLast() }
                p["text"] = .string(text)
            }
            if let status { p["status"] = .string(status.rawValue) }
            try Session(global).run("transcript.set", .object(p)) { r in
                let n = r["segments"]?.arrayValue?.count ?? 0
                return "set transcript of sermon \(sermonId) (\(r["text"]?.stringValue?.count ?? 0) characters, \(n) segment\(n == 1 ? "" : "s"))"
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
                let current = try Session(global).call("sermon.get", ["id": .string(sermonId)])["summary"]?["text"]?.stringValue ?? ""
                text = try Editor.edit(current, help: ["The \(type.rawValue) summary \"\(title)\". Lines starting with # are ignored;",
                                                       "an empty summary changes nothing."])
            }
            while text.hasSuffix("\n") { text.removeLast() }
            var p: JSONObject = ["sermonId": .string(sermonId), "type": .string(type.rawValue), "title": .string(title),
                                     "text": .string(text)]
            if let status { p["status"] = .string(status.rawValue) }
            try Session(global).run("summary.set", .object(p)) { r in
                "set \(r["type"]?.stringValue ?? type.rawValue) summary of sermon \(sermonId): \(r["title"]?.stringValue ?? title)"
            }
        }
    }
}

struct AudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract: "Attach audio to a sermon; list the sound sources to record from.",
        discussion: """
            Example:
              tnotes audio import $SERMON ~/Recordings/2025-11-09.m4a
              tnotes audio sources
            """,
        subcommands: [Import.self, Sources.self])

    struct Sources: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The sound server's sources (`*`: the default).")
        @OptionGroup var global: GlobalOptions
        func run() throws { try Session(global).run("audio.sources") { RecordingText.sources($0) } }
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
            try Session(global).run("audio.import", ["sermonId": .string(sermonId), "path": .string(absolute)]) { r in
                "imported audio for sermon \(sermonId): \(Render.audio(r["audio"]))"
            }
        }
    }
}
