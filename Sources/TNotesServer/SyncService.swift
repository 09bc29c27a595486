import Logging
import TNotesCore

/// The sync rules, the same on every backend: push merges each change by `(updatedAt, deviceId)` with
/// op-id idempotency; pull reads the user's change log by sequence.
public struct SyncService: Sendable {
    public let storage: any ServerStorage
    let clock: ServerClock
    let logger: Logger

    public static let defaultPullLimit = 500
    public static let maxPullLimit = 5000

    init(storage: any ServerStorage, clock: ServerClock, logger: Logger) {
        self.storage = storage
        self.clock = clock
        self.logger = logger
    }

    public struct PushResult: Sendable {
        public let opId: String
        public let status: String
        public let error: String?
        /// Why a `rejected` change was refused, when a client can act on it: `quota` (contract §8.6).
        public var reason: String? = nil
        /// For `merged`: the record as stored, and its version.
        public var record: JSONObject? = nil
        public var version: RecordVersion? = nil

        var json: JSON {
            var o: JSONObject = ["opId": .string(opId), "status": .string(status)]
            if let error { o["error"] = .string(error) }
            if let reason { o["reason"] = .string(reason) }
            if let record { o["record"] = .object(record) }
            if let version {
                o["updatedAt"] = .string(version.updatedAt)
                o["deviceId"] = .string(version.deviceId)
            }
            return .object(o)
        }

        /// `json`'s canonical text, written without building it (keys in sorted order). A dictionary per
        /// result, built and sorted to be written, was about 3 % of the server's CPU over a push (`perf`).
        func write(to out: inout [UInt8]) {
            var first = true
            func key(_ name: StaticString) {
                out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
                first = false
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                out.append(contentsOf: "\":".utf8)
            }
            if let version { key("deviceId"); JSON.writeString(version.deviceId, to: &out) }
            if let error { key("error"); JSON.writeString(error, to: &out) }
            key("opId"); JSON.writeString(opId, to: &out)
            if let reason { key("reason"); JSON.writeString(reason, to: &out) }
            if let record { key("record"); JSON.object(record).write(to: &out) }
            key("status"); JSON.writeString(status, to: &out)
            if let version { key("updatedAt"); JSON.writeString(version.updatedAt, to: &out) }
            out.append(UInt8(ascii: "}"))
        }

        /// The results array as canonical text, to splice into a reply (`JSON.raw`).
        static func text(of results: [PushResult]) -> JSON {
            var out = [UInt8]()
            out.reserveCapacity(results.count * 64 + 2)
            out.append(UInt8(ascii: "["))
            for (i, r) in results.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                r.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
            return .raw(String(decoding: out, as: UTF8.self))
        }
    }

    /// What a push did: each change's verdict, and the user's sequence numbers just before and just after
    /// the batch. Both are read inside the batch's transaction, so every seq in between belongs to this push.
    struct PushOutcome: Sendable {
        let results: [PushResult]
        let seqBefore: Int64
        let seqAfter: Int64
    }

