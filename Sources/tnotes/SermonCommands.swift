import ArgumentParser
import TNotesCLIRender
import TNotesCore

struct SermonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sermon",
        abstract: "Create, list, show, update and delete sermons.",
        discussion: """
            Example:
              SERMON=$(tnotes --json sermon create --title "Bread from Heaven" | jq -r .id)
              tnotes sermon show $SERMON
              tnotes sermon list
            """,
        subcommands: [Create.self, List.self, Show.self, Update.self, Delete.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a sermon.",
            discussion: """
                --date takes YYYY-MM-DD or an RFC 3339 time; the default is now.

                Example:
                  tnotes sermon create --title "Bread from Heaven" --speaker "Ann Lee" \\
                      --service-type "Sunday Service" --date 2025-11-09
                """)

        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "The title.") var title: String
        @Option(name: .long, help: "Who preached.") var speaker: String?
        @Option(name: .long, help: "The service, e.g. \"Sunday Service\" (the daemon's default).") var serviceType: String?
        @Option(name: .long, help: ArgumentHelp("YYYY-MM-DD or RFC 3339 (default: now).", valueName: "date"),
                transform: Values.date) var date: String?

        func validate() throws {
            if title.allSatisfy(\.isWhitespace) { throw ValidationError("--title must not be empty") }
        }

        func run() throws {
            var p = SermonCreate.Params()
            p.title = title
            p.speaker = speaker.map { $0.isEmpty ? nil : $0 }
            p.serviceType = serviceType
            p.date = date
            try Session(global).run(SermonCreate.self, p) { r in
                let sermon = LenientRecord<Sermon>(r)
                return "created sermon \(sermon.id ?? "?") (\(sermon.title ?? ""), \(Format.date(sermon.date)))"
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List sermons, newest date first.",
            discussion: """
                Shows date, title, speaker, number of notes, sync state and id. With --json, prints the \
                sermon.list result (all pages in one `items` array).

                Example:
                  tnotes sermon list --archived
                  tnotes --json sermon list | jq -r '.items[] | "\\(.date) \\(.title)"'
                """)

        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Include archived sermons.") var archived = false
        @Flag(name: .long, help: "Include deleted sermons (tombstones).") var deleted = false

        func run() throws {
            let session = Session(global)
            var params = SermonList.Params()
            if archived { params.includeArchived = true }
            if deleted { params.includeDeleted = true }
            // Follow the pages: one list, as one sermon.list answer would be when everything fits.
            var page = Page(lenient: try session.call(SermonList.self, params))
            var items = page.items
            while let next = page.next {
                params.after = next
                page = Page(lenient: try session.call(SermonList.self, params))
                items += page.items
            }
            if session.json {
                page.items = items
                page.next = nil
                Output.line(page.fieldJSON.text)
                return
            }
            if items.isEmpty {
                Output.line("No sermons. Create one with: tnotes sermon create --title TITLE")
                return
            }
            // sermon.list leaves the children out; count the live notes per sermon.
            var counts = [String]()
            for s in items {
                let sermon = LenientRecord<Sermon>(s)
                if sermon.json(at: \.deletedAt)?.isNull == false { counts.append("-"); continue }
                let full = SermonDetail(lenient: try session.call(SermonGet.self, IdParams(id: sermon.id ?? "")))
                counts.append("\(full.notes.count)")
            }
            Output.line(Render.sermonTable(items, noteCounts: counts, style: .stdout))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a sermon: details, notes, transcript, summary and audio.",
            discussion: """
                Example:
                  tnotes sermon show $SERMON
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The sermon's id.", transform: Values.id) var id: String

        func run() throws {
            try Session(global).run(SermonGet.self, IdParams(id: id)) { Render.sermon($0, style: .stdout) }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a sermon's title, speaker, service type, date or archived state.",
            discussion: """
                --speaker "" clears the speaker.

                Example:
                  tnotes sermon update $SERMON --title "Manna" --archive
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The sermon's id.", transform: Values.id) var id: String
        @Option(name: .long, help: "New title.") var title: String?
        @Option(name: .long, help: "New speaker (\"\" clears it).") var speaker: String?
        @Option(name: .long, help: "New service type.") var serviceType: String?
        @Option(name: .long, help: ArgumentHelp("New date: YYYY-MM-DD or RFC 3339.", valueName: "date"),
                transform: Values.date) var date: String?
        @Flag(name: .long, help: "Archive the sermon.") var archive = false
        @Flag(name: .long, help: "Unarchive the sermon.") var unarchive = false
        /// `--title` given without a value (main.swift rewrites it to this): the title in $EDITOR.
        @Flag(name: .customLong("edit-title"), help: .hidden) var editTitle = false

        func validate() throws {
            if archive && unarchive { throw ValidationError("--archive and --unarchive exclude each other") }
            if editTitle && !Editor.available { throw ValidationError("--title needs a value (or set $EDITOR to edit the title)") }
            if let title, title.allSatisfy(\.isWhitespace) { throw ValidationError("--title must not be empty") }
            if !editTitle && title == nil && speaker == nil && serviceType == nil && date == nil && !archive && !unarchive {
                throw ValidationError("nothing to change: give --title, --speaker, --service-type, --date, --archive or --unarchive")
            }
        }

        func run() throws {
            let session = Session(global)
            var p = SermonUpdate.Params(id: id)
            p.title = title
            if editTitle {
                let current = LenientRecord<Sermon>(try session.call(SermonGet.self, IdParams(id: id))).title ?? ""
                let edited = try Editor.edit(current, help: ["The sermon's title (one line). Lines starting with # are ignored."])
                p.title = edited.split(separator: "\n").joined(separator: " ")
            }
            p.speaker = speaker.map { $0.isEmpty ? nil : $0 }
            p.serviceType = serviceType
            p.date = date
            if archive { p.isArchived = true }
            if unarchive { p.isArchived = false }
            try session.run(SermonUpdate.self, p) { r in
                let sermon = LenientRecord<Sermon>(r)
                return "updated sermon \(sermon.id ?? id) (\(sermon.title ?? "")\(sermon.isArchived == true ? ", archived" : ""))"
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a sermon with its notes, transcript and summary.",
            discussion: """
                The records become tombstones, which sync to your other devices.

                Example:
                  tnotes sermon delete $SERMON
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The sermon's id.", transform: Values.id) var id: String

        func run() throws {
            try Session(global).run(SermonDelete.self, IdParams(id: id)) { r in
                "deleted sermon \(LenientRecord<Sermon>(r).id ?? id)"
            }
        }
    }
}
