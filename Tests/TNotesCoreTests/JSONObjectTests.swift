import TNotesCore
import TNotesTestSupport
import Testing

/// `JSONObject` against `Dictionary` as the model: the same members after any sequence of inserts, updates and
/// removals, small (compared key by key) and large (binary search), and always in canonical key order.
struct JSONObjectTests {
    /// Keys that sort differently by UTF-8 bytes than by `String`'s `<` would not be caught by ASCII alone.
    static let alphabet: [String] = ["a", "b", "A", "Z", "_", "é", "ß", "日", "😀", "aa", "a\u{301}", "\u{E9}"]

    static func key(_ rng: inout SeededRNG, spread: Int) -> String {
        let n = Int.random(in: 1...3, using: &rng)
        return (0..<n).map { _ in alphabet[Int.random(in: 0..<min(spread, alphabet.count), using: &rng)] }.joined()
            + String(Int.random(in: 0..<spread, using: &rng))
    }

    static func isCanonical(_ o: JSONObject) -> Bool {
        zip(o.keys, o.keys.dropFirst()).allSatisfy { a, b in Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }
    }

    @Test("random inserts, updates and removals match a Dictionary, small and large", arguments: [4, 12, 40, 400])
    func matchesDictionary(spread: Int) {
        var rng = SeededRNG(seed: UInt64(spread))
        var model = [String: JSON]()
        var o = JSONObject()
        for step in 0..<3_000 {
            let k = Self.key(&rng, spread: spread)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                #expect(o.removeValue(forKey: k) == model.removeValue(forKey: k))
            case 1:
                #expect(o[k] == model[k])
                o[k] = .int(Int64(step))
                model[k] = .int(Int64(step))
            case 2:
                o[k] = nil
                model[k] = nil
            default:
                o[k] = .string(k)
                model[k] = .string(k)
            }
            #expect(o[k] == model[k])
        }
        #expect(o.count == model.count)
        for (k, v) in model { #expect(o[k] == v, "key \(k)") }
        #expect(Self.isCanonical(o))
        #expect(o == JSONObject(model))
        #expect(o.dictionary == model)
    }

    @Test("a repeated key keeps its last value, whether parsed or built from pairs")
    func repeatedKeyKeepsLast() throws {
        let parsed = try JSON.parse(#"{"b":1,"a":2,"b":3,"a":4,"c":5}"#)
        #expect(parsed.text == #"{"a":4,"b":3,"c":5}"#)
        let built = JSONObject([("x", 1), ("y", 2), ("x", 3)] as [(String, JSON)])
        #expect(built["x"] == 3 && built.count == 2)
        let literal: JSON = ["k": 1, "k": 2]
        #expect(literal["k"] == 2)
    }

    @Test("keys are their bytes: canonically equivalent but different keys are two members, in byte order")
    func keysAreBytes() throws {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        #expect(composed == decomposed)  // String's own equality
        let parsed = try JSON.parse("{\"\(composed)\":1,\"\(decomposed)\":2}")
        guard case .object(let o) = parsed else { Issue.record("not an object"); return }
        #expect(o.count == 2)
        #expect(o[composed] == 1 && o[decomposed] == 2)
        #expect(o.keys.map { Array($0.utf8) } == [Array(decomposed.utf8), Array(composed.utf8)])
        // Written back in byte order ("e" 0x65 before 0xC3), and read again the same.
        #expect(try JSON.parse(parsed.text) == parsed)
        var big = JSONObject()
        for k in 0..<40 { big["k\(k)"] = .int(Int64(k)) }
        big[composed] = 1
        big[decomposed] = 2
        #expect(big.count == 42 && big[composed] == 1 && big[decomposed] == 2)
    }

    @Test("equal and equally hashed whatever order the members came in")
    func orderFreeEquality() throws {
        let a = try JSON.parse(#"{"z":1,"m":{"q":[1,{"b":2,"a":1}]},"a":null}"#)
        let b = try JSON.parse(#"{"a":null,"m":{"q":[1,{"a":1,"b":2}]},"z":1}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        #expect(a != (try JSON.parse(#"{"a":null,"m":{"q":[1,{"a":1,"b":3}]},"z":1}"#)))
    }

    @Test("merge, filter and mapValues keep the order and Dictionary's meaning")
    func derivedObjects() {
        var o: JSONObject = ["c": 3, "a": 1]
        o.merge(["b": 2, "c": 30]) { old, new in new }
        #expect(Array(o.keys) == ["a", "b", "c"] && o["c"] == 30)
        #expect(Array(o.filter { $0.key != "b" }.keys) == ["a", "c"])
        #expect(o.mapValues { .int(($0.int64Value ?? 0) * 2) }["b"] == 4)
        o.merge(["a": 9]) { old, _ in old }
        #expect(o["a"] == 1)
    }

    @Test("an object of many keys in reverse order parses in n log n and looks up by binary search")
    func manyKeys() throws {
        let n = 50_000
        let text = "{" + (0..<n).reversed().map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let v = try JSON.parse(text)
        guard case .object(let o) = v else { Issue.record("not an object"); return }
        #expect(o.count == n)
        for k in stride(from: 0, to: n, by: 997) { #expect(o["k\(k)"] == .int(Int64(k))) }
        #expect(o["k\(n)"] == nil)
        #expect(Self.isCanonical(o))
    }
}
