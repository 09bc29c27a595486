#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value. Records, RPC params and results, and wire bodies are all this one type, so that what
/// the store keeps, what the outbox queues and what goes over the wire are encoded by the same code.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)
    /// Canonical JSON text that is written out as it is, never parsed: a stored record body spliced into
    /// a reply (so a read does not parse and re-encode what the store already holds canonically). Only
    /// ever built from text this program encoded itself, and only in values that are about to be written;
    /// the accessors below see it as nothing (nil).
    case raw(String)
}

extension JSON {
    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a } else { return nil } }
    public var int64Value: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] } else { return nil }
    }

    /// The JSON type name used in error messages ("a string", "an object", ...).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        case .raw(let text): return (try? JSON.parse(text))?.typeName ?? "raw JSON"
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(JSONObject(elements))
    }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSON {
    public init(_ s: String?) { self = s.map { .string($0) } ?? .null }
    public init(_ i: Int) { self = .int(Int64(i)) }
}

// MARK: - Decodable (for use inside Codable types; parsing text goes through JSONParser)

extension JSON: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let i = try? c.decode(Int64.self) { self = .int(i); return }
        if let d = try? c.decode(Double.self) { self = .double(d); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let a = try? c.decode([JSON].self) { self = .array(a); return }
        if let o = try? c.decode(JSONObject.self) { self = .object(o); return }
        throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value")
    }
}

public struct JSONParseError: Error, CustomStringConvertible {
    public let description: String
}

extension JSON {
    /// Parses one JSON text, strictly (RFC 8259): invalid UTF-8, trailing commas, trailing garbage and
    /// anything else that is not JSON throw.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) throws -> JSON where Bytes.Element == UInt8 {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer throws(JSONParseError) in
            try JSONParser.parse(buffer)
        }) {
            return result
        }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(JSONParseError) in try JSONParser.parse(buffer) }
    }

    public static func parse(_ text: String) throws -> JSON { try parse(Array(text.utf8)) }

    /// Parses a `{"changes": [{…, "record": {…}}, …], …}` document (a push body, a pull or snapshot page) as
    /// `parse` does, and also gives, by change index, the text of each change's record object that the input
    /// wrote canonically (byte for byte what `JSON.text` writes of it). A record that normalizing leaves as
    /// given is then stored as it came, not written out again: that writing was 7-9 % of the server's push
    /// and of the pulling device's CPU in a 1× sync.
    public static func parseChanges<Bytes: Collection>(_ bytes: Bytes) throws -> (json: JSON, recordTexts: [Int: String])
    where Bytes.Element == UInt8 {
        func run(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> (json: JSON, recordTexts: [Int: String]) {
            let (json, spans) = try JSONParser.parseChanges(buffer)
            // The parser checked every string's UTF-8, and the rest of a record's text is ASCII.
            let texts = spans.mapValues { String(decoding: UnsafeBufferPointer(rebasing: buffer[$0]), as: UTF8.self) }
            return (json, texts)
        }
        if let result = try bytes.withContiguousStorageIfAvailable(run) { return result }
        return try Array(bytes).withUnsafeBufferPointer(run)
    }

}

// MARK: - Encoding (hand-rolled: it is on every hot path and must be canonical: sorted keys, no spaces)

extension JSON: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        case .raw(let text): try c.encode(try JSON.parse(text))
        }
    }
}

extension JSON {
    /// Canonical compact text: keys sorted, no insignificant whitespace, never a newline.
    public var text: String {
        var out = [UInt8]()
        out.reserveCapacity(256)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): Self.writeInt(i, to: &out)
        case .double(let d):
            if d.isFinite {
                if d == d.rounded() && abs(d) < 1e15 {
                    out.append(contentsOf: String(Int64(d)).utf8)
                } else {
                    out.append(contentsOf: "\(d)".utf8)
                }
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let s): Self.writeString(s, to: &out)
        case .raw(let text): out.append(contentsOf: text.utf8)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            // An object's members are kept in canonical order (UTF-8 byte order of the keys): nothing to sort.
            var first = true
            for (key, value) in o {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Decimal digits straight into the buffer (no intermediate String per number).
    static func writeInt(_ i: Int64, to out: inout [UInt8]) {
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var v = i.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(48 + v % 10))
            v /= 10
        } while v > 0
        out[start...].reverse()
    }


    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied at once.
            var runStart = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") { continue }
                if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                runStart = i + 1
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(b)
                case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
                default:
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(Hex.digits[Int(b >> 4)])
                    out.append(Hex.digits[Int(b & 0xF)])
                }
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        out.append(UInt8(ascii: "\""))
    }
}
