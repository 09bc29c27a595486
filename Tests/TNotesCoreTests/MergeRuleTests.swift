import Testing
import TNotesCore
import TNotesTestSupport

@Suite struct MergeRuleTests {
    let t0 = "2025-11-06T10:00:00.000Z"
    let t1 = "2025-11-06T10:00:00.001Z"

    @Test func absentRecordIsApplied() {
        #expect(MergeRule.decide(existing: nil, incoming: .init(updatedAt: t0, deviceId: "a"), appendOnly: false) == .applied)
        #expect(MergeRule.decide(existing: nil, incoming: .init(updatedAt: t0, deviceId: "a"), appendOnly: true) == .applied)
    }

    @Test func laterUpdatedAtWins() {
        let old = RecordVersion(updatedAt: t0, deviceId: "zzz"), new = RecordVersion(updatedAt: t1, deviceId: "aaa")
        #expect(MergeRule.decide(existing: old, incoming: new, appendOnly: false) == .applied)
        #expect(MergeRule.decide(existing: new, incoming: old, appendOnly: false) == .superseded)
    }

    @Test func equalUpdatedAtIsDecidedByDeviceId() {
        let a = RecordVersion(updatedAt: t0, deviceId: "device-a"), b = RecordVersion(updatedAt: t0, deviceId: "device-b")
        #expect(MergeRule.decide(existing: a, incoming: b, appendOnly: false) == .applied)
        #expect(MergeRule.decide(existing: b, incoming: a, appendOnly: false) == .superseded)
        #expect(a < b)
    }

    @Test func sameVersionIsDuplicate() {
        let a = RecordVersion(updatedAt: t0, deviceId: "a")
        #expect(MergeRule.decide(existing: a, incoming: a, appendOnly: false) == .duplicate)
    }

    @Test func appendOnlyNeverChangesAnExistingRecord() {
        let a = RecordVersion(updatedAt: t0, deviceId: "a"), b = RecordVersion(updatedAt: t1, deviceId: "b")
        #expect(MergeRule.decide(existing: a, incoming: b, appendOnly: true) == .duplicate)
        #expect(MergeRule.decide(existing: b, incoming: a, appendOnly: true) == .duplicate)
        #expect(MergeRule.decide(existing: a, incoming: a, appendOnly: true) == .duplicate)
    }

    /// Folds versions through the rule like a store does and returns what it ends up holding.
    func fold(_ versions: [RecordVersion], appendOnly: Bool = false) -> RecordVersion? {
        var current: RecordVersion?
        for v in versions where MergeRule.decide(existing: current, incoming: v, appendOnly: appendOnly) == .applied {
            current = v
        }
        return current
    }

    @Test func everyPermutationLeavesTheMaximum() {
        let versions = [
            RecordVersion(updatedAt: t0, deviceId: "b"), RecordVersion(updatedAt: t0, deviceId: "a"),
            RecordVersion(updatedAt: t1, deviceId: "a"), RecordVersion(updatedAt: "2025-11-05T23:59:59.999Z", deviceId: "z"),
            RecordVersion(updatedAt: t1, deviceId: "0"), RecordVersion(updatedAt: t0, deviceId: "c"),
        ]
        let expected = versions.max()!
        #expect(expected == RecordVersion(updatedAt: t1, deviceId: "a"))
        let all = permutations(versions)
        #expect(all.count == 720)
        for p in all {
            #expect(fold(p) == expected)
            // Idempotent: delivering everything twice (in any interleaving) changes nothing.
            #expect(fold(p + p.reversed()) == expected)
            #expect(fold(p.flatMap { [$0, $0] }) == expected)
        }
    }

    @Test func randomSetsConvergeAndReplaysAreHarmless() {
        var rng = SeededRNG(seed: 31337)
        let devices = ["a", "b", "c", "7d0c7f4e", "c3a1b2d4"]
        for _ in 0..<500 {
            let n = Int.random(in: 1...12, using: &rng)
            let versions = (0..<n).map { _ in
                RecordVersion(updatedAt: Timestamp.format(millis: 1_762_423_200_000 + Int64.random(in: 0..<5, using: &rng)),
                              deviceId: devices.randomElement(using: &rng)!)
            }
            let expected = versions.max()!
            for _ in 0..<5 {
                let order = (versions + versions.shuffled(using: &rng).prefix(3)).shuffled(using: &rng)
                #expect(fold(order) == expected)
            }
        }
    }

    @Test func appendOnlyKeepsTheFirstArrival() {
        let versions = [RecordVersion(updatedAt: t1, deviceId: "b"), RecordVersion(updatedAt: t0, deviceId: "a")]
        #expect(fold(versions, appendOnly: true) == versions[0])
        #expect(fold(versions.reversed(), appendOnly: true) == versions[1])
    }
}
