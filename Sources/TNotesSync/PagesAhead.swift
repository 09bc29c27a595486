import TNotesCore

/// A pull or snapshot page as the server answered it, its changes not decoded yet.
struct FetchedPage: Sendable {
    let changes: [JSON]
    let cursor: String
    let hasMore: Bool
    let serverEpoch: String?
    /// A snapshot page: where the next one starts (nil on its last page).
    var snapshotAfter: String? = nil
    /// By change index, the records the page wrote canonically (`JSON.parseChanges`).
    var recordTexts: [Int: String] = [:]

    /// Where the page after this one starts; nil on the last page.
    var next: String? { hasMore ? (snapshotAfter ?? cursor) : nil }

    /// Decoded, validated and prepared for the store (off the store queue).
    func decoded() -> SyncEngine.DecodedPage {
        let (prepared, invalid) = SyncEngine.prepare(changes, recordTexts: recordTexts)
        return SyncEngine.DecodedPage(changes: prepared, invalid: invalid, cursor: cursor, hasMore: hasMore,
                                      serverEpoch: serverEpoch, snapshotAfter: snapshotAfter)
    }
}

/// The pages after the one a pull is applying, fetched and decoded ahead of it.
///
/// Each request needs the answer before it (its cursor says where the next page starts), so page N+1 is
/// asked for as soon as page N has answered, not once N is decoded or applied, and up to `depth` pages are
/// out or decoding at once. Why: with one page ahead, asked for once the page before it was taken, a page's
/// round trip and its decoding ran one after the other beside the store's transaction, and the writer
/// waited for them (1× pull from a PostgreSQL server: 42–45 k changes/s that way, 44–48 k this way).
///
/// Used by one task (the pull); the fetches and decodes run as tasks of `inFlight`, so cancelling the sync
/// cancels them too.
struct PagesAhead {
    typealias Fetch = @Sendable (_ after: String) async throws -> FetchedPage

    private let fetch: Fetch
    private let inFlight: InFlightTasks
    private let depth: Int
    /// The pages ahead in order, decoded (nil once the log ended before them), and their requests.
    private var decoding: [Task<SyncEngine.DecodedPage?, any Error>] = []
    private var requests: [Task<FetchedPage?, any Error>] = []
    /// The newest request: the one after it starts where its answer says. Nil before the first.
    private var newest: Task<FetchedPage?, any Error>?
    /// Where the first request starts (nil: there is no page after `first`).
    private let start: String?

    init(after first: SyncEngine.DecodedPage, depth: Int, fetch: @escaping Fetch, inFlight: InFlightTasks) {
        self.fetch = fetch
        self.inFlight = inFlight
        self.depth = max(1, depth)
        start = first.hasMore ? first.position : nil
    }

    /// Sends requests (each once the one before it has answered) until `depth` pages are ahead.
    mutating func fill() {
        while decoding.count < depth {
            let before = newest, start = self.start, fetch = self.fetch
            let fetched = inFlight.start { () -> FetchedPage? in
                let from: String? = if let before { try await before.value?.next } else { start }
                guard let from else { return nil }
                return try await fetch(from)
            }
            newest = fetched
            requests.append(fetched)
            decoding.append(inFlight.start { try await fetched.value?.decoded() })
        }
    }

    /// The next page in order, fetching more behind it; nil when the log ended.
    mutating func next() async throws -> SyncEngine.DecodedPage? {
        fill()
        requests.removeFirst()
        let page = try await decoding.removeFirst().value
        if page?.hasMore == true { fill() }
        return page
    }

    /// Cancels every request and decoding still out and waits for them (none outlives the pull).
    func cancel() async {
        for task in requests { task.cancel() }
        for task in decoding { task.cancel() }
        for task in decoding { _ = try? await task.value }
        for task in requests { _ = try? await task.value }
    }
}
