import Testing
import TNotesCore
import TNotesTestSupport

@Suite struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let v = try JSON.parse(#"{"a":null,"b":true,"c":false,"d":42,"e":-1.5,"f":"x","g":[1,"2",[]],"h":{}}"#)
        #expect(v == .object([
            "a": .null, "b": .bool(true), "c": .bool(false), "d": .int(42), "e": .double(-1.5), "f": .string("x"),
            "g": .array([.int(1), .string("2"), .array([])]), "h": .object([:]),
        ]))
    }

    @Test func numbersAreNotBooleans() throws {
        #expect(try JSON.parse("[1,0,true,false]") == .array([.int(1), .int(0), .bool(true), .bool(false)]))
    }

    @Test func integerLimits() throws {
        #expect(try JSON.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSON.parse("-9223372036854775808") == .int(Int64.min))
        // One past Int64.max is still a number, just not an integer.
        #expect(try JSON.parse("9223372036854775808").doubleValue == 9_223_372_036_854_775_808.0)
    }

    @Test(arguments: [0.1, 120.5, -3.25, 1e-7, 1e20, 845.25, 12345.678, -0.001])
    func doublesRoundTripThroughText(_ d: Double) throws {
        let text = JSON.double(d).text
        #expect(try JSON.parse(text).doubleValue == d, "\(d) → \(text)")
    }

    @Test func integralDoublesPrintAsIntegers() {
        #expect(JSON.double(300).text == "300")
        #expect(JSON.double(-2).text == "-2")
    }

    /// Found by the push fuzzer: `"end": 0e0162` parsed as a double, printed as `0`, and parsed back as an
    /// integer, so a decoded change did not equal the change read back from its own text. An integral
    /// number the writer prints as an integer now parses as that integer, whatever its spelling.
    @Test func integralNumbersHaveOneRepresentation() throws {
        for text in ["1.0", "1e0", "1E+0", "10e-1", "0.0", "-0.0", "0e0162", "1e-400", "100000000000000.0"] {
            let v = try JSON.parse(text)
            #expect(v == (try JSON.parse(v.text)), "\(text) → \(v) → \(v.text)")
            #expect(v.int64Value != nil && v == .int(v.int64Value!), "\(text) → \(v)")
        }
        // Not integral, or too large to print as an integer: stays a double, and round-trips as one.
        for text in ["0.5", "1e15", "1e300", "-2.25"] {
            let v = try JSON.parse(text)
            guard case .double = v else { Issue.record("\(text) → \(v)"); continue }
            #expect(v == (try JSON.parse(v.text)), "\(text) → \(v.text)")
        }
        let change = try JSON.parse(#"{"segments":[{"start":0,"end":2.0e0,"text":"y"}]}"#)
        #expect(change == (try JSON.parse(change.text)))
    }

    @Test func canonicalTextSortsKeysWithoutWhitespace() throws {
        let v = try JSON.parse(" { \"b\" : 1 ,\n \"a\" : { \"z\" : [ 1 , 2 ] , \"y\" : null } , \"A\" : \"\" } ")
        #expect(v.text == #"{"A":"","a":{"y":null,"z":[1,2]},"b":1}"#)
        #expect(String(decoding: v.bytes, as: UTF8.self) == v.text)
    }

    @Test func canonicalTextIsIndependentOfInsertionOrder() {
        var rng = SeededRNG(seed: 7)
        let keys = (0..<20).map { "k\($0)" }
        let reference = JSON.object(JSONObject(keys.map { ($0, JSON.string($0)) })).text
        for _ in 0..<50 {
            var o = JSONObject()
            for k in keys.shuffled(using: &rng) { o[k] = .string(k) }
            #expect(JSON.object(o).text == reference)
        }
    }

    @Test func escapes() {
        #expect(JSON.string("say \"hi\"").text == #""say \"hi\"""#)
        #expect(JSON.string(#"back\slash"#).text == #""back\\slash""#)
        #expect(JSON.string("a\nb\rc\td").text == #""a\nb\rc\td""#)
        #expect(JSON.string("/").text == #""/""#)
    }

    @Test func controlCharactersAreEscapedAndTextHasNoNewline() throws {
        for b in UInt8(0)..<0x20 {
            let s = String(decoding: [UInt8(ascii: "x"), b, UInt8(ascii: "y")], as: UTF8.self)
            let text = JSON.string(s).text
            #expect(!text.utf8.contains(where: { $0 < 0x20 }), "byte \(b) written raw")
            #expect(try JSON.parse(text) == .string(s), "byte \(b) does not round-trip")
        }
        #expect(JSON.string("\u{01}\u{1f}").text == #""\u0001\u001f""#)
        let nested = JSON.object(["k\n": .array([.string("line1\nline2")])])
        #expect(!nested.text.contains("\n"))
    }

    @Test func unicodeIsWrittenAsRawUTF8() throws {
        #expect(JSON.string("é😀χάρις").text == "\"é😀χάρις\"")
        #expect(try JSON.parse(#""\u00e9""#) == .string("é"))
        #expect(try JSON.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSON.parse(#""\ud83d\ude00""#).text == "\"😀\"")
        #expect(try JSON.parse(Array("\"Müller\"".utf8)) == .string("Müller"))
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22],                    // 0xFF never appears in UTF-8
        [0x22, 0xC0, 0xAF, 0x22],              // overlong "/"
        [0x22, 0xED, 0xA0, 0x80, 0x22],        // an encoded surrogate
        [0x22, 0xE2, 0x82, 0x22],              // truncated sequence
        [0x7B, 0x22, 0x80, 0x22, 0x3A, 0x31, 0x7D],  // stray continuation byte in a key
    ] as [[UInt8]])
    func invalidUTF8IsRejected(_ bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSON.parse(bytes) }
    }

    @Test(arguments: ["", " ", "nul", "{} x", "[1,]", "{\"a\":1,}", "\"unterminated", "{'a':1}", "[1 2]", "01", "NaN"])
    func invalidTextIsRejected(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
    }

    @Test func randomValuesRoundTrip() throws {
        var rng = SeededRNG(seed: 0x7E57)
        let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\u{01}", "\u{7f}", "é", "😀", "/", "χ", "\u{1f}"]
        func string() -> String {
            (0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
        }
        func value(_ depth: Int) -> JSON {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &rng) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2: return .int(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &rng))
            case 3: return .double(Double(Int.random(in: -100_000...100_000, using: &rng)) + 0.25)
            case 4: return .string(string())
            case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(depth + 1) })
            default:
                var o = JSONObject()
                for _ in 0..<Int.random(in: 0...4, using: &rng) { o[string()] = value(depth + 1) }
                return .object(o)
            }
        }
        for _ in 0..<2000 {
            let v = value(0)
            let text = v.text
            let back = try JSON.parse(text)
            #expect(back == v, "\(text)")
            #expect(back.text == text)
        }
    }

    @Test func accessors() throws {
        let v = try JSON.parse(#"{"s":"x","n":3,"d":2.5,"b":true,"a":[1],"o":{"k":null}}"#)
        #expect(v["s"]?.stringValue == "x")
        #expect(v["n"]?.int64Value == 3)
        #expect(v["d"]?.int64Value == nil)
        #expect(v["d"]?.doubleValue == 2.5)
        #expect(v["b"]?.boolValue == true)
        #expect(v["a"]?.arrayValue == [.int(1)])
        #expect(v["o"]?["k"]?.isNull == true)
        #expect(v["missing"] == nil)
    }
}
