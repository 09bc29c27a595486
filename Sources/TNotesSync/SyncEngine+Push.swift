import Logging
import TNotesCore
import TNotesStore

/// The push half of a sync: the outbox in order, in batches, up to `pushesInFlight` out at once.
extension SyncEngine {
    /// Pushes everything queued, settling each batch as it is answered (oldest first), and counts the
    /// verdicts into `report`.
    func pushAll(deviceId: String, batchSize: Int, report: inout SyncReport) async throws {
        // Push: the outbox in order, a batch at a time, each batch settled in one transaction, oldest first.
        // Up to `pushesInFlight` batches are out at once: while the server applies batch N in its
        // transaction, batch N+1 is already there (its JSON parsed beside that transaction), and the device
        // settles the batch before. The server may apply two batches that are out together in either order,
        // so a batch goes out beside another only when no record is in both: each record's changes still
        // reach the server one after another, in the order they were made. A batch sharing a record with
        // the one out waits for that one's answer. A crash with batches out only resends entries the server
        // recognizes by their op ids (answered "duplicate").
        var flights: [(batch: [StoreSession.QueuedChange], keys: Set<String>, task: Task<SyncClient.PushAnswer, any Error>)] = []
        var waiting: [StoreSession.QueuedChange]?  // read, not yet sent
        var lastRead: Int64 = 0  // seqs start at 1
        var drained = false
        // This cycle's pushes as log ranges, previousCursor → cursor, not yet skipped by the pull cursor. Two
        // batches out together may land in the log in either order, so the cursor moves along any chain of
        // them that starts where it stands, not only the range of the batch just settled.
        var ownRanges = [String: String]()
        /// Lets every batch still out finish (none outlives the cycle); their entries stay queued if unanswered.
        func settleNothingMore() async { for f in flights { _ = try? await f.task.value } }
        while true {
            while flights.count < Self.pushesInFlight {
                if waiting == nil {
                    // The outbox looked empty: look again only once every batch out is answered (entries
                    // queued while the last batches were out are picked up then).
                    if drained && !flights.isEmpty { break }
                    let after = lastRead
                    let next = try await store.read { s in try s.queuedChanges(after: after, limit: batchSize) }
                    drained = next.isEmpty
                    guard let last = next.last else { break }
                    lastRead = last.seq
                    waiting = next
                }
                guard let next = waiting else { break }
                if flights.contains(where: { !Self.disjoint($0.keys, next) }) { break }
                flights.append((next, Self.keys(next), push(next, deviceId: deviceId)))
                waiting = nil
            }
            guard !flights.isEmpty else { break }
            let (sent, _, current) = flights.removeFirst()
            let answer: SyncClient.PushAnswer
            do {
                answer = try await current.value
            } catch {
                let message = "\(error)"
                try? await store.write { s in try s.noteAttempt(sent, error: message) }
                await settleNothingMore()
                throw error
            }
            let results = answer.outcomes
            let missing = sent.filter { results[$0.opId] == nil }
            do {
                let epochChanged = try await noteServerEpoch(answer.serverEpoch)
                if epochChanged { ownRanges = [:] }
                // Everything between the two cursors is this batch. A merge also logged records this device
                // does not hold (conflicts): that range is pulled, so no chain passes it.
                let merged = results.values.contains { if case .merged = $0 { return true } else { return false } }
                var known = ownRanges
                if !epochChanged, !merged, let before = answer.previousCursor, let after = answer.cursor { known[before] = after }
                let ranges = known, settled = sent
                ownRanges = try await store.write { s -> [String: String] in
                    try s.settle(settled.compactMap { e in results[e.opId].map { (e, $0) } })
                    guard let cursor = try s.pullCursor() else { return ranges }
                    let (moved, left) = Self.skipOwnRanges(from: cursor, ranges)
                    if let moved { try s.setPullCursor(moved) }
                    return left
                }
            } catch {
                await settleNothingMore()
                throw error
            }
            for e in sent {
                switch results[e.opId] {
                case .applied?, .duplicate?, .merged?: report.pushed += 1
                case .superseded?: report.conflicts += 1
                case .rejected(let why)?:
                    report.rejected += 1
                    logger.warning("change rejected by the server", metadata: ["opId": "\(e.opId)", "reason": "\(why)"])
                case nil: break
                }
            }
            progress.pushed = report.pushed + report.conflicts + report.rejected
            emitProgress()
            if !missing.isEmpty {
                await settleNothingMore()
                throw SyncFailure.malformed("the server gave no result for \(missing.count) change(s)")
            }
        }
    }

    /// Push batches out at once (see `cycle`): while the server applies one, the others are parsed and
    /// (on PostgreSQL) looked up and planned beside it. Four against two, measured in the 1× bench push (120 k
    /// changes): with the user's lock held for the whole of a batch's work, +3 % on a SQLite server and -2 %
    /// on PostgreSQL, inside the runs' spread; since a PostgreSQL batch is planned before its lock is taken
    /// (`ServerStorage.prepareBatch`), 14.5-15.3 ms a batch against 16.3 ms with two.
    static let pushesInFlight = 4

    /// Whether batch `b` touches no record of a batch out (so the server may apply the two in either order).
    /// `keys` are that batch's records (`keys(_:)`), made once per batch: made again at every look, the set
    /// was a tenth of the pushing device's samples in a 1x push.
    static func disjoint(_ keys: Set<String>, _ b: [StoreSession.QueuedChange]) -> Bool {
        !b.contains { keys.contains($0.collection + "/" + $0.recordId) }
    }

    /// A batch's records, as `collection/id`.
    static func keys(_ batch: [StoreSession.QueuedChange]) -> Set<String> {
        Set(batch.map { $0.collection + "/" + $0.recordId })
    }

    /// Moves a pull cursor along the chain of this device's own push ranges (previousCursor → cursor) that
    /// starts where it stands: the cursor it ends at (nil when none starts there) and the ranges not passed.
    static func skipOwnRanges(from cursor: String, _ ranges: [String: String]) -> (moved: String?, left: [String: String]) {
        var left = ranges, at = cursor, moved: String?
        while let next = left.removeValue(forKey: at) {
            at = next
            moved = next
        }
        return (moved, left)
    }

    /// Sends one batch; runs while the engine settles the batch before it.
    func push(_ batch: [StoreSession.QueuedChange], deviceId: String) -> Task<SyncClient.PushAnswer, any Error> {
        let client = self.client
        return inFlight.start { try await client.push(deviceId: deviceId, changes: batch) }
    }
}
