import Testing
import TNotesCore
import TNotesTestSupport

@Suite struct TimestampTests {
    @Test func formatsCanonically() {
        #expect(Timestamp.format(millis: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(millis: 1_762_423_200_000) == "2025-11-06T10:00:00.000Z")
        #expect(Timestamp.format(millis: 1_762_423_200_007) == "2025-11-06T10:00:00.007Z")
        #expect(Timestamp.format(millis: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(Timestamp.format(millis: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
    }

    @Test(arguments: [
        ("2025-11-06T10:00:00.000Z", "2025-11-06T10:00:00.000Z"),
        ("2025-11-06T10:00:00Z", "2025-11-06T10:00:00.000Z"),
        ("2025-11-06t10:00:00z", "2025-11-06T10:00:00.000Z"),
        ("2025-11-06 10:00:00Z", "2025-11-06T10:00:00.000Z"),
        ("2025-11-06T12:00:00+02:00", "2025-11-06T10:00:00.000Z"),
        ("2025-11-06T04:30:00-05:30", "2025-11-06T10:00:00.000Z"),
        ("2025-11-06T00:30:00-10:00", "2025-11-06T10:30:00.000Z"),
        ("2025-11-07T01:00:00+14:00", "2025-11-06T11:00:00.000Z"),
        ("2025-01-01T00:30:00+01:00", "2024-12-31T23:30:00.000Z"),
        ("2025-11-06T10:00:00.5Z", "2025-11-06T10:00:00.500Z"),
        ("2025-11-06T10:00:00.12Z", "2025-11-06T10:00:00.120Z"),
        ("2025-11-06T10:00:00.123456789Z", "2025-11-06T10:00:00.123Z"),
        ("2025-11-06T10:00:00.999+00:00", "2025-11-06T10:00:00.999Z"),
        ("2025-11-06", "2025-11-06T00:00:00.000Z"),
        ("2024-02-29", "2024-02-29T00:00:00.000Z"),
        ("2000-02-29T23:59:59.999Z", "2000-02-29T23:59:59.999Z"),
    ])
    func canonicalForms(_ input: String, _ expected: String) {
        #expect(Timestamp.canonical(input) == expected)
    }

    @Test(arguments: [
        "2025-02-30", "2025-02-29", "1900-02-29", "2025-04-31", "2025-13-01", "2025-00-10", "2025-11-00",
        "2025-11-32", "2025-02-30T10:00:00.000Z", "2025-11-06T24:00:00Z", "2025-11-06T10:60:00Z",
        "2025-11-06T10:00:00", "2025-11-06T10:00:00.Z", "2025-11-06T10:00Z", "2025-11-06T10:00:00+0200",
        "2025-11-06T10:00:00+24:00", "2025-11-06T10:00:00Zjunk", "2025-11-6", "25-11-06", "2025/11/06",
        "", "now", "2025-11-06T", "2025-11-06X10:00:00Z", "+2025-11-06", "2025-11-06T10:00:00.000ZZ",
    ])
    func invalidTimesAreRejected(_ text: String) {
        #expect(Timestamp.parse(text) == nil, "\(text) parsed")
        #expect(Timestamp.canonical(text) == nil, "\(text) accepted")
    }

    @Test func canonicalTextIsAFixedPoint() {
        var rng = SeededRNG(seed: 2025)
        for _ in 0..<5000 {
            let ms = Int64.random(in: 0..<253_402_300_800_000, using: &rng)
            let text = Timestamp.format(millis: ms)
            #expect(text.utf8.count == 24)
            #expect(Timestamp.parse(text) == ms)
            #expect(Timestamp.canonical(text) == text)
        }
    }

    @Test func stringOrderIsTimeOrder() {
        var rng = SeededRNG(seed: 99)
        for _ in 0..<5000 {
            let a = Int64.random(in: 0..<4_102_444_800_000, using: &rng)
            let b = Int64.random(in: 0..<4_102_444_800_000, using: &rng)
            #expect((Timestamp.format(millis: a) < Timestamp.format(millis: b)) == (a < b))
        }
    }

    @Test func nowIsCanonical() {
        let now = Timestamp.now()
        #expect(Timestamp.canonical(now) == now)
        #expect(Timestamp.parse(now)! > 1_700_000_000_000)
    }
}
