import ArgumentParser
import TNotesClient
import TNotesCore

struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a sermon's notes and summary (and with --transcript its transcript) as a public page.",
        discussion: """
            Anyone with the link can read the page; it needs no script and prints cleanly. Publishing again \
            replaces what the page shows, at the same address. Offline, the publish is queued and the address \
            is printed once it has synced.

            Example:
              tnotes publish $SERMON
              tnotes publish $SERMON --transcript --audio --slug romans-8 --tag grace --tag romans \\
                --description "Paul on life in the Spirit" --can-fork
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
    @Flag(name: .long, help: "Publish the transcript too.") var transcript = false
    @Flag(name: .long, help: "Leave the notes out.") var noNotes = false
    @Flag(name: .long, help: "Leave the summary out.") var noSummary = false
    @Flag(name: .long, help: "Publish the audio too (a player on the page, the podcast feed's enclosure).") var audio = false
    @Option(name: .long, help: "The readable part of the address (first publish only).") var slug: String?
    @Option(name: .long, help: "What the page, the index and the feed say of it (\"\" clears it).") var description: String?
    @Option(name: .customLong("tag"), help: "A tag (repeat for more; replaces the tags).") var tags: [String] = []
    @Option(name: .long, help: "The page's language, a BCP 47 tag (default en).") var language: String?
    @Flag(name: .long, inversion: .prefixedNo, help: "Let others copy it into their library (tnotes fork).") var canFork: Bool?

    func run() throws {
        var parts: [Publication.Part] = []
        if !noNotes { parts.append(.notes) }
        if !noSummary { parts.append(.summary) }
        if transcript { parts.append(.transcript) }
        if audio { parts.append(.audio) }
        if parts.isEmpty { throw ValidationError("nothing to publish: keep the notes or the summary, or add --transcript") }
        let session = Session(global)
        _ = try session.call(SermonPublish.self, .init(id: sermonId, parts: parts, slug: slug, description: description,
                                                       tags: tags.isEmpty ? nil : tags, language: language, canFork: canFork))
        try PublicationOutput.print(session: session, sermonId: sermonId, verb: "published")
    }
}

struct UnpublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpublish",
        abstract: "Take a sermon's public page down (its address then answers 410 Gone).",
        discussion: """
            Example:
              tnotes unpublish $SERMON
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String

    func run() throws {
        let session = Session(global)
        _ = try session.call(SermonUnpublish.self, IdParams(id: sermonId))
        try PublicationOutput.print(session: session, sermonId: sermonId, verb: "unpublished")
    }
}

enum PublicationOutput {
    /// Syncs at once when sync is on (so the address is known), then prints the publication.
    static func print(session: Session, sermonId: String, verb: String) throws {
        if let status = try? session.call(SyncStatusMethod.self, NoParams()), LenientRecord<SyncStatus>(status).state != "disabled" {
            _ = try? session.call(SyncNow.self, .init(wait: true))
        }
        let sermon = try session.call(SermonGet.self, IdParams(id: sermonId))
        let json = LenientRecord<SermonDetail>(sermon).json(at: \.publication) ?? .null
        if session.json { Output.line(json.text); return }
        let publication = LenientRecord<PublicationView>(json)
        let state = publication.state ?? "pending"
        if state == "pending" {
            Output.line("\(verb) (queued: the page follows when the daemon next syncs)")
        } else if let url = publication.url {
            Output.line(url)
        } else {
            Output.line("\(verb): \(publication.publicId ?? "")")
        }
    }
}

struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Your sync account: its use and limits, or (--handle) your public handle: /u/HANDLE lists your published sermons, with a podcast feed.",
        discussion: """
            Example:
              tnotes account
              tnotes account --handle grace-chapel
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "2 to 40 letters, digits, '-' or '_' (kept lowercase).") var handle: String?

    func run() throws {
        guard let handle else {
            try Session(global).run(AccountGet.self, NoParams()) { json in
                func limit(_ v: JSON?) -> String { v?.int64Value.map { String($0) } ?? "no limit" }
                let usage = json["usage"], quota = json["quota"]
                return """
                    handle       \(json["handle"]?.stringValue ?? "none")
                    records      \(usage?["records"]?.int64Value ?? 0) of \(limit(quota?["records"]))
                    audio bytes  \(usage?["audioBytes"]?.int64Value ?? 0) of \(limit(quota?["audioBytes"]))
                    """
            }
            return
        }
        try Session(global).run(AccountUpdate.self, .init(handle: handle)) { json in
            let r = LenientRecord<AccountUpdate.Result>(json)
            return "handle \(r.handle ?? handle): \(r.url ?? "")\nfeed: \(r.url ?? "")/feed.xml"
        }
    }
}

struct ForkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fork",
        abstract: "Copy a published sermon whose author allows it into your library, as a new sermon.",
        discussion: """
            Its notes, summary and transcript come as published; the new sermon remembers where it came from.

            Example:
              tnotes fork https://notes.example.org/p/no-condemnation-3f9a0c1d2b4e5f60
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The page's address.", valueName: "url")) var url: String

    func run() throws {
        try Session(global).run(SermonFork.self, .init(url: url)) { json in
            let sermon = LenientRecord<Sermon>(json)
            return "forked into sermon \(sermon.id ?? "") (\(sermon.title ?? ""))"
        }
    }
}
