/// The five synced collections, by their wire names.
public enum RecordCollection: String, Sendable, CaseIterable, Hashable {
    case sermons, notes, transcripts, summaries, chatMessages
    /// Concurrent edits of the same words (contract §6.3): made by the server's merge, resolved on a device.
    case conflicts
    /// A sermon's public page (contract §6.5): the snapshot of what was published, or its unpublishing.
    case publications

    /// Children belong to a sermon through `sermonId`.
    public var isChild: Bool { self != .sermons }

    /// Chat messages are append-only: inserted when absent, never changed.
    public var isAppendOnly: Bool { self == .chatMessages }

    public var schema: RecordSchema { RecordSchema.of(self) }
}
