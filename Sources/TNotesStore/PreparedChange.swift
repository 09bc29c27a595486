import TNotesCore
import TNotesScripture

/// A change with the work that needs no database already done: its stored body text and its scripture
/// references. The sync engine prepares a pulled page while the page before it is applied, so this work
/// runs beside the store's single writer instead of on it (at 120 k pulled records it was a fifth of the
/// writer's time: the reference parser, the canonical serialization, the search rows).
///
/// Not the search rows: a pull holds the search index, so a new record's rows are derived from its stored
/// body after the last page (`SearchBacklog`), and only a record the pull replaces needs them in its
/// transaction. Built here for every change, they were 3-4 % of the pulling device's CPU in a 1× sync
/// (the rows, and freeing them unused); the writer now builds them for replaced records alone.
///
/// A class: the store's writer hands each one on by reference. As a struct of ten reference-counted fields,
/// the copies into `StoreSession.apply` were a tenth of the pulling writer's samples (a retain and a release
/// of every field, per change).
public final class PreparedChange: Sendable {
    public let change: Change
    let body: String
    let references: [(ScriptureReference, Double?)]
    /// The record's fields the store writes as columns, read here: each is a hashed dictionary look-up.
    let sermonId: String?
    let deletedAt: String?

    /// `body`: the record's canonical text when the caller has it (`Change.init(json:requireOpId:recordText:)`).
    public init(_ change: Change, body: String? = nil) {
        self.change = change
        self.body = body ?? JSON.object(change.record).text
        references = ReferenceIndex.found(change.collection, change.record)
        sermonId = change.record.sermonId
        deletedAt = change.record.deletedAt
    }
}
