/// A strict RFC 8259 parser. Foundation's JSONDecoder accepts things that are not JSON (trailing commas),
/// and decoding into an enum through it tries each type in turn; this parser is exact, bounded in depth
/// (so no input can exhaust the stack) and one pass.
struct JSONParser {
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSON {
        var p = JSONParser(bytes)
        p.skipWhitespace()
        let value = try p.parseValue()
        p.skipWhitespace()
        guard p.i == bytes.count else { throw p.error("unexpected data after the JSON value") }
        return value
    }

    private func error(_ what: String) -> JSONParseError {
        JSONParseError(description: "\(what) at byte \(i)")
    }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
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
        var object = [String: JSON](minimumCapacity: 12)
        skipWhitespace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw error("expected ',' or '}'")
        }
        depth -= 1
        return .object(object)
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
        while true {
            skipWhitespace()
            array.append(try parseValue())
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
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
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
        if isInteger && i - start <= 18 {
            // Up to 18 characters cannot overflow an Int64: read the digits directly, no text in between.
            var v: Int64 = 0
            let negative = bytes[start] == UInt8(ascii: "-")
            for k in (negative ? start + 1 : start)..<i { v = v * 10 + Int64(bytes[k] - 48) }
            return .int(negative ? -v : v)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if isInteger, let v = Int64(text) { return .int(v) }
        guard let d = Double(text), d.isFinite else { throw error("number out of range") }
        // An integral value the writer prints as an integer (`1.0`, `1e2`, `0e5`) is that integer: one
        // value, one representation, so what is parsed equals what is parsed back from its own text.
        if d == d.rounded() && abs(d) < 1e15 { return .int(Int64(d)) }
        return .double(d)
    }
}
