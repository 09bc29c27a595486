/// The fields of each collection's record, as stored, queued and sent.
///
/// `normalize` is the single gate every record passes through, whether it came from an RPC call, from the
/// outbox or from the wire: unknown fields, missing fields and wrong types are refused with the field
/// named; defaults are filled in; times and ids are made canonical.
public struct RecordSchema: Sendable {
    public struct Field: Sendable {
        public let name: String
        public let type: FieldType
        public let nullable: Bool
        /// Used when the field is absent; nil means the field is required.
        public let defaultValue: JSON?
        /// Absent stays absent: a field added after records were stored and synced, so that the bodies of
        /// old records and old clients stay byte for byte what they were (no default is written into them).
        public let optional: Bool

        public init(_ name: String, _ type: FieldType, nullable: Bool = false, default defaultValue: JSON? = nil,
                    optional: Bool = false) {
            self.name = name
            self.type = type
            self.nullable = nullable
            self.defaultValue = defaultValue
            self.optional = optional
        }
    }

    public let collection: RecordCollection
    public let fields: [Field]
    /// The fields' names: a record's every key is checked against them.
    private let names: Set<String>

    init(collection: RecordCollection, fields: [Field]) {
        self.collection = collection
        self.fields = fields
        names = Set(fields.map(\.name))
    }

    public static func of(_ collection: RecordCollection) -> RecordSchema {
        switch collection {
        case .sermons: return sermons
        case .notes: return notes
        case .transcripts: return transcripts
        case .summaries: return summaries
        case .chatMessages: return chatMessages
        case .conflicts: return conflicts
        case .publications: return publications
        }
    }

    // Each collection's fields come from its typed record (Sources/TNotesCore/Records): a field's name, type,
    // nullability and default are written once, in its descriptor, beside the Swift value that holds it.
    public static let sermons = RecordSchema(collection: .sermons, fields: Sermon.fields.map(\.schema))
    public static let notes = RecordSchema(collection: .notes, fields: Note.fields.map(\.schema))
    public static let transcripts = RecordSchema(collection: .transcripts, fields: Transcript.fields.map(\.schema))
    public static let summaries = RecordSchema(collection: .summaries, fields: Summary.fields.map(\.schema))
    public static let conflicts = RecordSchema(collection: .conflicts, fields: Conflict.fields.map(\.schema))
    public static let publications = RecordSchema(collection: .publications, fields: Publication.fields.map(\.schema))
    public static let chatMessages = RecordSchema(collection: .chatMessages, fields: ChatMessage.fields.map(\.schema))

    /// What may be published of a sermon.
    public static let publicationParts = Publication.Part.allCases.map(\.rawValue)

    /// Validates and normalizes a record. `path` prefixes field names in errors (e.g. "record").
    public func normalize(_ value: JSON, path: String = "") throws(FieldError) -> JSONObject {
        var unchanged = true
        return try normalize(value, path: path, unchanged: &unchanged)
    }

    /// As `normalize(_:path:)`; `unchanged` is set to whether the record came back as it was given (no
    /// default added, no value rewritten).
    public func normalize(_ value: JSON, path: String = "", unchanged: inout Bool) throws(FieldError) -> JSONObject {
        func name(_ f: String) -> String { path.isEmpty ? f : "\(path).\(f)" }
        guard case .object(let input) = value else {
            throw FieldError(field: path.isEmpty ? "record" : path, reason: "must be an object, not \(value.typeName)")
        }
        // Every key must be a field of the schema, and an unknown one is named before any other error. Checked
        // by counting the fields the loop below finds (each is one of the keys): fewer found than given means an
        // unknown key, looked for only then. A set look-up per key hashed every key a second time.
        func unknownKey() -> FieldError? {
            input.keys.first { !names.contains($0) }.map { FieldError(field: name($0), reason: "unknown field") }
        }
        // The input itself while every field is as its normalized form (the usual case: a record this product
        // wrote): a record pulled or pushed was rebuilt key by key, a new dictionary per record, which with
        // its hashing was most of this function's time in a 1× sync. A copy from the first field that differs.
        var out: JSONObject?
        var found = 0
        do throws(FieldError) {
            for field in fields {
                let given = input[field.name]
                let normalized: JSON
                if let v = given {
                    found += 1
                    if v.isNull {
                        guard field.nullable else { throw FieldError(field: name(field.name), reason: "must not be null") }
                        normalized = .null
                    } else {
                        do {
                            normalized = try field.type.validate(v, field: field.name)
                        } catch {
                            // The dotted path is built only on failure (this loop runs for every field of every record).
                            throw error.under(path)
                        }
                    }
                } else {
                    if field.optional { continue }
                    guard let d = field.defaultValue else { throw FieldError(field: name(field.name), reason: "is required") }
                    normalized = d
                }
                // Values validate returns unchanged share their storage, so this is an identity check for them.
                if out == nil, given == normalized { continue }
                if out == nil { out = input }
                out![field.name] = normalized
            }
        } catch {
            throw unknownKey() ?? error
        }
        if found != input.count, let unknown = unknownKey() { throw unknown }
        unchanged = out == nil
        return out ?? input
    }
}

/// Convenience views of a normalized record.
extension JSONObject {
    public var recordId: String { self["id"]?.stringValue ?? "" }
    public var sermonId: String? { self["sermonId"]?.stringValue }
    public var updatedAt: String { self["updatedAt"]?.stringValue ?? self["createdAt"]?.stringValue ?? "" }
    public var deletedAt: String? { self["deletedAt"]?.stringValue }
}
