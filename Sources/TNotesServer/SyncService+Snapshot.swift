import TNotesCore

/// Where a snapshot stands between its pages: the server database it was taken from, the user's log
/// position when it began, and the last record key sent. Text `<epoch>.<seq>.<collection>.<id>`, opaque to
/// clients (epochs are UUIDs and collections plain words, so the first three dots split it; an id may hold
/// more).
struct SnapshotPosition: Equatable {
    let epoch: String
    let seq: Int64
    let last: RecordKey

    init(epoch: String, seq: Int64, last: RecordKey) {
        self.epoch = epoch
        self.seq = seq
        self.last = last
    }

    init?(_ text: String) {
        // Split as bytes: as Characters, a dot followed by a combining mark or an emoji modifier is one
        // grapheme, not a dot (schemathesis found it), and the position would not split where it was joined.
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 4, !parts[0].isEmpty, let seq = Int64(parts[1]), seq >= 0,
              let collection = RecordCollection(rawValue: parts[2]), !parts[3].isEmpty
        else { return nil }
        self.init(epoch: parts[0], seq: seq, last: RecordKey(collection, parts[3]))
    }

    var text: String { "\(epoch).\(seq).\(last.collection.rawValue).\(last.id)" }
}

extension SyncService {
    /// One page of a snapshot: the user's records as they are now (live ones; tombstones too when asked),
    /// in key order, each as the change that made its current version. A device that has never pulled
    /// takes this instead of the whole change log: one change per record, not one per version ever made.
    ///
    /// `cursor` is the log position read before the first page, the same in every page of one snapshot.
    /// Every change up to it is in the records the pages read (they are read later, and a record only
    /// moves forward), so after the last page a device pulls the log from `cursor` on: the changes made
    /// while it paged. A record changed meanwhile may come twice (in a page and in the log); the second
    /// copy is the same version or a newer one, which the device's merge rule settles as usual.
    ///
    /// `after` is a page's `after`; one from a replaced server database (another epoch) starts over.
    func snapshot(user: Int64, after: String?, limit: Int, tombstones: Bool) async throws -> JSON {
        let epoch = try await storage.epoch()
        var position: SnapshotPosition?
        if let after, !after.isEmpty {
            guard let p = SnapshotPosition(after) else {
                throw APIError.badRequest("after", "is not a snapshot position this server issued")
            }
            if p.epoch == epoch { position = p }
        }
        let seq: Int64
        if let position { seq = position.seq } else { seq = try await storage.lastSeq(user: user) }
        let (page, hasMore) = Self.page(try await storage.records(user: user, after: position?.last, limit: limit + 1,
                                                                  tombstones: tombstones), limit: limit)
        var answer: JSONObject = [
            "changes": .array(page.map(\.wireText)), "cursor": .string("\(epoch).\(seq)"), "hasMore": .bool(hasMore),
            "serverEpoch": .string(epoch),
        ]
        if hasMore, let last = page.last {
            answer["after"] = .string(SnapshotPosition(epoch: epoch, seq: seq, last: RecordKey(last.collection, last.id)).text)
        }
        return .object(answer)
    }
}
