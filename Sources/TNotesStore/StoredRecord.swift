import TNotesCore

public enum SyncState: String, Sendable {
    case pending, synced, error
}

/// A record as the store holds it: the canonical body plus the columns the store keeps beside it.
public struct StoredRecord: Sendable, Equatable {
    public let collection: RecordCollection
    public let body: JSONObject
    public let deviceId: String
    public let syncState: SyncState

    public init(collection: RecordCollection, body: JSONObject, deviceId: String, syncState: SyncState) {
        self.collection = collection
        self.body = body
        self.deviceId = deviceId
        self.syncState = syncState
    }

    public var id: String { body.recordId }
    public var sermonId: String? { body.sermonId }
    public var updatedAt: String { body.updatedAt }
    public var deletedAt: String? { body.deletedAt }
    public var isDeleted: Bool { deletedAt != nil }
    public var version: RecordVersion { RecordVersion(updatedAt: updatedAt, deviceId: deviceId) }
}

/// What a committed write changed, for `record.changed` events and the local-change sync trigger.
public struct RecordChange: Sendable, Equatable {
    public let collection: RecordCollection
    public let id: String
    public let sermonId: String?
    public let op: Change.Op
    public let origin: Origin

    public enum Origin: String, Sendable { case local, remote }
}

/// Why a version left the records table for the history (contract §6.3).
public enum HistoryReason: String, Sendable, CaseIterable {
    /// Replaced by a local edit.
    case edit
    /// Replaced by a version pulled from the server.
    case remote
    /// Replaced by the server's merge of concurrent edits.
    case merge
    /// Replaced by `history.restore`.
    case restore
    /// Replaced by a local delete (its tombstone).
    case delete
}

/// One outbox row as `sync.pending` shows it.
public struct OutboxEntry: Sendable, Equatable {
    public let seq: Int64
    public let opId: String
    public let collection: String
    public let recordId: String
    public let op: String
    public let attempts: Int
    public let lastError: String?
    public let state: String
    public let change: String
}

/// What this device has of a sermon's audio.
public struct AudioFileState: Sendable, Equatable {
    public let sermonId: String
    public let path: String?
    public let sha256: String?
    public let sizeBytes: Int64?
    public let localAvailable: Bool
    public let uploaded: Bool

    public init(sermonId: String, path: String?, sha256: String?, sizeBytes: Int64?, localAvailable: Bool, uploaded: Bool) {
        self.sermonId = sermonId
        self.path = path
        self.sha256 = sha256
        self.sizeBytes = sizeBytes
        self.localAvailable = localAvailable
        self.uploaded = uploaded
    }
}
