import ArgumentParser
import TNotesCLIRender
import TNotesClient
import TNotesCore

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find anything you noted or a preacher said: notes, transcripts, summaries, titles.",
        discussion: """
            Words are stemmed (forgive finds forgiveness). Use "quotes" for a phrase, word* for a prefix, and \
            AND, OR, NOT. Transcript hits show where they are in the audio (mm:ss). With --ref, finds the \
            sermons that cite a passage instead.

            Example:
              tnotes search forgiveness
              tnotes search '"no condemnation"' --speaker "Ann Lee" --from 2025-01-01
              tnotes search --ref "Romans 8"
              tnotes search --ref "John 3:16" --json
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "What to look for.") var words: [String] = []
    @Option(name: .long, help: ArgumentHelp("A passage: book, book chapter, or book chapter:verse.", valueName: "ref")) var ref: String?
    @Option(name: .long, help: ArgumentHelp("Only these kinds (comma-separated): sermon, note, transcript, summary.", valueName: "kinds"))
    var kinds: String?
    @Option(name: .long, help: "Only sermons by this speaker.") var speaker: String?
    @Option(name: .long, help: ArgumentHelp("Only sermons dated on or after this day.", valueName: "date"), transform: Values.date) var from: String?
    @Option(name: .long, help: ArgumentHelp("Only sermons dated on or before this day.", valueName: "date"), transform: Values.date) var to: String?
    @Option(name: .long, help: "How many hits (1–200).") var limit = 20

    func validate() throws {
        if words.isEmpty && ref == nil { throw ValidationError("give words to search for, or --ref PASSAGE") }
        if !words.isEmpty && ref != nil { throw ValidationError("give either words or --ref, not both") }
        if !(1...200).contains(limit) { throw ValidationError("--limit must be between 1 and 200") }
    }

    func run() throws {
        let session = Session(global)
        if let ref {
            let (book, chapter, verse) = try Self.passage(ref)
            let r = try session.call(SearchByReference.self, .init(book: book, chapter: chapter.map(Int64.init), verse: verse.map(Int64.init)))
            if session.json { Output.line(r.text); return }
            // Each hit's sermon title, read as before from sermon.get (one that cannot be read shows empty).
            var titles: [String: String] = [:]
            for i in LenientRecord<SearchPage>(r).list(\.items) ?? [] {
                let sid = i.sermonId ?? "?"
                if let sermon = try? session.call(SermonGet.self, IdParams(id: sid)), let title = LenientRecord<Sermon>(sermon).title {
                    titles[sid] = title
                }
            }
            Output.line(Render.referenceHits(r, ref: ref, titles: titles))
            return
        }
        // Sent as the user wrote them: an unknown kind is the daemon's error, naming the param.
        var params: JSONObject = SearchQuery.Params(q: words.joined(separator: " ")).record
        params[SearchQuery.Params.name(\.limit)] = .int(Int64(limit))
        if let kinds { params[SearchQuery.Params.name(\.kinds)] = .array(kinds.split(separator: ",").map { .string(String($0).trimmingWhitespace) }) }
        if let speaker { params[SearchQuery.Params.name(\.speaker)] = .string(speaker) }
        if let from { params[SearchQuery.Params.name(\.from)] = .string(from) }
        // A day given as --to means the whole of that day.
        if let to {
            params[SearchQuery.Params.name(\.to)] = .string(to.hasSuffix("T00:00:00.000Z") ? to.replacingSuffix("T00:00:00.000Z", "T23:59:59.999Z") : to)
        }
        let bold = Style.stdout.enabled
        try session.run(SearchQuery.name, .object(params)) { Render.searchHits($0, bold: bold) }
    }

    /// "Romans 8:28" → ("Romans", 8, 28); "1 Cor 13" → ("1 Cor", 13, nil); "Jude" → ("Jude", nil, nil).
    static func passage(_ text: String) throws -> (String, Int?, Int?) {
        var parts = text.split(separator: " ").map(String.init)
        guard let last = parts.last else { throw ValidationError("--ref needs a passage, e.g. \"Romans 8\"") }
        let numbers = last.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count > 1, let chapter = Int(numbers[0]) {
            parts.removeLast()
            let verse = numbers.count > 1 ? Int(numbers[1].prefix { $0.isNumber }) : nil
            if numbers.count > 1 && verse == nil { throw ValidationError("--ref: cannot read the verse in \(text)") }
            return (parts.joined(separator: " "), chapter, verse)
        }
        return (text, nil, nil)
    }
}

struct RefsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refs",
        abstract: "The scripture passages a sermon cites (title, notes, transcript, summary), with --text their words.",
        discussion: """
            Example:
              tnotes refs $SERMON
              tnotes refs $SERMON --text
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
    @Flag(name: .long, help: "Print each passage's text (offline, from the installed SWORD Bible).") var text = false
    @Option(name: .long, help: "The translation for --text (KJV, WEB).") var translation = "KJV"

    func run() throws {
        let session = Session(global)
        let refs = SermonDetail(lenient: try session.call(SermonGet.self, IdParams(id: sermonId))).scriptureRefs
        var passages: [JSON] = []
        if text {
            for r in refs { passages.append(try session.call(ScriptureText.self, .init(ref: Render.scriptureRef(r), translation: translation))) }
        }
        if global.json {
            Output.line((text ? JSON.array(passages) : JSON.array(refs)).text)
            return
        }
        if refs.isEmpty { Output.line("no scripture references"); return }
        if !text { Output.line(refs.map(Render.scriptureRef).joined(separator: "\n")); return }
        Output.line(passages.map(Render.passage).joined(separator: "\n\n"))
    }
}

struct VerseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verse",
        abstract: "Print a Bible passage, offline (SWORD modules from Debian: sword-text-kjv, sword-text-web).",
        discussion: """
            Example:
              tnotes verse "John 3:16-18"
              tnotes verse Ps 23 --translation WEB
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The passage, as people write it.") var words: [String] = []
    @Option(name: .long, help: "KJV (default) or WEB.") var translation = "KJV"

    func validate() throws {
        if words.isEmpty { throw ValidationError("give a passage, e.g. \"John 3:16\"") }
    }

    func run() throws {
        try Session(global).run(ScriptureText.self, .init(ref: words.joined(separator: " "), translation: translation)) { r in
            Render.passage(r)
        }
    }
}

extension String {
    func replacingSuffix(_ suffix: String, _ with: String) -> String { String(dropLast(suffix.count)) + with }
}
