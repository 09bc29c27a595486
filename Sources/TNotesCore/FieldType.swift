/// The shape of one field, shared by record validation (store, wire) and RPC param validation.
public indirect enum FieldType: Sendable, Equatable {
    case string
    /// A string that must not be empty after trimming whitespace.
    case text
    case uuid
    /// An RFC 3339 time (or `YYYY-MM-DD`); normalized to the canonical millisecond UTC form.
    case time
    /// A number ≥ `min`.
    case number(min: Double)
    case integer(min: Int64, max: Int64)
    case bool
    case enumeration([String])
    /// Transcript segments: `[{start, end, text, speaker?}]`, a real array.
    case segments
    /// Audio metadata `{fileName, sizeBytes, sha256}`.
    case audio
    case arrayOf(FieldType)
    case object
    case any
    /// A publication's public id: a readable slug, a dash and 16 lowercase hex digits (64 random bits),
    /// e.g. `no-condemnation-3f9a0c1d2b4e5f60`; safe in a URL path as it is.
    case publicId

    /// A JSON-schema-ish description, used by `rpc.discover`.
    public var schema: JSON {
        switch self {
        case .string: return ["type": "string"]
        case .text: return ["type": "string", "minLength": 1]
        case .uuid: return ["type": "string", "format": "uuid"]
        case .time: return ["type": "string", "format": "date-time"]
        case .number(let min): return ["type": "number", "minimum": .double(min)]
        case .integer(let min, let max): return ["type": "integer", "minimum": .int(min), "maximum": .int(max)]
        case .bool: return ["type": "boolean"]
        case .enumeration(let values): return ["type": "string", "enum": .array(values.map { .string($0) })]
        case .segments:
            return [
                "type": "array",
                "items": [
                    "type": "object", "required": ["start", "end", "text"],
                    "properties": [
                        "start": ["type": "number"], "end": ["type": "number"], "text": ["type": "string"],
                        "speaker": ["type": ["string", "null"]],
                    ],
                ],
            ]
        case .audio:
            return [
                "type": "object", "required": ["fileName", "sizeBytes", "sha256"],
                "properties": [
                    "fileName": ["type": "string"], "sizeBytes": ["type": "integer"],
                    "sha256": ["type": "string", "pattern": "^[0-9a-f]{64}$"],
                ],
            ]
        case .arrayOf(let t): return ["type": "array", "items": t.schema]
        case .object: return ["type": "object"]
        case .any: return [:]
        case .publicId: return ["type": "string", "pattern": .string(PublicId.pattern)]
        }
    }
}

/// A field that failed validation: which one (a dotted path) and why.
public struct FieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: String
    public let reason: String
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
    public var description: String { "\(field): \(reason)" }

    /// The same error with its field placed under `parent` (`parent.field`, or `parent` itself when the
    /// error is about the value as a whole). Lets validators build dotted paths only when they fail.
    public func under(_ parent: String) -> FieldError {
        if parent.isEmpty { return self }
        if field.isEmpty { return FieldError(field: parent, reason: reason) }
        return FieldError(field: "\(parent).\(field)", reason: reason)
    }
}

/// The values of the records' enumerations, as text (for params and messages); the typed records' enums
/// hold them.
public enum StatusValues {
    public static let processing = ProcessingStatus.allCases.map(\.rawValue)
    public static let summaryTypes = Summary.Kind.allCases.map(\.rawValue)
    public static let chatRoles = ChatMessage.Role.allCases.map(\.rawValue)
}