    /// Applies a batch. Each change is decided on its own: an invalid one is `rejected` with the reason
    /// and the others still apply. The whole batch commits in one transaction.
    func push(user: Int64, request: PushRequest) async throws -> PushOutcome {
        let parsed = request.items.map { item -> (opId: String, change: Result<Change, FieldError>) in
            if case .success(let c) = item.change, let why = ServerClock.refusal(c.updatedAt) {
                return (item.opId, .failure(FieldError(field: "updatedAt", reason: why)))
            }
            return (item.opId, item.change)
        }
        for case .success(let c) in parsed.map(\.change) { clock.receive(c.updatedAt) }
        // The bounds of values (contract §8.1) on what a change makes new. A change whose record fails them is
        // decided under the lock against the stored version (`boundRefusals`): a value stored before the
        // bounds may be pushed again unchanged. Rare, so the usual batch takes no extra look-up.
        let outOfBounds = parsed.indices.filter { k in
            guard case .success(let c) = parsed[k].change, c.op == .upsert else { return false }
            do { try ValueBounds.check(c.collection, c.record) } catch { return true }
            return false
        }
        let batch = parsed
        // Each body's canonical text, made here rather than inside the transaction: the backend's lock is
        // held for less, and a second push of the device does this beside the first one's transaction.
        let texts = zip(parsed, request.items).map { item, given -> String? in
            if case .success(let c) = item.change { return given.recordText ?? JSON.object(c.record).text } else { return nil }
        }
        // The batch's look-ups, merge plan and write, made before the user's lock is taken (while the
        // device's batch before this one holds it) and applied on their own if the look-ups still hold then.
        // Not for a batch with publications: their public ids are checked under the lock, and may drop changes.
        let (valid, bodies) = Self.mergeable(parsed, texts)
        // A user with a record quota is counted under the lock (`overQuota`), so never takes the fast path.
        let recordQuota = try await storage.quota(user: user).records
        if outOfBounds.isEmpty, recordQuota == nil, !valid.contains(where: { $0.collection == .publications }),
           let prepared = await storage.prepareBatch(user: user, changes: valid, bodies: bodies),
           let applied = try await storage.applyPrepared(prepared)
        {
            return try PushOutcome(results: Self.results(batch, applied.verdicts), seqBefore: applied.seqBefore,
                                   seqAfter: applied.seqAfter)
        }
        return try await storage.transaction(user: user) { tx in
            let before = tx.seq
            // A public id belongs to the publication that first took it: another user's (or another
            // record's) change naming it is refused as if the page did not exist (contract §6.5).
            var batch = batch
            var refused = false
            for k in outOfBounds {
                guard case .success(let c) = batch[k].change else { continue }
                let previous = try await tx.current(c.collection, id: c.id)?.body
                do throws(FieldError) { try ValueBounds.check(c.collection, c.record, previous: previous) } catch {
                    batch[k].change = .failure(error.under("record"))
                    refused = true
                }
            }
            for (k, item) in batch.enumerated() {
                guard case .success(let c) = item.change, c.collection == .publications,
                      let publicId = c.record["publicId"]?.stringValue,
                      let owner = try await tx.publicIdOwner(publicId), owner.user != user || owner.recordId != c.id
                else { continue }
                batch[k].change = .failure(FieldError(field: "record.publicId", reason: "no publication \(publicId) of this user"))
                refused = true
            }
            if let limit = recordQuota, try await Self.overQuota(&batch, limit: limit, tx) { refused = true }
            let (valid, bodies) = refused ? Self.mergeable(batch, texts) : (valid, bodies)
            let verdicts = try await tx.mergeBatch(valid, bodies: bodies)
            return try PushOutcome(results: Self.results(batch, verdicts), seqBefore: before, seqAfter: tx.seq)
        }
    }

    static let quotaReason = "quota"

    /// Refuses, in batch order, each change that would take the user past `limit` live records (contract §8.6):
    /// one that makes a record live (new, or over a tombstone) while the count is at the limit. A delete in the
    /// same batch frees no place yet: whether it applies is the merge's to decide (a stale delete is superseded,
    /// and counting it let a batch of stale deletes carry as many new records past the quota). The device pushes
    /// a refused change again on its next sync, when the deletion has been counted. True when it refused any.
    static func overQuota(_ batch: inout [(opId: String, change: Result<Change, FieldError>)], limit: Int64,
                          _ tx: any ServerTransaction) async throws -> Bool {
        var live = try await tx.liveRecords()
        var refused = false
        var seen = [RecordKey: Bool]()
        for (k, item) in batch.enumerated() {
            guard case .success(let c) = item.change else { continue }
            let key = RecordKey(c.collection, c.id)
            let wasLive: Bool
            if let known = seen[key] { wasLive = known } else {
                let stored = try await tx.current(c.collection, id: c.id)
                wasLive = stored.map { $0.body.deletedAt == nil } ?? false
            }
            let becomesLive = c.op == .upsert && c.record.deletedAt == nil
            if becomesLive && !wasLive {
                if live >= limit {
                    batch[k].change = .failure(FieldError(field: "record", reason: "\(quotaReason): the account's limit of \(limit) records is reached"))
                    refused = true
                    continue
                }
                live += 1
            }
            seen[key] = becomesLive
        }
        return refused
    }

