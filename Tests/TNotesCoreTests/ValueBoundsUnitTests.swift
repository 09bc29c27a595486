import Testing
import TNotesCore

@Suite("ValueBounds and ClockTime: bounded writes, total rendering (contract §8.1)")
struct ValueBoundsUnitTests {
    private func field(_ collection: RecordCollection, _ record: JSONObject, previous: JSONObject? = nil) -> String? {
        do {
            try ValueBounds.check(collection, record, previous: previous)
            return nil
        } catch {
            return error.field
        }
    }

    @Test("each bounded field is refused by name just past its bound, and kept at it")
    func boundsByField() {
        #expect(field(.notes, ["timestamp": 604_800, "text": "a"]) == nil)
        #expect(field(.notes, ["timestamp": 604_800.5]) == "timestamp")
        #expect(field(.notes, ["timestamp": 1e19]) == "timestamp")
        #expect(field(.notes, ["timestamp": .double(-.leastNonzeroMagnitude)]) == "timestamp")
        #expect(field(.notes, ["text": .string(String(repeating: "x", count: 100_000))]) == nil)
        #expect(field(.notes, ["text": .string(String(repeating: "x", count: 100_001))]) == "text")
        // Characters, not bytes: 100,000 four-byte emoji are within the bound.
        #expect(field(.notes, ["text": .string(String(repeating: "😀", count: 100_000))]) == nil)
        for name in ["title", "speaker", "serviceType"] {
            #expect(field(.sermons, [name: .string(String(repeating: "t", count: 1_000))]) == nil)
            #expect(field(.sermons, [name: .string(String(repeating: "t", count: 1_001))]) == name)
        }
        #expect(field(.sermons, ["speaker": .null]) == nil)
        #expect(field(.transcripts, ["segments": [["start": 0, "end": 604_800, "text": ""]]]) == nil)
        #expect(field(.transcripts, ["segments": [["start": 0, "end": 1, "text": ""], ["start": 2, "end": 604_801, "text": ""]]])
            == "segments[1].end")
        // Unbounded collections and fields pass whatever they hold.
        #expect(field(.summaries, ["text": .string(String(repeating: "s", count: 200_000))]) == nil)
    }

    @Test("a value that predates the bounds is kept when it is not what changed")
    func previousValuesKept() {
        let old: JSONObject = ["timestamp": 1e19, "text": "old", "segments": [["start": 1e300, "end": 1e300, "text": "a"]]]
        #expect(field(.notes, ["timestamp": 1e19, "text": "edited"], previous: old) == nil)
        #expect(field(.notes, ["timestamp": 2e19, "text": "edited"], previous: old) == "timestamp")
        // A transcript keeps its old segments and may add a new one within the bounds, not outside them.
        let kept: JSON = ["start": 1e300, "end": 1e300, "text": "a"]
        #expect(field(.transcripts, ["segments": [kept, ["start": 5, "end": 6, "text": "b"]]], previous: old) == nil)
        #expect(field(.transcripts, ["segments": [kept, ["start": 5, "end": 7e5, "text": "b"]]], previous: old) == "segments[1].end")
    }

    @Test("ClockTime renders every Double, however large, negative or odd")
    func clockIsTotal() {
        #expect(ClockTime.format(0) == "00:00")
        #expect(ClockTime.format(59.999) == "00:59")
        #expect(ClockTime.format(3_600) == "1:00:00")
        #expect(ClockTime.format(604_800) == "168:00:00")
        #expect(ClockTime.format(-5) == "00:00")
        #expect(ClockTime.format(.nan) == "00:00")
        #expect(ClockTime.format(-.infinity) == "00:00")
        for huge in [1e15, 1e19, 1.7e308, Double.greatestFiniteMagnitude, .infinity] {
            #expect(!ClockTime.format(huge).isEmpty)
            #expect(!ClockTime.duration(huge).isEmpty)
        }
        #expect(ClockTime.format(1e19) == ClockTime.format(1e15))
        #expect(ClockTime.duration(90_061) == "1d 1h")
        #expect(ClockTime.duration(-1) == "0s")
    }

    @Test("an object whose keys differ only as Unicode forms becomes a Dictionary without a trap")
    func canonicallyEquivalentKeys() throws {
        // "\u{E9}" (precomposed) and "e\u{301}" (decomposed) are different bytes but equal Swift Strings.
        let value = try JSON.parse(Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8))
        let object = try #require(value.objectValue)
        #expect(object.count == 2)
        #expect(object.dictionary.count == 1)
    }
}
