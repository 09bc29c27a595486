/// The three-way merge of two concurrent versions of one record against the version both were made on
/// (contract §6.3), the same on every backend:
/// - a field changed on one side only keeps that change;
/// - a text field (`textFields`) changed on both sides is merged word by word (`TextMerge`); where both
///   changed the same words the merged text keeps both versions of the passage and a conflict is reported;
/// - any other field changed on both sides follows the greater version `(updatedAt, deviceId)`;
/// - an edit concurrent with a delete keeps the record alive, edited; both deleted → deleted.
/// The result does not depend on which version arrived first: text merges take the lesser version first.
public enum RecordMerge {
    /// Fields merged word by word when both sides changed them.
    public static let textFields: [RecordCollection: [String]] = [
        .sermons: ["title"], .notes: ["text"], .transcripts: ["text"], .summaries: ["title", "text"],
    ]

    /// Fields the merge never takes from either side: the record's identity and version.
    static let envelope: Set<String> = ["id", "updatedAt", "deletedAt"]

    public struct Conflict: Sendable, Equatable {
        public let field: String
        public let base: String
        /// The pushed (incoming) version's text, and the stored (current) one's.
        public let local: String
        public let remote: String
        public let merged: String
    }

    public struct Outcome: Sendable, Equatable {
        public let record: JSONObject
        public let conflicts: [Conflict]
    }

    /// Merges `incoming` (pushed) and `current` (stored) against `base`. The result carries `version`'s
    /// `updatedAt`; the caller makes that version greater than both sides.
    public static func merge(_ collection: RecordCollection, base: JSONObject,
                             current: JSONObject, currentVersion: RecordVersion,
                             incoming: JSONObject, incomingVersion: RecordVersion,
                             updatedAt: String) -> Outcome {
        let incomingWins = incomingVersion > currentVersion
        let texts = Set(textFields[collection] ?? [])
        var out = incomingWins ? incoming : current
        var conflicts = [Conflict]()
        var keys = Set(base.keys).union(current.keys).union(incoming.keys)
        keys.subtract(envelope)
        for key in keys.sorted() {
            let b = base[key] ?? .null, c = current[key] ?? .null, i = incoming[key] ?? .null
            if c == i { out[key] = c; continue }
            if c == b { out[key] = i; continue }
            if i == b { out[key] = c; continue }
            // Changed on both sides, differently.
            if texts.contains(key), case .string(let bt) = b, case .string(let ct) = c, case .string(let it) = i {
                let (first, second) = incomingWins ? (ct, it) : (it, ct)
                let merged = TextMerge.merge(base: bt, first: first, second: second)
                out[key] = .string(merged.text)
                if merged.conflicts > 0 {
                    conflicts.append(Conflict(field: key, base: bt, local: it, remote: ct, merged: merged.text))
                }
            } else {
                out[key] = incomingWins ? i : c
            }
        }
        out[field: \RecordHead.id] = current[field: \RecordHead.id] ?? incoming[field: \RecordHead.id]
        out[field: \RecordHead.updatedAt] = .string(updatedAt)
        // Deletes: an edit concurrent with a delete keeps the record alive.
        let currentDeleted = current.deletedAt != nil, incomingDeleted = incoming.deletedAt != nil
        func edited(_ side: JSONObject) -> Bool { keys.contains { (side[$0] ?? .null) != (base[$0] ?? .null) } }
        switch (currentDeleted, incomingDeleted) {
        case (false, false):
            out[field: \RecordHead.deletedAt] = .null
        case (true, true):
            out[field: \RecordHead.deletedAt] = .string(max(current.deletedAt!, incoming.deletedAt!))
        case (true, false):
            out[field: \RecordHead.deletedAt] = edited(incoming) ? .null : current[field: \RecordHead.deletedAt]
        case (false, true):
            out[field: \RecordHead.deletedAt] = edited(current) ? .null : incoming[field: \RecordHead.deletedAt]
        }
        return Outcome(record: out, conflicts: conflicts)
    }

    /// The version a merge result gets: one millisecond past the greater side, so that every device
    /// holding either side adopts it; by the pushing device.
    public static func mergedVersion(current: RecordVersion, incoming: RecordVersion) -> RecordVersion {
        let newest = max(current.updatedAt, incoming.updatedAt)
        let millis = (Timestamp.parse(newest) ?? Timestamp.nowMillis()) + 1
        return RecordVersion(updatedAt: Timestamp.format(millis: millis), deviceId: incoming.deviceId)
    }
}