    /// Each change's result, in order: `rejected` for an invalid one, else its verdict (one per valid change).
    static func results(_ batch: [(opId: String, change: Result<Change, FieldError>)], _ verdicts: [MergeVerdict]) throws
        -> [PushResult]
    {
        let valid = batch.reduce(0) { n, item in if case .success = item.change { n + 1 } else { n } }
        guard verdicts.count == valid else { throw ServerError.storage("merge returned \(verdicts.count) verdicts for \(valid) changes") }
        var results = [PushResult]()
        results.reserveCapacity(batch.count)
        var next = 0
        for (opId, change) in batch {
            switch change {
            case .failure(let e):
                var result = PushResult(opId: opId, status: "rejected", error: "\(e.field): \(e.reason)")
                if e.reason.hasPrefix(Self.quotaReason + ":") { result.reason = Self.quotaReason }
                results.append(result)
            case .success:
                let v = verdicts[next]
                results.append(PushResult(opId: opId, status: v.status, error: nil, record: v.record, version: v.version))
                next += 1
            }
        }
        return results
    }

    /// The changes of a batch that go to the merge (the valid ones), with their canonical texts.
    static func mergeable(_ batch: [(opId: String, change: Result<Change, FieldError>)], _ texts: [String?]) -> ([Change], [String]) {
        var valid = [Change](), bodies = [String]()
        valid.reserveCapacity(batch.count)
        bodies.reserveCapacity(batch.count)
        for (item, text) in zip(batch, texts) {
            if case .success(let c) = item.change, let text {
                valid.append(c)
                bodies.append(text)
            }
        }
        return (valid, bodies)
    }

    /// The one merge step: "duplicate" for an op id seen before; a three-way merge when the change was
    /// made on a version other than the stored one (contract §6.3); else the plain rule's verdict.
    static func merge(_ change: Change, in tx: any ServerTransaction) async throws -> MergeVerdict {
        if try await tx.opResult(change.opId) != nil { return MergeVerdict("duplicate") }
        let existing = try await tx.current(change.collection, id: change.id)
        if let base = change.base, let existing, !change.collection.isAppendOnly, change.collection != .conflicts,
           existing.version != base, existing.version != change.version,
           let baseBody = try await tx.versionBody(change.collection, id: change.id, version: base)
        {
            return try await threeWay(change, base: baseBody, existing: existing, in: tx)
        }
        let outcome = MergeRule.decide(existing: existing?.version, incoming: change.version,
                                       appendOnly: change.collection.isAppendOnly)
        if outcome == .applied { _ = try await tx.write(change) }
        try await tx.recordOp(change.opId, result: outcome.rawValue)
        return MergeVerdict(outcome.rawValue)
    }

    /// Two devices changed the record from one base: store the merge of both as a new version greater
    /// than either (every device adopts it), keep the pushed version (an edit made on it finds its base),
    /// and make a `conflicts` record for each passage both changed.
    static func threeWay(_ change: Change, base: JSONObject, existing: (version: RecordVersion, body: JSONObject),
                         in tx: any ServerTransaction) async throws -> MergeVerdict {
        let version = RecordMerge.mergedVersion(current: existing.version, incoming: change.version)
        let outcome = RecordMerge.merge(change.collection, base: base, current: existing.body, currentVersion: existing.version,
                                        incoming: change.record, incomingVersion: change.version, updatedAt: version.updatedAt)
        let merged = Change(opId: change.opId, collection: change.collection, id: change.id,
                            op: outcome.record.deletedAt == nil ? .upsert : .delete, updatedAt: version.updatedAt,
                            deviceId: version.deviceId, record: outcome.record)
        try await tx.keepMergedInput(change)
        _ = try await tx.write(merged)
        for c in outcome.conflicts {
            let sermonId = change.collection == .sermons ? change.id : (outcome.record.sermonId ?? change.id)
            let record: JSONObject = [
                "id": .string(Identifier.make()), "collection": .string(change.collection.rawValue), "recordId": .string(change.id),
                "sermonId": .string(sermonId), "field": .string(c.field), "base": .string(c.base), "local": .string(c.local),
                "remote": .string(c.remote), "merged": .string(c.merged), "state": "open", "createdAt": .string(version.updatedAt),
                "resolvedAt": .null, "updatedAt": .string(version.updatedAt), "deletedAt": .null,
            ]
            _ = try await tx.write(Change(opId: "server:" + Identifier.make(), collection: .conflicts, id: record.recordId,
                                          op: .upsert, updatedAt: version.updatedAt, deviceId: version.deviceId, record: record))
        }
        try await tx.recordOp(change.opId, result: "merged")
        return MergeVerdict("merged", record: outcome.record, version: version)
    }

