/// One field of a record shape: its wire name and schema (`RecordSchema.Field`), and how its typed value is
/// read from and written to JSON through its key path.
public struct RecordField<Record: RecordShape>: Sendable {
    public let schema: RecordSchema.Field
    public var name: String { schema.name }
    /// The typed value's key path (`LenientRecord` finds a field by it).
    public let keyPath: any PartialKeyPath<Record> & Sendable
    /// Sets the field from a present value (`lenient`: reading what can be read); false when it cannot.
    let set: @Sendable (inout Record, JSON, _ lenient: Bool) -> Bool
    /// Sets the field as it is when absent (its default; nil when optional); false when it is required.
    let setAbsent: @Sendable (inout Record) -> Bool
    /// The field's JSON; nil when it is left out (an optional field that is absent).
    let get: @Sendable (Record) -> JSON?

    /// A field every record has.
    public static func required<V: FieldValue>(_ name: String, _ type: FieldType,
                                               _ keyPath: any WritableKeyPath<Record, V> & Sendable) -> RecordField {
        RecordField(schema: .init(name, type), keyPath: keyPath,
                    set: { r, json, lenient in assign(&r, keyPath, json, lenient) },
                    setAbsent: { _ in false },
                    get: { $0[keyPath: keyPath].fieldJSON })
    }

    /// A field filled in when absent with the value it has in `Record()`: a default is written once, where
    /// the property is declared.
    public static func defaulted<V: FieldValue>(_ name: String, _ type: FieldType,
                                                _ keyPath: any WritableKeyPath<Record, V> & Sendable) -> RecordField {
        let value = Record()[keyPath: keyPath]
        return RecordField(schema: .init(name, type, default: value.fieldJSON), keyPath: keyPath,
                    set: { r, json, lenient in assign(&r, keyPath, json, lenient) },
                    setAbsent: { r in r[keyPath: keyPath] = value; return true },
                    get: { $0[keyPath: keyPath].fieldJSON })
    }

    /// A field that may be null (nil), and is null when absent.
    public static func nullable<V: FieldValue>(_ name: String, _ type: FieldType,
                                               _ keyPath: any WritableKeyPath<Record, V?> & Sendable) -> RecordField {
        RecordField(schema: .init(name, type, nullable: true, default: .null), keyPath: keyPath,
                    set: { r, json, lenient in assign(&r, keyPath, json, lenient) },
                    setAbsent: { r in r[keyPath: keyPath] = nil; return true },
                    get: { $0[keyPath: keyPath].fieldJSON })
    }

    /// A field that absent stays absent (nil), never filled in: one added after records were stored and
    /// synced, whose old bodies must stay byte for byte what they were. `nullable`: it may also be null. With
    /// a `V` that is itself optional (`String??`), null is kept as `.some(nil)`, apart from absent; otherwise
    /// null reads as absent (a segment's `speaker`, whose null the schema drops).
    public static func optional<V: FieldValue>(_ name: String, _ type: FieldType,
                                               _ keyPath: any WritableKeyPath<Record, V?> & Sendable,
                                               nullable: Bool = false) -> RecordField {
        RecordField(schema: .init(name, type, nullable: nullable, optional: true), keyPath: keyPath,
                    set: { r, json, lenient in
                        if let v = lenient ? V.decodeFieldLeniently(json) : V.decodeField(json) {
                            r[keyPath: keyPath] = v
                            return true
                        }
                        guard nullable, json.isNull else { return false }
                        r[keyPath: keyPath] = nil
                        return true
                    },
                    setAbsent: { r in r[keyPath: keyPath] = nil; return true },
                    get: { $0[keyPath: keyPath]?.fieldJSON })
    }

    private static func assign<V: FieldValue>(_ r: inout Record, _ keyPath: WritableKeyPath<Record, V>, _ json: JSON,
                                              _ lenient: Bool) -> Bool {
        guard let v = lenient ? V.decodeFieldLeniently(json) : V.decodeField(json) else { return false }
        r[keyPath: keyPath] = v
        return true
    }
}

extension RecordField {
    /// The schema of `Other`'s field at `source`. A key path that names no field is a programming error of
    /// the caller (every caller's key path is a constant, seen by the first test that runs it).
    private static func schema<Other: RecordShape>(of source: PartialKeyPath<Other>) -> RecordSchema.Field {
        guard let field = Other.field(source) else { preconditionFailure("\(Other.self): \(source) is not a field") }
        return field.schema
    }

    /// A required field that is `Other`'s field at `source`, under its name and of its type: a method's param
    /// that is a record's field is declared by pointing at it, not by writing its name and type again.
    public static func same<Other: RecordShape, V: FieldValue>(as other: Other.Type, _ source: KeyPath<Other, V>,
                                                               _ keyPath: any WritableKeyPath<Record, V> & Sendable) -> RecordField {
        let f = schema(of: source as PartialKeyPath<Other>)
        return .required(f.name, f.type, keyPath)
    }

    /// A required field that is `Other`'s optional field at `source` (an event that always has what a status
    /// may leave out).
    public static func same<Other: RecordShape, V: FieldValue>(as other: Other.Type, _ source: KeyPath<Other, V?>,
                                                               _ keyPath: any WritableKeyPath<Record, V> & Sendable) -> RecordField {
        let f = schema(of: source as PartialKeyPath<Other>)
        return .required(f.name, f.type, keyPath)
    }

    /// An optional field (absent stays absent) that is `Other`'s field at `source`; null is allowed where
    /// `Other`'s field allows it.
    public static func same<Other: RecordShape, V: FieldValue>(as other: Other.Type, _ source: KeyPath<Other, V>,
                                                               optional keyPath: any WritableKeyPath<Record, V?> & Sendable) -> RecordField {
        let f = schema(of: source as PartialKeyPath<Other>)
        return .optional(f.name, f.type, keyPath, nullable: f.nullable)
    }

    /// An optional field (absent stays absent) that is `Other`'s optional field at `source`.
    public static func same<Other: RecordShape, V: FieldValue>(as other: Other.Type, _ source: KeyPath<Other, V?>,
                                                               optional keyPath: any WritableKeyPath<Record, V?> & Sendable) -> RecordField {
        let f = schema(of: source as PartialKeyPath<Other>)
        return .optional(f.name, f.type, keyPath, nullable: f.nullable)
    }
}

// MARK: Fields of JSON as it is

/// A record's member by its field's key path, for code that passes records through as JSON (the sync path,
/// a body kept as stored, a fuzzer's hostile values): the name is the descriptor's, so a renamed field is a
/// compile error here too.
extension JSONObject {
    public subscript<R: RecordShape, V>(field keyPath: KeyPath<R, V>) -> JSON? {
        get { self[R.name(keyPath)] }
        set { self[R.name(keyPath)] = newValue }
    }
}

extension JSON {
    /// The member at a field of an object; nil when this is not an object or has no such member.
    public subscript<R: RecordShape, V>(field keyPath: KeyPath<R, V>) -> JSON? {
        objectValue?[R.name(keyPath)]
    }
}
