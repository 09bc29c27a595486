import ArgumentParser
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
            var p: JSONObject = ["title": .string(title)]
            if let speaker { p["speaker"] = speaker.isEmpty ? .null : .string(speaker) }
            if let serviceType { p["serviceType"] = .string(serviceType) }
            if let date { p["date"] = .string(date) }
            try Session(global).run("sermon.create", .object(p)) { r in
                "created sermon \(r["id"]?.stringValue ?? "?") (\(r["title"]?.stringValue ?? ""), \(Format.date(r["date"]?.stringValue)))"
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
            var params: JSONObject = [:]
            if archived { params["includeArchived"] = true }
            if deleted { params["includeDeleted"] = true }
            // Follow the pages: one list, as one sermon.list answer would be when everything fits.
            var result = try session.call("sermon.list", .object(params))
            var items = result["items"]?.arrayValue ?? []
            while let next = result["next"]?.stringValue {
                var p = params
                p["after"] = .string(next)
                result = try session.call("sermon.list", .object(p))
                items += result["items"]?.arrayValue ?? []
            }
            if session.json {
                var whole = result.objectValue ?? [:]
                whole["items"] = .array(items)
                whole["next"] = .null
                Output.line(JSON.object(whole).text)
                return
            }
            if items.isEmpty {
                Output.line("No sermons. Create one with: tnotes sermon create --title TITLE")
                return
            }
            // sermon.list leaves the children out; count the live notes per sermon.
            var counts = [String]()
            for s in items {
                if s["deletedAt"]?.isNull == false { counts.append("-"); continue }
                let full = try session.call("sermon.get", ["id": s["id"] ?? .null])
                counts.append("\(full["notes"]?.arrayValue?.count ?? 0)")
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
            try Session(global).run("sermon.get", ["id": .string(id)]) { Render.sermon($0, style: .stdout) }
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
            var p: JSONObject = ["id": .string(id)]
            if let title { p["title"] = .string(title) }
            if editTitle {
                let current = try session.call("sermon.get", ["id": .string(id)])["title"]?.stringValue ?? ""
                let edited = try Editor.edit(current, help: ["The sermon's title (one line). Lines starting with # are ignored."])
                p["title"] = .string(edited.split(separator: "\n").joined(separator: " "))
            }
            if let speaker { p["speaker"] = speaker.isEmpty ? .null : .string(speaker) }
            if let serviceType { p["serviceType"] = .string(serviceType) }
            if let date { p["date"] = .string(date) }
            if archive { p["isArchived"] = true }
            if unarchive { p["isArchived"] = false }
            try session.run("sermon.update", .object(p)) { r in
                "updated sermon \(r["id"]?.stringValue ?? id) (\(r["title"]?.stringValue ?? "")\(r["isArchived"]?.boolValue == true ? ", archived" : ""))"
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
            try Session(global).run("sermon.delete", ["id": .string(id)]) { r in
                "deleted sermon \(r["id"]?.stringValue ?? id)"
            }
        }
    }
}

/// Human renderings of records.
enum Render {
    static func sermonTable(_ items: [JSON], noteCounts: [String], style: Style) -> String {
        var table = Table(columns: [
            .init(title: "DATE"), .init(title: "TITLE"), .init(title: "SPEAKER"),
            .init(title: "NOTES", align: .right), .init(title: "SYNC", style: style.state), .init(title: "ID", style: style.dim),
        ])
        for (i, s) in items.enumerated() {
            var title = Format.truncate(s["title"]?.stringValue ?? "", 48)
            if s["isArchived"]?.boolValue == true { title += " [archived]" }
            if s["deletedAt"]?.isNull == false { title += " [deleted]" }
            table.rows.append([
                Format.date(s["date"]?.stringValue), title, Format.truncate(s["speaker"]?.stringValue ?? "-", 32),
                noteCounts[i], s["syncState"]?.stringValue ?? "-", s["id"]?.stringValue ?? "",
            ])
        }
        return table.render(style: style)
    }

