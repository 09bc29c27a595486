/// A strict RFC 8259 parser. Foundation's JSONDecoder accepts things that are not JSON (trailing commas),
/// and decoding into an enum through it tries each type in turn; this parser is exact, bounded in depth
/// (so no input can exhaust the stack) and one pass.
struct JSONParser {
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0

    /// How many times the input differed from what `JSON.write` makes of the parsed value: whitespace, an
    /// escape the writer does not use, keys out of order (or repeated), a number not in its integer form. A
    /// value parsed while this did not move is written in the input as `JSON.text` writes it, byte for byte.
    private var nonCanonical = 0
    /// Looks for the record objects of a `{"changes": [{…, "record": {…}}, …]}` document (`parseChanges`).
    private let findRecords: Bool
    /// Parsing the value of the top-level object's "changes" member.
    private var inChanges = false
    /// The index in the "changes" array of the element being parsed; -1 outside that array.
    private var changeIndex = -1
    /// By change index: where the change's record object is, when its text is canonical.
    private var recordSpans: [Int: Range<Int>] = [:]
    /// The bytes between the quotes of the string parsed last, when it had no escape (a key's order is
    /// checked on them).
    private var lastStringRaw: Range<Int>?

    private init(_ bytes: UnsafeBufferPointer<UInt8>, findRecords: Bool = false) {
        self.bytes = bytes
        self.findRecords = findRecords
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSON {
        var p = JSONParser(bytes)
        return try p.parseDocument()
    }

    /// Parses a document and finds, by change index, each change's record object whose text is canonical.
    static func parseChanges(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> (JSON, [Int: Range<Int>]) {
        var p = JSONParser(bytes, findRecords: true)
        let value = try p.parseDocument()
        return (value, p.recordSpans)
    }

    private mutating func parseDocument() throws(JSONParseError) -> JSON {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard i == bytes.count else { throw error("unexpected data after the JSON value") }
        return value
    }

    private func error(_ what: String) -> JSONParseError {
        JSONParseError(description: "\(what) at byte \(i)")
    }

    private mutating func skipWhitespace() {
        let start = i
        defer { if i != start { nonCanonical &+= 1 } }
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    /// Whether the bytes of `a` sort strictly before those of `b` (the writer's key order: by UTF-8 bytes).
    private func precedes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        var x = a.lowerBound, y = b.lowerBound
        while x < a.upperBound && y < b.upperBound {
            if bytes[x] != bytes[y] { return bytes[x] < bytes[y] }
            x += 1
            y += 1
        }
        return a.count < b.count
    }

    private mutating func parseValue() throws(JSONParseError) -> JSON {
        guard i < bytes.count else { throw error("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expect(_ word: StaticString) throws(JSONParseError) {
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard i + w.count <= bytes.count else { throw error("unexpected end of input") }
        for k in 0..<w.count where bytes[i + k] != w[k] { throw error("invalid literal") }
        i += w.count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth)") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSON {
        try enter()
        i += 1
        var object = [JSONObject.Element]()
        object.reserveCapacity(12)
        skipWhitespace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(JSONObject())
        }
        // Whether the keys came strictly ascending so far: then the members are already in the object's order.
        var sorted = true
        var previousKey: Range<Int>?
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            if let raw = lastStringRaw {
                if let previousKey, !precedes(previousKey, raw) {
                    nonCanonical &+= 1
                    sorted = false
                }
            } else {
                nonCanonical &+= 1
                sorted = false
            }
            previousKey = lastStringRaw
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipWhitespace()
            // A repeated key keeps its last value (below), so what was found under an earlier one is dropped
            // first: a record's text must never outlive the value it was found for.
            if findRecords && depth == 1 {
                inChanges = key == "changes"
                if inChanges { recordSpans = [:] }
                object.append((key, try parseValue()))
                inChanges = false
            } else if findRecords && depth == 3 && changeIndex >= 0 && key == "record" {
                recordSpans[changeIndex] = nil
                let start = i, before = nonCanonical
                object.append((key, try parseValue()))
                if nonCanonical == before && bytes[start] == UInt8(ascii: "{") { recordSpans[changeIndex] = start..<i }
            } else {
                object.append((key, try parseValue()))
            }
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw error("expected ',' or '}'")
        }
        depth -= 1
        return .object(JSONObject(parsed: object, sorted: sorted))
    }

    private mutating func parseArray() throws(JSONParseError) -> JSON {
        try enter()
        i += 1
        var array = [JSON]()
        skipWhitespace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(array)
        }
        let isChanges = findRecords && inChanges && depth == 2
        while true {
            skipWhitespace()
            if isChanges { changeIndex = array.count }
            array.append(try parseValue())
            if isChanges { changeIndex = -1 }
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw error("expected ',' or ']'")
        }
        depth -= 1
        return .array(array)
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes.
        var high: UInt8 = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<i])
                lastStringRaw = start..<i
                i += 1
                // All ASCII (the usual case) is valid UTF-8 as it stands: skip the generic validator.
                if high < 0x80 { return String(decoding: raw, as: UTF8.self) }
                guard let s = String(validating: raw, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in a string") }
            high |= c
            i += 1
        }
        lastStringRaw = nil
        var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                return s
            }
            if c < 0x20 { throw error("control character in a string") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { break }
            let e = bytes[i]
            i += 1
            // The writer escapes only `"`, `\\`, newline, return and tab this way; any other escape here
            // (`\\/`, `\\b`, `\\f`, `\\u…`) is text it writes otherwise.
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F); nonCanonical &+= 1
            case UInt8(ascii: "b"): out.append(0x08); nonCanonical &+= 1
            case UInt8(ascii: "f"): out.append(0x0C); nonCanonical &+= 1
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                nonCanonical &+= 1
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate")
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                throw error("invalid escape")
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSON {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count else { throw error("invalid number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else if (49...57).contains(bytes[i]) {
            while i < bytes.count, (48...57).contains(bytes[i]) { i += 1 }
        } else {
            throw error("invalid number")
        }
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < bytes.count, (48...57).contains(bytes[i]) else { throw error("invalid number") }
            while i < bytes.count, (48...57).contains(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, (48...57).contains(bytes[i]) else { throw error("invalid number") }
            while i < bytes.count, (48...57).contains(bytes[i]) { i += 1 }
        }
        // The writer prints an integer without a sign for zero ("-0" is 0), and any other number as Swift's
        // shortest description of the double: anything else is not its text.
        let negative = bytes[start] == UInt8(ascii: "-")
        if negative && i - start == 2 && bytes[start + 1] == UInt8(ascii: "0") { nonCanonical &+= 1 }
        if isInteger && i - start <= 18 {
            // Up to 18 characters cannot overflow an Int64: read the digits directly, no text in between.
            var v: Int64 = 0
            for k in (negative ? start + 1 : start)..<i { v = v * 10 + Int64(bytes[k] - 48) }
            return .int(negative ? -v : v)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if isInteger, let v = Int64(text) { return .int(v) }
        guard let d = Double(text), d.isFinite else { throw error("number out of range") }
        // An integral value the writer prints as an integer (`1.0`, `1e2`, `0e5`) is that integer: one
        // value, one representation, so what is parsed equals what is parsed back from its own text.
        if d == d.rounded() && abs(d) < 1e15 {
            nonCanonical &+= 1
            return .int(Int64(d))
        }
        if "\(d)" != text { nonCanonical &+= 1 }
        return .double(d)
    }
}
