/// The bounds a value must meet when it is written (contract §8.1, docs/socket-api.md "Bounds"): a note's
/// `timestamp` and a segment's `start`/`end` are finite seconds in [0, 604800] (seven days); a sermon's
/// title, speaker and service type are at most 1,000 characters; a note's text at most 100,000.
///
/// These are edge checks, not part of `RecordSchema.normalize`: a value stored before the bounds existed
/// must still load, pull and render, and an edit of another field of its record must still push. So a
/// bounded field is checked only when it differs from the record's previous version (`previous`), and the
/// store, the pull and backups never check them at all. Renderers do not rely on these bounds either: every
/// one of them is total (`ClockTime`), because a server stores what any client sends.
public enum ValueBounds {
    public static let maxSeconds: Double = 604_800
    public static let maxLabelCharacters = 1_000
    public static let maxNoteCharacters = 100_000

    /// The bounded fields of each collection, as (field, limit).
    enum Limit {
        case seconds
        case characters(Int)
    }

    static func limits(_ collection: RecordCollection) -> [(String, Limit)] {
        switch collection {
        case .sermons:
            return [(Sermon.name(\.title), .characters(maxLabelCharacters)), (Sermon.name(\.speaker), .characters(maxLabelCharacters)),
                    (Sermon.name(\.serviceType), .characters(maxLabelCharacters))]
        case .notes:
            return [(Note.name(\.timestamp), .seconds), (Note.name(\.text), .characters(maxNoteCharacters))]
        default:
            return []
        }
    }

    /// Throws a `FieldError` naming the first field of `record` (relative to the record, e.g. `timestamp`
    /// or `segments[3].end`) that is out of bounds and differs from `previous`'s.
    public static func check(_ collection: RecordCollection, _ record: JSONObject, previous: JSONObject? = nil)
        throws(FieldError)
    {
        for (field, limit) in limits(collection) {
            guard let value = record[field], !value.isNull else { continue }
            if let previous, previous[field] == value { continue }
            try check(value, limit, field: field)
        }
        guard collection == .transcripts, case .array(let segments)? = record["segments"] else { return }
        if let previous, previous["segments"] == record["segments"] { return }
        // A segment that was already there as it is keeps its old times (an edit of the transcript's text,
        // say, re-sends every segment); new or changed segments are checked.
        let before = Set(previous?["segments"]?.arrayValue ?? [])
        for (i, segment) in segments.enumerated() where !before.contains(segment) {
            for key in ["start", "end"] {
                guard let v = segment[key] else { continue }
                try check(v, .seconds, field: "segments[\(i)].\(key)")
            }
        }
    }

    static func check(_ value: JSON, _ limit: Limit, field: String) throws(FieldError) {
        switch limit {
        case .seconds:
            guard let d = value.doubleValue else { return }  // the schema names a wrong type
            guard d.isFinite, d >= 0, d <= maxSeconds else {
                throw FieldError(field: field, reason: "must be a number of seconds from 0 to \(Int(maxSeconds)) (7 days)")
            }
        case .characters(let max):
            guard case .string(let s) = value else { return }
            // UTF-8 length bounds the character count from above: the usual text is decided without
            // walking its grapheme clusters.
            guard s.utf8.count > max, s.count > max else { return }
            throw FieldError(field: field, reason: "must be at most \(max) characters (has \(s.count))")
        }
    }
}
