import ArgumentParser
import TNotesCLIRender
import TNotesClient
import TNotesCore

/// The collections a record id may belong to, in the order the CLI looks for its history.
enum HistoryLookup {
    static let collections: [RecordCollection] = [.sermons, .notes, .transcripts, .summaries]

    /// The record's collection and its held versions, newest first (nil when this device holds none).
    static func find(_ session: Session, id: String) throws -> (collection: String, items: [JSON])? {
        for c in collections {
            let result = try session.call(HistoryList.self, .init(collection: c, id: id, limit: 1000))
            let items = LenientRecord<HistoryList.Result>(result).json(at: \.items)?.arrayValue ?? []
            if !items.isEmpty { return (c.rawValue, items) }
        }
        return nil
    }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Every earlier version of a record this device held, newest first.",
        discussion: """
            Lists the versions that an edit, a delete, a pulled version, a server merge or a restore replaced,
            with when and why. Bring one back with `tnotes restore ID --at UPDATED_AT`.

            Example:
              tnotes history $NOTE
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A sermon's, note's, transcript's or summary's id.", valueName: "id"), transform: Values.id)
    var id: String

    func run() throws {
        let session = Session(global)
        let found = try HistoryLookup.find(session, id: id)
        if session.json {
            Output.line(JSON.object(["collection": found.map { .string($0.collection) } ?? .null,
                                     "items": .array(found?.items ?? [])]).text)
            return
        }
        Output.line(Render.history(id: id, found: found))
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring back an earlier version of a record, as a new edit that syncs.",
        discussion: """
            UPDATED_AT is a version's time as `tnotes history ID` shows it.

            Example:
              tnotes restore $NOTE --at 2025-11-09T10:12:00.000Z
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The record's id.", valueName: "id"), transform: Values.id) var id: String
    @Option(name: .long, help: ArgumentHelp("The version's updatedAt, from `tnotes history`.", valueName: "updated-at"))
    var at: String

    func run() throws {
        let session = Session(global)
        guard let found = try HistoryLookup.find(session, id: id),
              let collection = RecordCollection(rawValue: found.collection),
              let item = found.items.lazy.map({ LenientRecord<HistoryVersion>($0) }).first(where: { $0.updatedAt == at }),
              let deviceId = item.deviceId
        else { throw Failure.notFound("no version of \(id) at \(at) in this device's history (see `tnotes history \(id)`)") }
        try session.run(HistoryRestore.self, .init(collection: collection, id: id, updatedAt: at, deviceId: deviceId)) { r in
            "restored \(found.collection.dropLast()) \(id) to its version of \(at) (now \(LenientRecord<RecordGist>(r).updatedAt ?? "?"))"
        }
    }
}
