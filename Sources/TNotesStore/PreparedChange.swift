import TNotesCore
import TNotesScripture

/// A change with the work that needs no database already done: its stored body text, its search rows and
/// its scripture references. The sync engine prepares a pulled page while the page before it is applied,
/// so this work runs beside the store's single writer instead of on it (at 120 k pulled records it was a
/// fifth of the writer's time: the reference parser, the canonical serialization, the search rows).
public struct PreparedChange: Sendable {
    public let change: Change
    let body: String
    let documents: [SearchIndex.Document]
    let references: [(ScriptureReference, Double?)]

    public init(_ change: Change) {
        self.change = change
        body = JSON.object(change.record).text
        documents = SearchIndex.documents(change.collection, change.record)
        references = ReferenceIndex.found(change.collection, change.record)
    }
}
