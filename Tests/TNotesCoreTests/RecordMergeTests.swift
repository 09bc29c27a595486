import Testing
import TNotesCore

/// `RecordMerge`: the field rules of contract §6.3, independent of which version arrived first.
@Suite("record merge (three-way, per field)")
struct RecordMergeTests {
    static let base: JSONObject = [
        "id": "00000000-0000-7000-8000-000000000001", "sermonId": "00000000-0000-7000-8000-000000000002",
        "text": "one two three four five six", "timestamp": 10, "createdAt": "2025-11-06T10:00:00.000Z",
        "updatedAt": "2025-11-06T10:00:00.000Z", "deletedAt": .null,
    ]
    static let vA = RecordVersion(updatedAt: "2025-11-06T10:00:01.000Z", deviceId: "a")
    static let vB = RecordVersion(updatedAt: "2025-11-06T10:00:02.000Z", deviceId: "b")

    static func edit(_ changes: JSONObject, at v: RecordVersion) -> JSONObject {
        var r = base
        for (k, x) in changes { r[k] = x }
        r["updatedAt"] = .string(v.updatedAt)
        return r
    }

    /// Merged both ways round (A stored and B pushed, and the reverse): the record must be the same.
    static func both(_ a: JSONObject, _ b: JSONObject) -> (RecordMerge.Outcome, RecordMerge.Outcome) {
        let at = "2025-11-06T10:00:02.001Z"
        return (RecordMerge.merge(.notes, base: base, current: a, currentVersion: vA, incoming: b, incomingVersion: vB, updatedAt: at),
                RecordMerge.merge(.notes, base: base, current: b, currentVersion: vB, incoming: a, incomingVersion: vA, updatedAt: at))
    }

    @Test("one-sided changes are kept; the result is the same in either arrival order")
    func oneSided() {
        let (x, y) = Self.both(Self.edit(["timestamp": 20], at: Self.vA), Self.edit(["text": "one two three four five SIX"], at: Self.vB))
        #expect(x.record == y.record)
        #expect(x.record["timestamp"] == 20 && x.record["text"] == "one two three four five SIX")
        #expect(x.conflicts.isEmpty && x.record["updatedAt"] == "2025-11-06T10:00:02.001Z")
    }

    @Test("a text changed on both sides merges word by word; the same words changed twice keep both and report a conflict")
    func texts() {
        let (x, y) = Self.both(Self.edit(["text": "ONE two three four five six"], at: Self.vA),
                               Self.edit(["text": "one two three four five SIX"], at: Self.vB))
        #expect(x.record == y.record && x.record["text"] == "ONE two three four five SIX" && x.conflicts.isEmpty)
        let (p, q) = Self.both(Self.edit(["text": "one two 3 four five six"], at: Self.vA),
                               Self.edit(["text": "one two drei four five six"], at: Self.vB))
        #expect(p.record == q.record)
        #expect(p.record["text"] == "one two [[3 || drei]] four five six")
        #expect(p.conflicts.count == 1 && p.conflicts.first?.field == "text" && p.conflicts.first?.base == Self.base["text"]?.stringValue)
    }

    @Test("a non-text field changed on both sides follows the greater version")
    func nonTextField() {
        let (x, y) = Self.both(Self.edit(["timestamp": 20], at: Self.vA), Self.edit(["timestamp": 30], at: Self.vB))
        #expect(x.record == y.record && x.record["timestamp"] == 30 && x.conflicts.isEmpty)
    }

    @Test("an edit concurrent with a delete keeps the record alive, edited; an untouched side lets the delete stand")
    func deletes() {
        var deleted = Self.edit([:], at: Self.vA)
        deleted["deletedAt"] = .string(Self.vA.updatedAt)
        let (x, y) = Self.both(deleted, Self.edit(["text": "edited"], at: Self.vB))
        #expect(x.record == y.record && x.record["deletedAt"] == .null && x.record["text"] == "edited")
        let (p, q) = Self.both(deleted, Self.edit([:], at: Self.vB))
        #expect(p.record == q.record && p.record["deletedAt"] == .string(Self.vA.updatedAt))
    }

    @Test("the merged version is greater than both sides, by the pushing device")
    func version() {
        let v = RecordMerge.mergedVersion(current: Self.vB, incoming: Self.vA)
        #expect(v > Self.vA && v > Self.vB && v.deviceId == "a" && v.updatedAt == "2025-11-06T10:00:02.001Z")
    }
}
