import Logging
import TNotesCore
import TNotesStore

/// The pull half of a sync: a first sync by snapshot, then the change log page by page.
extension SyncEngine {
    /// A pull or snapshot page with its changes already decoded and validated (invalid ones counted, not
    /// applied).
    struct DecodedPage: Sendable {
        /// Decoded, validated and prepared for the store (`PreparedChange`), off the store queue.
        let changes: [PreparedChange]
        let invalid: Int
        /// The log cursor after this page (a snapshot's pages all carry the one its log pull starts from).
        let cursor: String
        let hasMore: Bool
        let serverEpoch: String?
        /// A snapshot page: where the next one starts (nil on its last page).
        var snapshotAfter: String? = nil

        /// Where the pull stands after this page (what must move from one page to the next).
        var position: String { snapshotAfter ?? cursor }
    }

    /// What applying one pulled page did: applied (with the live records it deleted, and the live count at
    /// the pull's start once known), or held back with the deletions the pull would make.
    enum PageOutcome: Sendable {
        case applied(Int, deleting: Int, liveAtStart: Int?)
        case held(Int)
    }

    /// What one pull's pages did so far; the mass-delete guard counts across all of them.
    struct PullTally: Sendable {
        var applied = 0
        var received = 0
        var deleted = 0
        var liveAtStart: Int?
        var held = 0
    }

    /// Pulls every page after our cursor; each page and the position after it commit together. A device
    /// that has never pulled first takes a snapshot of the records as they are now (one change per record,
    /// not every version the log holds), then pulls the log from the cursor the snapshot named. A page that
    /// would bring this sync's deletions of live records past half of them (and past `massDeleteFloor`) is
    /// not applied unless `sync.confirm` allowed it: the pull stops there, held, with the count.
    /// `received`: every change the pages brought, applied or not (`SyncReport.downloaded`).
    func pullAll() async throws -> (applied: Int, held: Int, received: Int) {
        // The pages' search rows wait for FTS until the last page (a search meanwhile still finds them).
        let searchHold = store.holdSearchIndex()
        defer { searchHold.release() }
        let pulled = try await pullPages()
        // The pages' large commits left the WAL long: the pull checkpoints it, before the index's catch-up.
        if pulled.applied > 0 { await store.checkpointAfterLargeWrites() }
        return pulled
    }

    /// `pullAll`'s pages, under its hold.
    private func pullPages() async throws -> (applied: Int, held: Int, received: Int) {
        var tally = PullTally()
        var cursor = try await store.read { s in try s.pullCursor() }
        if cursor == nil && !snapshotUnsupported {
            switch try await snapshot(&tally) {
            case .done(let after): cursor = after
            case .held: return (tally.applied, tally.held, tally.received)
            case .unsupported: break
            }
        }
        let client = self.client, limit = pullPageSize
        // Detached (as every page after it): the decoding runs on the pool, not on this actor (which stays
        // free for status calls).
        let from = cursor
        let first = try await inFlight.start { try await Self.fetchLog(client, after: from, limit: limit).decoded() }.value
        _ = try await applyPages(first: first, from: cursor, tally: &tally,
                                 fetch: { try await Self.fetchLog(client, after: $0, limit: limit) },
                                 mark: { s, page in try s.setPullCursor(page.cursor) })
        return (tally.applied, tally.held, tally.received)
    }

    enum SnapshotResult: Sendable {
        /// Applied to its last page: the log cursor to pull from now.
        case done(String)
        case held
        /// The server has no snapshots.
        case unsupported
    }

    /// A first sync's snapshot, resumed where an interrupted one stopped. A server without snapshots (404)
    /// is asked for its log from the start instead, for as long as this engine runs.
    private func snapshot(_ tally: inout PullTally) async throws -> SnapshotResult {
        let (resume, holds) = try await store.read { s in (try s.snapshotProgress(), try s.holdsRecords()) }
        // A device with records of its own needs the tombstones too, or it would keep what the server deleted.
        let tombstones = resume?.tombstones ?? holds
        let client = self.client, limit = pullPageSize
        let first: DecodedPage
        do {
            first = try await inFlight.start {
                try await Self.fetchSnapshot(client, after: resume?.after, limit: limit, tombstones: tombstones).decoded()
            }.value
        } catch SyncFailure.client(let status, _) where [404, 405, 501].contains(status) {
            snapshotUnsupported = true
            logger.info("the server has no snapshots: the first sync pulls its whole log")
            return .unsupported
        }
        let last = try await applyPages(
            first: first, from: resume?.after, tally: &tally,
            fetch: { try await Self.fetchSnapshot(client, after: $0, limit: limit, tombstones: tombstones) },
            mark: { s, page in
                if let after = page.snapshotAfter {
                    try s.setSnapshotProgress(.init(after: after, tombstones: tombstones))
                } else {
                    try s.clearSnapshotProgress()
                    try s.setPullCursor(page.cursor)
                }
            })
        return last.map { .done($0.cursor) } ?? .held
    }

