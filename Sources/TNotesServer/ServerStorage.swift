import ServiceLifecycle
import TNotesCore

/// One change as the server keeps it in a user's change log; `seq` is assigned at commit.
public struct LoggedChange: Sendable, Equatable {
    public let seq: Int64
    public let collection: RecordCollection
    public let id: String
    public let op: Change.Op
    public let updatedAt: String
    public let deviceId: String
    /// The record as stored: `.object`, or `.raw` canonical text from a backend that keeps exactly that
    /// (SQLite), which a pull then sends on without parsing it.
    public let record: JSON

    public var json: JSON {
        [
            "seq": .int(seq), "collection": .string(collection.rawValue), "id": .string(id), "op": .string(op.rawValue),
            "updatedAt": .string(updatedAt), "deviceId": .string(deviceId), "record": record,
        ]
    }

    /// `json`'s canonical text as a value to splice into a page (`JSON.raw`), written without building the
    /// object (keys in sorted order). Building a dictionary per change was 7 % of the server's CPU over a 1×
    /// PostgreSQL pull (`perf`), and sorting it to write it more: written directly, the server's CPU over that
    /// pull fell by 12 % (three interleaved pairs).
    public var wireText: JSON {
        var out = [UInt8]()
        out.reserveCapacity(160)
        out.append(contentsOf: #"{"collection":"#.utf8)
        JSON.writeString(collection.rawValue, to: &out)
        out.append(contentsOf: #","deviceId":"#.utf8)
        JSON.writeString(deviceId, to: &out)
        out.append(contentsOf: #","id":"#.utf8)
        JSON.writeString(id, to: &out)
        out.append(contentsOf: #","op":"#.utf8)
        JSON.writeString(op.rawValue, to: &out)
        out.append(contentsOf: #","record":"#.utf8)
        record.write(to: &out)
        out.append(contentsOf: #","seq":"#.utf8)
        JSON.int(seq).write(to: &out)
        out.append(contentsOf: #","updatedAt":"#.utf8)
        JSON.writeString(updatedAt, to: &out)
        out.append(UInt8(ascii: "}"))
        return .raw(String(decoding: out, as: UTF8.self))
    }
}

/// A record's key, the order of a snapshot's pages, and what a push batch's look-ups are made by.
public struct RecordKey: Sendable, Hashable {
    public let collection: RecordCollection
    public let id: String

    public init(_ collection: RecordCollection, _ id: String) {
        self.collection = collection
        self.id = id
    }

    /// The id alone (equal keys have equal ids): the collection's synthesized hash would hash its raw name too.
    /// Keyed by `collection + "/" + id` strings, a push batch's look-ups allocated a string per change.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// A stored publication record, for its public page.
public struct PublishedRecord: Sendable, Equatable {
    public let user: Int64
    public let body: JSONObject
    public let updatedAt: String
}

/// What the server knows of one stored audio blob.
public struct AudioBlobInfo: Sendable, Equatable {
    public let sermonId: String
    public let sha256: String
    public let sizeBytes: Int64
    public let updatedAt: String
    /// Where the bytes are, for a store that names blobs (PostgreSQL's chunks); nil for files on disk.
    public let blobId: String?

    public init(sermonId: String, sha256: String, sizeBytes: Int64, updatedAt: String, blobId: String? = nil) {
        self.sermonId = sermonId
        self.sha256 = sha256
        self.sizeBytes = sizeBytes
        self.updatedAt = updatedAt
        self.blobId = blobId
    }
}

/// The server's storage, one protocol with two real backends (SQLite, PostgreSQL). Merge decisions are
/// not made here: `SyncService` makes them, inside `transaction`, the same way on both backends.
public protocol ServerStorage: UserDirectory {
    var backendName: String { get }
    /// A long-running part the storage needs while it is used (see `StorageLifetime`); nil when none.
    var connectionService: (any Service)? { get }
    /// Wakes long-poll pulls when a user's log grows (bumped after each commit that appended to it).
    var changeSignals: ChangeSignals { get }
    /// A service that hears other instances' commits (PostgreSQL's LISTEN); nil when there are none.
    var changeListener: (any Service)? { get }

    /// Creates or upgrades the schema (versioned, each step in a transaction).
    func migrate() async throws
    /// A random id made when the database was created; a cursor from another epoch means "start over".
    func epoch() async throws -> String
    func close() async

    /// Runs `body` in one transaction in which this user's writes are serialized: sequence numbers taken
    /// in it are committed in order, so a pull never sees seq N+1 before seq N.
    func transaction<T: Sendable>(user: Int64, _ body: @Sendable (any ServerTransaction) async throws -> T) async throws -> T

    /// The user's change log after `seq`, in order, at most `limit` entries.
    func changes(user: Int64, after seq: Int64, limit: Int) async throws -> [LoggedChange]
    /// The user's last committed sequence number (0 before the first change).
    func lastSeq(user: Int64) async throws -> Int64
    /// The user's records as they are now, in key order after `after` (nil: from the first), at most
    /// `limit`: each as the change that made its current version (`seq` and all). Tombstones only when
    /// asked for. One page of a snapshot (`SyncService.snapshot`).
    func records(user: Int64, after: RecordKey?, limit: Int, tombstones: Bool) async throws -> [LoggedChange]
    /// Live records of one collection (legacy get-sermons).
    func records(user: Int64, collection: RecordCollection) async throws -> [JSONObject]
    /// The greatest updatedAt stored (for the server clock at start).
    func newestUpdatedAt() async throws -> String?

    /// The publication record with this public id, whoever owns it (a public page is read without a token).
    func publication(publicId: String) async throws -> PublishedRecord?

    func audio(user: Int64, sermonId: String) async throws -> AudioBlobInfo?
    /// Every audio blob of the user, by sermon id (a feed lists them in one read).
    func audio(user: Int64) async throws -> [String: AudioBlobInfo]
    /// Where this backend keeps audio bytes: files under `directory`, or the database itself.
    func audioBlobs(directory: String) -> any AudioBlobStore
    func setAudio(user: Int64, _ info: AudioBlobInfo) async throws

    /// Work on a push batch a backend can do before taking the user's lock: its look-up and plan, for
    /// `applyPrepared` (nil: none; the default).
    func prepareBatch(user: Int64, changes: [Change], bodies: [String]) async -> (any Sendable)?
    /// Applies what `prepareBatch` made, committed on its own, if its look-up still holds under the user's
    /// lock. Nil when it does not: nothing was kept, and the caller merges the batch in `transaction`.
    func applyPrepared(_ prepared: any Sendable) async throws -> AppliedBatch?
}

/// A batch `ServerStorage.applyPrepared` applied: each change's verdict, and the user's seq just before and
/// just after it (every seq in between is this batch's).
public struct AppliedBatch: Sendable {
    public let verdicts: [MergeVerdict]
    public let seqBefore: Int64
    public let seqAfter: Int64
}

/// What a push or legacy write may do inside its transaction.
public protocol ServerTransaction: Sendable {
    /// The user's last sequence number as of now in this transaction (it grows with each `write`).
    var seq: Int64 { get }
    /// The result an op id got when it was first processed, if it was.
    func opResult(_ opId: String) async throws -> String?
    func recordOp(_ opId: String, result: String) async throws
    /// The stored version and body of a record, tombstones included.
    func current(_ collection: RecordCollection, id: String) async throws -> (version: RecordVersion, body: JSONObject)?
    /// All records of a collection that belong to a sermon, tombstones included.
    func children(_ collection: RecordCollection, sermonId: String) async throws -> [(version: RecordVersion, body: JSONObject)]
    /// Stores the change as the record's current version and appends it to the log; returns its seq.
    func write(_ change: Change) async throws -> Int64
    /// The body of one version of a record this user's log (or a merge's inputs) holds: a merge's base.
    func versionBody(_ collection: RecordCollection, id: String, version: RecordVersion) async throws -> JSONObject?
    /// Keeps a pushed version that was merged rather than stored, so that an edit made on it can find it
    /// as its base.
    func keepMergedInput(_ change: Change) async throws
    /// Who holds a public id: the owning user and the publication's record id, nil when nobody does.
    func publicIdOwner(_ publicId: String) async throws -> (user: Int64, recordId: String)?
    /// Merges `changes` in order, exactly as `SyncService.merge` would one at a time (later changes see
    /// what earlier ones in the batch did); returns each one's verdict. `bodies[i]` is the canonical text of
    /// `changes[i].record`, made before the transaction (outside the backend's lock). Both backends look
    /// the batch up in two set-based statements (`BatchMergePlan`) instead of two per change.
    func mergeBatch(_ changes: [Change], bodies: [String]) async throws -> [MergeVerdict]
    /// The user's live records now, in this transaction (a quota's count).
    func liveRecords() async throws -> Int64
}

extension ServerStorage {
    public func prepareBatch(user: Int64, changes: [Change], bodies: [String]) async -> (any Sendable)? { nil }
    public func applyPrepared(_ prepared: any Sendable) async throws -> AppliedBatch? { nil }
}

/// What a push did with one change: `applied`, `duplicate`, `superseded`, or `merged` with the record as
/// stored (a new version, greater than both sides).
public struct MergeVerdict: Sendable, Equatable {
    public let status: String
    public let record: JSONObject?
    public let version: RecordVersion?

    public init(_ status: String, record: JSONObject? = nil, version: RecordVersion? = nil) {
        self.status = status
        self.record = record
        self.version = version
    }
}

extension ServerTransaction {
    /// One change at a time, each seeing what the ones before it did.
    public func mergeEach(_ changes: [Change]) async throws -> [MergeVerdict] {
        var out = [MergeVerdict]()
        out.reserveCapacity(changes.count)
        for change in changes { out.append(try await SyncService.merge(change, in: self)) }
        return out
    }
}
