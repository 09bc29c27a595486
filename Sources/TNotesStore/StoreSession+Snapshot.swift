import TNotesCore
import TNotesSQLite

/// A first sync by snapshot (the server's `/v1/sync/snapshot`): where it stands between its pages, so that
/// an interrupted one goes on from its last applied page instead of starting over. Kept in `meta`, written
/// in the transaction of the page it follows.
extension StoreSession {
    public struct SnapshotProgress: Sendable, Equatable {
        /// The server's position after the last applied page.
        public let after: String
        /// Whether the snapshot asked for tombstones (decided once, when it began).
        public let tombstones: Bool

        public init(after: String, tombstones: Bool) {
            self.after = after
            self.tombstones = tombstones
        }
    }

    public func snapshotProgress() throws -> SnapshotProgress? {
        guard let text = try meta("snapshotProgress"), let json = try? JSON.parse(text),
              let after = json["after"]?.stringValue else { return nil }
        return SnapshotProgress(after: after, tombstones: json["tombstones"]?.boolValue ?? true)
    }

    public func setSnapshotProgress(_ progress: SnapshotProgress) throws {
        try setMeta("snapshotProgress", JSON.object(["after": .string(progress.after), "tombstones": .bool(progress.tombstones)]).text)
    }

    public func clearSnapshotProgress() throws {
        try db.run("DELETE FROM meta WHERE key = 'snapshotProgress'")
    }

    /// Whether any record is stored here, tombstones included: a device that holds records of its own asks a
    /// snapshot for tombstones too, or it would keep a record the server has deleted.
    public func holdsRecords() throws -> Bool {
        try db.query("SELECT 1 FROM records LIMIT 1").first != nil
    }
}
