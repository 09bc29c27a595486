import TNotesCore
import TNotesSQLite

/// The server reset guard (contract §6.3): what the store does when the server's database was replaced,
/// and what it tells the engine before a pull deletes much.
extension StoreSession {
    /// The server epoch this device last synced with (nil before the first answer that carried one).
    public func serverEpoch() throws -> String? { try meta("serverEpoch") }
    public func setServerEpoch(_ epoch: String) throws { try setMeta("serverEpoch", epoch) }

    /// Forgets where pulls stood: the cursor, and a first sync's snapshot under way.
    public func clearPullCursor() throws {
        try db.run("DELETE FROM sync_cursor WHERE id = 1")
        try clearSnapshotProgress()
    }

    /// Queues every record this device holds (tombstones too, so a replaced server cannot bring back what
    /// was deleted) as a change of its current version, with a new op id. Nothing is deleted or changed
    /// locally; the server, empty or not, merges each by its version. Returns how many were queued.
    @discardableResult
    public func requeueAllRecords() throws -> Int {
        var queued = 0
        for row in try db.query("SELECT collection, id, updated_at, device_id, deleted_at, body FROM records ORDER BY collection, id") {
            guard let name = row[0].string, let collection = RecordCollection(rawValue: name), let id = row[1].string,
                  let text = row[5].string, case .object(let body) = try JSON.parse(text) else {
                throw StoreError.corruptRow("a record cannot be queued again")
            }
            let op: Change.Op = row[4].string == nil ? .upsert : .delete
            let change = Change(opId: Identifier.make(), collection: collection, id: id, op: op,
                                updatedAt: row[2].string ?? "", deviceId: row[3].string ?? "", record: body)
            let seq = try queue(change, recordText: text)
            try db.run("UPDATE records SET queued_seq = ? WHERE collection = ? AND id = ?", [seq, .text(name), .text(id)])
            queued += 1
        }
        try db.run("UPDATE records SET sync_state = 'pending' WHERE sync_state = 'synced'")
        return queued
    }

    /// How many of these (collection, id) pairs are live records here: what a pulled page of deletes
    /// would tombstone.
    public func liveCount(among keys: [(RecordCollection, String)]) throws -> Int {
        var n = 0
        for (collection, id) in keys {
            if try db.query("SELECT 1 FROM records WHERE collection = ? AND id = ? AND deleted_at IS NULL",
                            [.text(collection.rawValue), .text(id)]).first != nil { n += 1 }
        }
        return n
    }

    /// Live records of every collection.
    public func liveCount() throws -> Int {
        try db.scalar("SELECT count(*) FROM records WHERE deleted_at IS NULL").int.map(Int.init) ?? 0
    }
}
