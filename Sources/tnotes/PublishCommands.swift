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
              tnotes publish $SERMON --transcript --slug romans-8
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The sermon's id.", valueName: "sermon-id"), transform: Values.id) var sermonId: String
    @Flag(name: .long, help: "Publish the transcript too.") var transcript = false
    @Flag(name: .long, help: "Leave the notes out.") var noNotes = false
    @Flag(name: .long, help: "Leave the summary out.") var noSummary = false
    @Option(name: .long, help: "The readable part of the address (first publish only).") var slug: String?

    func run() throws {
        var parts: [Publication.Part] = []
        if !noNotes { parts.append(.notes) }
        if !noSummary { parts.append(.summary) }
        if transcript { parts.append(.transcript) }
        if parts.isEmpty { throw ValidationError("nothing to publish: keep the notes or the summary, or add --transcript") }
        let session = Session(global)
        _ = try session.call(SermonPublish.self, .init(id: sermonId, parts: parts, slug: slug))
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