    static func sermon(_ s: JSON, style: Style) -> String {
        var out = [String]()
        var heading = s["title"]?.stringValue ?? ""
        if s["isArchived"]?.boolValue == true { heading += " [archived]" }
        if s["deletedAt"]?.isNull == false { heading += " [deleted]" }
        out.append(style.bold(heading))
        out.append(String(repeating: "=", count: max(Format.width(heading), 1)))
        var rows: [(String, String)] = [
            ("Date", Format.date(s["date"]?.stringValue)),
            ("Speaker", s["speaker"]?.stringValue ?? "-"),
            ("Service", s["serviceType"]?.stringValue ?? "-"),
            ("Status", "transcription \(style.state(s["transcriptionStatus"]?.stringValue ?? "-")), "
                + "summary \(style.state(s["summaryStatus"]?.stringValue ?? "-"))"),
            ("Audio", audio(s["audio"])),
            ("Sync", style.state(s["syncState"]?.stringValue ?? "-")),
            ("Id", s["id"]?.stringValue ?? "-"),
            ("Created", Format.time(s["createdAt"])),
            ("Updated", Format.time(s["updatedAt"])),
        ]
        if s["deletedAt"]?.isNull == false { rows.append(("Deleted", Format.time(s["deletedAt"]))) }
        out.append(Format.fields(rows, style: style))

        let notes = s["notes"]?.arrayValue ?? []
        out.append("")
        out.append(style.bold("Notes") + " (\(notes.count))")
        if notes.isEmpty { out.append("  none") }
        let stamps = notes.map { Format.offset($0["timestamp"]?.doubleValue ?? 0) }
        let w = stamps.map(Format.width).max() ?? 0
        for (i, n) in notes.enumerated() {
            out.append(indented(n["text"]?.stringValue ?? "", first: "  " + style.cyan(Format.padLeft(stamps[i], w)) + "  ",
                                rest: String(repeating: " ", count: w + 4)))
        }

        out.append("")
        if let t = s["transcript"], !t.isNull {
            let segments = t["segments"]?.arrayValue ?? []
            let status = t["status"]?.stringValue ?? "-"
            let count = segments.isEmpty ? "" : ", \(segments.count) segment\(segments.count == 1 ? "" : "s")"
            out.append(style.bold("Transcript") + " (\(style.state(status))\(count))")
            if segments.isEmpty {
                out.append(indented(t["text"]?.stringValue ?? "", first: "  ", rest: "  "))
            } else {
                let spans = segments.map {
                    Format.offset($0["start"]?.doubleValue ?? 0) + "–" + Format.offset($0["end"]?.doubleValue ?? 0)
                }
                let sw = spans.map(Format.width).max() ?? 0
                for (i, seg) in segments.enumerated() {
                    var text = seg["text"]?.stringValue ?? ""
                    if let speaker = seg["speaker"]?.stringValue { text = "\(speaker): \(text)" }
                    out.append(indented(text, first: "  " + style.cyan(Format.padRight(spans[i], sw)) + "  ",
                                        rest: String(repeating: " ", count: sw + 4)))
                }
            }
        } else {
            out.append(style.bold("Transcript") + ": none")
        }

        out.append("")
        if let m = s["summary"], !m.isNull {
            let status = m["status"]?.stringValue ?? "-"
            out.append(style.bold("Summary") + ": \(m["title"]?.stringValue ?? "") (\(m["type"]?.stringValue ?? "-"), \(style.state(status)))")
            out.append(indented(m["text"]?.stringValue ?? "", first: "  ", rest: "  "))
        } else {
            out.append(style.bold("Summary") + ": none")
        }
        return out.joined(separator: "\n")
    }

    static func audio(_ a: JSON?) -> String {
        guard let a, !a.isNull else { return "none" }
        var parts = [a["fileName"]?.stringValue ?? "audio"]
        if let size = a["sizeBytes"]?.int64Value { parts.append(Format.bytes(size)) }
        parts.append(a["localAvailable"]?.boolValue == true ? "on this device" : "not on this device")
        parts.append(a["uploaded"]?.boolValue == true ? "uploaded" : "not uploaded")
        if let sha = a["sha256"]?.stringValue { parts.append("sha256 \(sha.prefix(12))…") }
        return parts.joined(separator: ", ")
    }

    /// Multi-line text with a prefix on the first line and an indent on the rest.
    static func indented(_ text: String, first: String, rest: String) -> String {
        var text = Substring(text)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.enumerated().map { i, l in (i == 0 ? first : rest) + l }.joined(separator: "\n")
    }
}
