import ArgumentParser
import TNotesCLIRender
import TNotesClient
import TNotesCore

struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "Passages two devices changed differently, and resolving them.",
        discussion: """
            When two devices change the same words of a note, a title, a transcript or a summary before they \
            sync, nothing is dropped: the text keeps both versions of the passage as [[first || second]], and \
            a conflict is listed here on every device until one resolves it.

            Example:
              tnotes conflicts
              tnotes conflicts resolve $CONFLICT --value "The corrected sentence."
            """,
        subcommands: [List.self, Resolve.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List conflicts, newest first (open ones unless --all).",
            discussion: """
                Example:
                  tnotes conflicts
                  tnotes conflicts list --all --json
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Resolved ones too.") var all = false

        func run() throws {
            var params = ConflictsList.Params()
            if !all { params.state = .open }
            try Session(global).run(ConflictsList.self, params) { Render.conflicts($0, all: all) }
        }
    }

    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the conflicted text and close the conflict on every device.",
            discussion: """
                Give the text with --value, or in a file with --file (- for standard input).

                Example:
                  tnotes conflicts resolve $CONFLICT --value "one two three"
                  tnotes conflicts resolve $CONFLICT --file fixed.txt
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The conflict's id.", valueName: "id"), transform: Values.id) var id: String
        @Option(name: .long, help: "The text to keep.") var value: String?
        @Option(name: .long, help: ArgumentHelp("A file holding the text to keep (- for standard input).", valueName: "path"))
        var file: String?

        func validate() throws {
            if value != nil && file != nil { throw ValidationError("give the text with only one of --value or --file") }
            if value == nil && file == nil && !Editor.available {
                throw ValidationError("give the text with --value or --file (or set $EDITOR to resolve it in your editor)")
            }
        }

        func run() throws {
            let session = Session(global)
            let text: String
            if let value {
                text = value
            } else if let file {
                text = try readFileOption(file)
            } else {
                // Both versions in the editor, as git shows a merge conflict.
                let all = try session.call(ConflictsList.self, .init()).arrayValue ?? []
                guard let c = all.lazy.map({ LenientRecord<Conflict>($0) }).first(where: { $0.id == id }) else {
                    throw Failure.notFound("no conflict \(id)")
                }
                let both = "<<<<<<< this device\n\(c.local ?? "")\n=======\n\(c.remote ?? "")\n>>>>>>> the other device"
                let edited = try Editor.edit(both, help: ["Keep the text you want and delete the rest, markers included.",
                                                          "Lines starting with # are ignored; an empty text changes nothing."])
                let markers = ["<<<<<<<", "=======", ">>>>>>>"]
                if edited.split(separator: "\n").contains(where: { line in markers.contains { line.hasPrefix($0) } }) {
                    throw Failure.message("the conflict markers are still there; nothing changed")
                }
                text = edited
            }
            try session.run(ConflictsResolve.self, .init(id: id, value: text)) { r in
                let c = LenientRecord<Conflict>(r)
                return "resolved conflict \(id): \(String((c.collection?.rawValue ?? "record").dropLast())) "
                    + "\(c.recordId ?? "?") \(c.field ?? "") set"
            }
        }
    }
}