extension FieldType {
    /// Checks `value` against this type and returns it normalized (canonical times, lowercase UUIDs).
    public func validate(_ value: JSON, field: String) throws(FieldError) -> JSON {
        func fail(_ reason: String) -> FieldError { FieldError(field: field, reason: reason) }
        switch self {
        case .any:
            return value
        case .string:
            guard case .string = value else { throw fail("must be a string, not \(value.typeName)") }
            return value
        case .text:
            guard case .string(let s) = value else { throw fail("must be a string, not \(value.typeName)") }
            guard s.contains(where: { !$0.isWhitespace }) else { throw fail("must not be empty") }
            return value
        case .uuid:
            guard case .string(let s) = value else { throw fail("must be a UUID string, not \(value.typeName)") }
            guard let id = Identifier.normalize(s) else { throw fail("must be a UUID") }
            return .string(id)
        case .time:
            guard case .string(let s) = value else { throw fail("must be an RFC 3339 time string, not \(value.typeName)") }
            guard let t = Timestamp.canonical(s) else { throw fail("must be an RFC 3339 time (or YYYY-MM-DD)") }
            return .string(t)
        case .number(let min):
            guard let d = value.doubleValue else { throw fail("must be a number, not \(value.typeName)") }
            guard d.isFinite else { throw fail("must be finite") }
            guard d >= min else { throw fail(min == 0 ? "must not be negative" : "must be at least \(min)") }
            return value
        case .integer(let min, let max):
            guard let i = value.int64Value else { throw fail("must be an integer, not \(value.typeName)") }
            guard i >= min, i <= max else { throw fail("must be between \(min) and \(max)") }
            return .int(i)
        case .bool:
            guard case .bool = value else { throw fail("must be a boolean, not \(value.typeName)") }
            return value
        case .enumeration(let values):
            guard case .string(let s) = value else { throw fail("must be a string, not \(value.typeName)") }
            guard values.contains(s) else { throw fail("must be one of \(values.joined(separator: ", "))") }
            return value
        case .segments:
            return try Self.validateSegments(value, field: field)
        case .audio:
            guard case .object(let o) = value else { throw fail("must be an object, not \(value.typeName)") }
            for key in o.keys where !["fileName", "sizeBytes", "sha256"].contains(key) {
                throw FieldError(field: "\(field).\(key)", reason: "unknown field")
            }
            let name = try FieldType.text.validate(o["fileName"] ?? .null, field: "\(field).fileName")
            let size = try FieldType.integer(min: 0, max: Int64.max).validate(o["sizeBytes"] ?? .null, field: "\(field).sizeBytes")
            guard case .string(let sha) = o["sha256"] ?? .null, Identifier.isSHA256Hex(sha) else {
                throw FieldError(field: "\(field).sha256", reason: "must be 64 lowercase hex digits")
            }
            return ["fileName": name, "sizeBytes": size, "sha256": .string(sha)]
        case .arrayOf(let t):
            guard case .array(let a) = value else { throw fail("must be an array, not \(value.typeName)") }
            var out = [JSON]()
            for (i, v) in a.enumerated() { out.append(try t.validate(v, field: "\(field)[\(i)]")) }
            return .array(out)
        case .object:
            guard case .object = value else { throw fail("must be an object, not \(value.typeName)") }
            return value
        case .publicId:
            guard case .string(let s) = value else { throw fail("must be a string, not \(value.typeName)") }
            guard PublicId.isValid(s) else { throw fail("must be a slug, a dash and 16 hex digits") }
            return value
        }
    }

    /// One segment; errors name fields relative to it ("" for the segment itself).
    private static func validateSegment(_ item: JSON) throws(FieldError) -> JSON {
        guard case .object(let o) = item else {
            throw FieldError(field: "", reason: "must be an object, not \(item.typeName)")
        }
        for key in o.keys where key != "start" && key != "end" && key != "text" && key != "speaker" {
            throw FieldError(field: key, reason: "unknown field")
        }
        let start = try FieldType.number(min: 0).validate(o["start"] ?? .null, field: "start")
        let end = try FieldType.number(min: 0).validate(o["end"] ?? .null, field: "end")
        guard end.doubleValue! >= start.doubleValue! else {
            throw FieldError(field: "end", reason: "must not be before start")
        }
        _ = try FieldType.string.validate(o["text"] ?? .null, field: "text")
        if let speaker = o["speaker"], !speaker.isNull {
            _ = try FieldType.string.validate(speaker, field: "speaker")
        } else if o["speaker"] != nil {
            // An explicit null speaker is the same as none.
            var o = o
            o["speaker"] = nil
            return .object(o)
        }
        return item
    }

    private static func validateSegments(_ value: JSON, field: String) throws(FieldError) -> JSON {
        // A JSON array encoded into a string is exactly the seed's double-encoding bug: refuse it.
        guard case .array(let items) = value else {
            let extra = value.stringValue != nil ? " (a JSON string holding an array is not accepted)" : ""
            throw FieldError(field: field, reason: "must be an array, not \(value.typeName)\(extra)")
        }
        // The given array itself while every segment is as given (the usual case), a copy from the first one
        // that is not: `RecordSchema.normalize` then sees the same storage back, and its check that the field
        // did not change is an identity check instead of comparing every segment. (`validateSegment` changes a
        // segment only by dropping an explicit null speaker, so one it kept has as many members as given.)
        var out: [JSON]?
        for (i, item) in items.enumerated() {
            do {
                let segment = try validateSegment(item)
                if out == nil, case .object(let given) = item, case .object(let checked) = segment,
                   given.count == checked.count { continue }
                if out == nil { out = Array(items[..<i]) }
                out!.append(segment)
            } catch {
                // Paths are built only for the error: a transcript has hundreds of segments.
                throw error.under("\(field)[\(i)]")
            }
        }
        return out.map { .array($0) } ?? value
    }
}
