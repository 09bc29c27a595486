import TNotesCore

/// `SyncService.merge` for a whole push batch at once, decided in memory from two set-based lookups (the
/// op ids already seen, the stored version of each record) instead of two lookups per change. Each change
/// still sees what the ones before it in the batch did: an op id twice is a duplicate the second time, and
/// a record's second version is decided against its first. Both backends write what the plan says.
///
/// A change made on a version other than the stored one needs the three-way merge, which reads its base
/// and may write more than one row: for a batch holding one (rare: concurrent edits) there is no plan
/// (`nil`), and the backend merges it one change at a time (`mergeEach`).
///
/// The plan names changes by their index in the batch, never copies them: a `Change` is a struct of ten
/// reference-counted fields, and zipping each one with its body and copying it into the plan was 1 % of the
/// server's CPU over a 1× PostgreSQL push (`perf`).
struct BatchMergePlan {
    /// One verdict per change, in order.
    private(set) var verdicts: [MergeVerdict] = []
    /// Indices of the applied changes, in order: each one is logged with the next seq.
    private(set) var logged: [Int] = []
    /// Places in `logged` of each record's last version in the batch, ascending: the rows `records` gets.
    private(set) var lastOfRecord: [Int] = []
    /// Op ids to remember, with their results (every change but a duplicate).
    private(set) var ops: [(opId: String, result: String)] = []

    /// The key the lookups are made by: a record's collection and id.
    static func key(_ change: Change) -> RecordKey { RecordKey(change.collection, change.id) }

    /// `known`: op ids the user's log already has; `current`: the stored version of each record in the batch
    /// that exists.
    init?(changes: [Change], known: Set<String>, current: [RecordKey: RecordVersion]) {
        for index in changes.indices {
            guard let base = changes[index].base, let stored = current[Self.key(changes[index])] else { continue }
            if stored != base && stored != changes[index].version { return nil }
        }
        var known = known, current = current
        var last = [RecordKey: Int]()
        verdicts.reserveCapacity(changes.count)
        logged.reserveCapacity(changes.count)
        ops.reserveCapacity(changes.count)
        for index in changes.indices {
            let opId = changes[index].opId
            guard known.insert(opId).inserted else {
                verdicts.append(MergeVerdict(MergeOutcome.duplicate.rawValue))
                continue
            }
            let key = Self.key(changes[index])
            let version = changes[index].version
            let outcome = MergeRule.decide(existing: current[key], incoming: version,
                                           appendOnly: changes[index].collection.isAppendOnly)
            if outcome == .applied {
                logged.append(index)
                current[key] = version
                last[key] = logged.count - 1
            }
            ops.append((opId, outcome.rawValue))
            verdicts.append(MergeVerdict(outcome.rawValue))
        }
        lastOfRecord = last.values.sorted()
    }
}
