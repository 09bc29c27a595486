import Testing
import TNotesCore
import TNotesTestSupport

@Suite struct HLCTests {
    @Test func followsTheWallClockWhenItMovesForward() {
        var clock = HybridLogicalClock()
        #expect(clock.tick(wallMillis: 1000) == 1000)
        #expect(clock.tick(wallMillis: 5000) == 5000)
        #expect(clock.lastMillis == 5000)
    }

    @Test func neverRepeatsWithinOneMillisecond() {
        var clock = HybridLogicalClock()
        let a = clock.tick(wallMillis: 1000)
        let b = clock.tick(wallMillis: 1000)
        let c = clock.tick(wallMillis: 1000)
        #expect(a < b && b < c)
    }

    @Test func strictlyMonotonicUnderRandomWallClockJumps() {
        var rng = SeededRNG(seed: 0x41C)
        var clock = HybridLogicalClock(lastMillis: 0)
        var wall: Int64 = 1_762_423_200_000
        var last: Int64 = .min
        var maxSeen: Int64 = 0
        for step in 0..<20_000 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: wall -= Int64.random(in: 1...86_400_000, using: &rng)           // NTP step backwards
            case 1: wall += Int64.random(in: 1...86_400_000 * 30, using: &rng)      // jump forwards
            case 2: break                                                            // same millisecond
            case 3:                                                                  // a remote version arrives
                let remote = wall + Int64.random(in: -3_600_000...3_600_000, using: &rng)
                clock.receive(remote)
                maxSeen = max(maxSeen, remote)
                #expect(clock.lastMillis >= remote)
                continue
            default: wall += Int64.random(in: 0...50, using: &rng)
            }
            let t = clock.tick(wallMillis: wall)
            #expect(t > last, "step \(step): \(t) after \(last)")
            #expect(t >= wall, "step \(step): stamp behind the wall clock")
            #expect(t > maxSeen, "step \(step): stamp not after a received version")
            last = t
        }
    }

    @Test func receivePushesTheClockForward() {
        var clock = HybridLogicalClock()
        _ = clock.tick(wallMillis: 1000)
        clock.receive(10_000)
        #expect(clock.lastMillis == 10_000)
        #expect(clock.tick(wallMillis: 2000) == 10_001)
    }

    @Test func receiveNeverMovesItBack() {
        var clock = HybridLogicalClock(lastMillis: 50_000)
        clock.receive(10)
        #expect(clock.lastMillis == 50_000)
        clock.receive("1970-01-01T00:00:01.000Z")
        #expect(clock.lastMillis == 50_000)
    }

    @Test func receiveOfTextUsesTheTime() {
        var clock = HybridLogicalClock()
        clock.receive("2025-11-06T12:00:00+02:00")
        #expect(Timestamp.format(millis: clock.lastMillis) == "2025-11-06T10:00:00.000Z")
        // An edit made after seeing that version is stamped later, even with a wall clock a day behind.
        let t = clock.tick(wallMillis: Timestamp.parse("2025-11-05T10:00:00Z")!)
        #expect(Timestamp.format(millis: t) > "2025-11-06T10:00:00.000Z")
        clock.receive("not a time")
        #expect(clock.lastMillis == t)
    }
}