    /// Applies `first` and every page after it in order. The pages after the one being applied are fetched
    /// and decoded ahead (`PagesAhead`), so the HTTP round trips and the JSON work run beside the store's
    /// transaction. `mark` records, in each page's own transaction, where the pull stands after it. Returns
    /// the last page applied, or nil when a page was held back (`tally.held`).
    private func applyPages(first: DecodedPage, from start: String?, tally: inout PullTally,
                            fetch: @escaping PagesAhead.Fetch,
                            mark: @escaping @Sendable (StoreSession, DecodedPage) throws -> Void) async throws -> DecodedPage?
    {
        let confirmed = massDeleteConfirmed
        var page = first
        var previous = start
        var ahead = PagesAhead(after: first, depth: Self.pullPagesAhead, fetch: fetch, inFlight: inFlight)
        do {
            while true {
                if page.position == previous && page.hasMore { throw SyncFailure.malformed("the pull position did not advance") }
                // A new epoch: this page is from the start of the new server's log (our old cursor meant nothing
                // there); the cursor was cleared, and the page applies as usual.
                _ = try await noteServerEpoch(page.serverEpoch)
                if page.hasMore { ahead.fill() }
                let alreadyDeleted = tally.deleted, knownLive = tally.liveAtStart, current = page
                let outcome = try await store.write { s -> PageOutcome in
                    let deletes = current.changes.filter { $0.change.op == .delete }.map { ($0.change.collection, $0.change.id) }
                    let deleting = deletes.isEmpty ? 0 : try s.liveCount(among: deletes)
                    var live = knownLive
                    if deleting > 0 && !confirmed {
                        // Live records when this pull began: counted once per pull (a whole-table count).
                        let atStart = try live ?? (s.liveCount() + alreadyDeleted)
                        live = atStart
                        let total = alreadyDeleted + deleting
                        if total >= Self.massDeleteFloor && total * 2 > atStart { return .held(total) }
                    }
                    var applied = 0
                    for change in current.changes where try s.apply(change, origin: .remote) == .applied { applied += 1 }
                    try mark(s, current)
                    return .applied(applied, deleting: deleting, liveAtStart: live)
                }
                guard case .applied(let applied, let deleting, let live) = outcome else {
                    await ahead.cancel()
                    if case .held(let total) = outcome { tally.held = total }
                    return nil
                }
                tally.liveAtStart = live
                tally.deleted += deleting
                if page.invalid > 0 { logger.warning("skipped invalid pulled changes", metadata: ["count": "\(page.invalid)"]) }
                tally.applied += applied
                tally.received += page.changes.count + page.invalid
                progress.pulled += applied
                emitProgress()
                guard page.hasMore, let following = try await ahead.next() else {
                    await ahead.cancel()
                    return page
                }
                previous = page.position
                page = following
            }
        } catch {
            await ahead.cancel()
            throw error
        }
    }

    /// Pages fetched or decoded ahead of the one being applied (see `PagesAhead`). Measured against one and
    /// three: see the README's Performance section (round 5, ninth session).
    static let pullPagesAhead = 2

    static func fetchLog(_ client: SyncClient, after cursor: String?, limit: Int) async throws -> FetchedPage {
        let page = try await client.pull(cursor: cursor, limit: limit)
        return FetchedPage(changes: page.changes, cursor: page.cursor, hasMore: page.hasMore, serverEpoch: page.serverEpoch,
                           recordTexts: page.recordTexts)
    }

    static func fetchSnapshot(_ client: SyncClient, after: String?, limit: Int, tombstones: Bool) async throws -> FetchedPage {
        let page = try await client.snapshot(after: after, limit: limit, tombstones: tombstones)
        return FetchedPage(changes: page.changes, cursor: page.cursor, hasMore: page.hasMore, serverEpoch: page.serverEpoch,
                           snapshotAfter: page.after, recordTexts: page.recordTexts)
    }

    /// Decodes, validates and prepares pulled changes for the store; the invalid ones are counted.
    /// `recordTexts`: by index, records the page wrote canonically, stored as they came while valid and as given.
    static func prepare(_ raw: [JSON], recordTexts: [Int: String] = [:]) -> ([PreparedChange], Int) {
        var changes = [PreparedChange]()
        changes.reserveCapacity(raw.count)
        var invalid = 0
        for (index, r) in raw.enumerated() {
            var text = recordTexts[index]
            if let change = try? Change(json: r, requireOpId: false, recordText: &text) {
                changes.append(PreparedChange(change, body: text))
            } else {
                invalid += 1
            }
        }
        return (changes, invalid)
    }
}