    /// Server-made versions (legacy endpoints): stamped by the server clock, merged like any other.
    func writeServerVersions(user: Int64, in tx: any ServerTransaction, _ items: [(RecordCollection, JSONObject, Change.Op)])
        async throws
    {
        for (collection, record, op) in items {
            let change = Change(opId: "server:" + Identifier.make(), collection: collection, id: record.recordId, op: op,
                                updatedAt: record.updatedAt, deviceId: LegacyAPI.deviceId, record: record)
            _ = try await Self.merge(change, in: tx)  // no base: the plain rule
        }
    }

    func stamp() -> String { clock.tick() }

    /// Longest `wait` of a long-poll pull, in seconds (contract §6.4).
    public static let maxPullWait = 60

    /// A pull that, with nothing after the cursor, waits up to `wait` for a change of this user to commit
    /// (on this instance, or on another one through PostgreSQL's NOTIFY) and then reads again.
    func pull(user: Int64, cursor: String?, limit: Int, wait: Duration) async throws -> JSON {
        guard wait > .zero else { return try await pull(user: user, cursor: cursor, limit: limit) }
        let signals = storage.changeSignals
        let mark = signals.mark(user: user)  // before the read: a commit after it moves the mark
        let first = try await pull(user: user, cursor: cursor, limit: limit)
        guard first["changes"]?.arrayValue?.isEmpty ?? false else { return first }
        await signals.wait(user: user, since: mark, timeout: wait)
        return try await pull(user: user, cursor: cursor, limit: limit)
    }

    /// The cursor is `<epoch>.<seq>`; a cursor of another epoch (a replaced server database) starts over.
    func pull(user: Int64, cursor: String?, limit: Int) async throws -> JSON {
        let epoch = try await storage.epoch()
        var after: Int64 = 0
        if let cursor, !cursor.isEmpty {
            let parts = cursor.split(separator: ".", maxSplits: 1)
            if parts.count == 2, parts[0] == epoch, let s = Int64(parts[1]), s >= 0 { after = s }
            else if parts.count != 2 || Int64(parts[1]) == nil { throw APIError.badRequest("cursor", "is not a cursor this server issued") }
        }
        let (page, hasMore) = Self.page(try await storage.changes(user: user, after: after, limit: limit + 1), limit: limit)
        let last = page.last?.seq ?? after
        return [
            "changes": .array(page.map(\.wireText)), "cursor": .string("\(epoch).\(last)"), "hasMore": .bool(hasMore),
            "serverEpoch": .string(epoch),
        ]
    }

    /// A page out of `limit + 1` rows read: the first `limit`, and whether there was one more.
    static func page(_ rows: [LoggedChange], limit: Int) -> (ArraySlice<LoggedChange>, hasMore: Bool) {
        (rows.prefix(limit), rows.count > limit)
    }

    /// The cursors just before and just after a push's changes (one epoch read for both).
    func cursors(around outcome: PushOutcome) async throws -> (previous: String, next: String, epoch: String) {
        let epoch = try await storage.epoch()
        return ("\(epoch).\(outcome.seqBefore)", "\(epoch).\(outcome.seqAfter)", epoch)
    }
}
