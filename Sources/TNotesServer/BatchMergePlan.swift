import TNotesCore

/// `SyncService.merge` for a whole push batch at once, decided in memory from two set-based lookups (the
/// op ids already seen, the stored version of each record) instead of two lookups per change. Each change
/// still sees what the ones before it in the batch did: an op id twice is a duplicate the second time, and
/// a record's second version is decided against its first. Both backends write what the plan says.
///
/// A change made on a version other than the stored one needs the three-way merge, which reads its base
/// and may write more than one row: for a batch holding one (rare: concurrent edits) there is no plan
/// (`nil`), and the backend merges it one change at a time (`mergeEach`).
struct BatchMergePlan {
    /// One verdict per change, in order.
    private(set) var verdicts: [MergeVerdict] = []
    /// The applied changes with their canonical bodies, in order: each one is logged with the next seq.
    private(set) var logged: [(change: Change, body: String)] = []
    /// Indices into `logged` of each record's last version in the batch, ascending: the rows `records` gets.
    private(set) var lastOfRecord: [Int] = []
    /// Op ids to remember, with their results (every change but a duplicate).
    private(set) var ops: [(opId: String, result: String)] = []

    /// The key the lookups are made by: a record's collection and id.
    static func key(_ change: Change) -> String { change.collection.rawValue + "/" + change.id }

    /// `bodies[i]` is the canonical text of `changes[i].record`. `known`: op ids the user's log already
    /// has; `current`: the stored version of each record in the batch that exists, by `key`.
    init?(changes: [Change], bodies: [String], known: Set<String>, current: [String: RecordVersion]) {
        precondition(bodies.count == changes.count, "one body per change")
        if changes.contains(where: { c in
            guard let base = c.base, let stored = current[Self.key(c)] else { return false }
            return stored != base && stored != c.version
        }) {
            return nil
        }
        var known = known, current = current
        var last = [String: Int]()
        verdicts.reserveCapacity(changes.count)
        for (change, body) in zip(changes, bodies) {
            if known.contains(change.opId) {
                verdicts.append(MergeVerdict(MergeOutcome.duplicate.rawValue))
                continue
            }
            known.insert(change.opId)
            let key = Self.key(change)
            let outcome = MergeRule.decide(existing: current[key], incoming: change.version,
                                           appendOnly: change.collection.isAppendOnly)
            if outcome == .applied {
                logged.append((change, body))
                current[key] = change.version
                last[key] = logged.count - 1
            }
            ops.append((change.opId, outcome.rawValue))
            verdicts.append(MergeVerdict(outcome.rawValue))
        }
        lastOfRecord = last.values.sorted()
    }
}
