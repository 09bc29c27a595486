import TNotesCore
import TNotesSQLite

/// One version a device held before another replaced it.
public struct HistoryEntry: Sendable, Equatable {
    public let collection: RecordCollection
    public let id: String
    public let updatedAt: String
    public let deviceId: String
    public let record: JSONObject
    public let replacedAt: String
    public let reason: HistoryReason

    /// The version as `history.list` answers it.
    public var version: HistoryVersion {
        var v = HistoryVersion()
        v.updatedAt = updatedAt
        v.deviceId = deviceId
        v.record = record
        v.replacedAt = replacedAt
        v.reason = reason.rawValue
        return v
    }
}

extension StoreSession {
    /// The versions of one record this device held, newest first.
    public func history(_ collection: RecordCollection, id: String, limit: Int) throws -> [HistoryEntry] {
        try db.query("""
            SELECT updated_at, device_id, body, replaced_at, reason FROM history
            WHERE collection = ? AND id = ? ORDER BY seq DESC LIMIT ?
            """, [.text(collection.rawValue), .text(id), .int(Int64(limit))]).map { row in
            guard let text = row[2].string, case .object(let body) = try JSON.parse(text) else {
                throw StoreError.corruptRow("history body of \(collection.rawValue) \(id) is not an object")
            }
            return HistoryEntry(collection: collection, id: id, updatedAt: row[0].string ?? "", deviceId: row[1].string ?? "",
                                record: body, replacedAt: row[3].string ?? "",
                                reason: HistoryReason(rawValue: row[4].string ?? "") ?? .edit)
        }
    }

    /// One held version, by its version.
    public func historyVersion(_ collection: RecordCollection, id: String, version: RecordVersion) throws -> JSONObject? {
        guard let text = try db.scalar("""
            SELECT body FROM history WHERE collection = ? AND id = ? AND updated_at = ? AND device_id = ?
            ORDER BY seq DESC LIMIT 1
            """, [.text(collection.rawValue), .text(id), .text(version.updatedAt), .text(version.deviceId)]).string
        else { return nil }
        guard case .object(let body) = try JSON.parse(text) else {
            throw StoreError.corruptRow("history body of \(collection.rawValue) \(id) is not an object")
        }
        return body
    }

    public func hasHistory(before cutoff: String) throws -> Bool {
        try db.query("SELECT 1 FROM history WHERE replaced_at < ? LIMIT 1", [.text(cutoff)]).first != nil
    }

    /// Drops history older than `cutoff` (an RFC 3339 time); how many versions went.
    @discardableResult
    public func pruneHistory(before cutoff: String) throws -> Int {
        try db.run("DELETE FROM history WHERE replaced_at < ?", [.text(cutoff)])
        return db.changes
    }
}
