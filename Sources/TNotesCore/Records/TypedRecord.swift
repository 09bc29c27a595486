import Synchronization
/// Typed records (issue #50): one definition per collection, a struct and its field descriptors, from which
/// the record schema (`RecordSchema.of`, the one validation gate), the typed decoders and the encoder are all
/// derived. A field's wire name is written once, in its descriptor; code that reads a record reads a typed
/// value through a key path (`note.timestamp`), so a renamed or retyped field is a compile error rather than a
/// silent `?? 0`.
///
/// Three ways to read a record:
/// - `init(record:)` (collections only): strict. The record passes `RecordSchema.normalize` first, so what is
///   refused is refused with the same field and reason as everywhere else.
/// - `init(lenient:)`: total. Any JSON gives a value; a field missing or of the wrong type gets its default
///   (its value in `init()`: the schema's default, else empty text, 0, false, nil or a first case). For
///   records that may hold anything stored before the bounds of contract §8.1, or sent by any client.
///   A normalized record reads back exactly as it is (`R(lenient: r).record == r`).
/// - `LenientRecord<R>`: field by field, each its typed value or nil when missing or of the wrong type, for
///   renderers that show a missing field differently from an empty one.
///
/// The sync path does not go through these types: records pass through it as canonical text, and
/// `RecordSchema.normalize` keeps working on `JSONObject`s (only its list of fields comes from here).

/// A Swift value a record field holds, and its JSON.
public protocol FieldValue: Sendable, Equatable {
    /// The value of `json` when it is of this type, as a normalized record holds it; nil otherwise.
    static func decodeField(_ json: JSON) -> Self?
    /// What can be read of `json` as this type; never traps. By default `decodeField`; a list keeps the
    /// elements it can read, a record shape reads an object field by field (`RecordShape.init(lenient:)`).
    /// nil when nothing can be read.
    static func decodeFieldLeniently(_ json: JSON) -> Self?
    /// The value's JSON, as `RecordSchema.normalize` leaves it.
    var fieldJSON: JSON { get }
}

extension FieldValue {
    public static func decodeFieldLeniently(_ json: JSON) -> Self? { decodeField(json) }
}

extension String: FieldValue {
    public static func decodeField(_ json: JSON) -> String? { json.stringValue }
    public var fieldJSON: JSON { .string(self) }
}

extension Bool: FieldValue {
    public static func decodeField(_ json: JSON) -> Bool? { json.boolValue }
    public var fieldJSON: JSON { .bool(self) }
}

extension Int64: FieldValue {
    public static func decodeField(_ json: JSON) -> Int64? { json.int64Value }
    public var fieldJSON: JSON { .int(self) }
}

extension Double: FieldValue {
    public static func decodeField(_ json: JSON) -> Double? { json.doubleValue }
    /// As the parser reads the canonical text of a number: an integral value below 10^15 is an `.int` (the
    /// writer prints it as an integer, and the parser reads that back as one), so a decoded record encodes
    /// back equal to what was parsed, not merely to the same text.
    public var fieldJSON: JSON {
        isFinite && self == rounded() && abs(self) < 1e15 ? .int(Int64(self)) : .double(self)
    }
}

extension JSONObject: FieldValue {
    public static func decodeField(_ json: JSON) -> JSONObject? { json.objectValue }
    public var fieldJSON: JSON { .object(self) }
}

/// Any JSON, as it is: for parts of a result that are not typed yet.
extension JSON: FieldValue {
    public static func decodeField(_ json: JSON) -> JSON? { json }
    public var fieldJSON: JSON { self }
}

extension Optional: FieldValue where Wrapped: FieldValue {
    /// `null` is `.some(nil)`: a nullable field that holds null was read (a value of another type was not).
    public static func decodeField(_ json: JSON) -> Wrapped?? {
        if json.isNull { return .some(nil) }
        return Wrapped.decodeField(json).map { .some($0) }
    }
    public static func decodeFieldLeniently(_ json: JSON) -> Wrapped?? {
        if json.isNull { return .some(nil) }
        return Wrapped.decodeFieldLeniently(json).map { .some($0) }
    }
    public var fieldJSON: JSON { self?.fieldJSON ?? .null }
}

extension Array: FieldValue where Element: FieldValue {
    /// Every element of its type, or nothing.
    public static func decodeField(_ json: JSON) -> [Element]? {
        guard case .array(let items) = json else { return nil }
        var out = [Element]()
        out.reserveCapacity(items.count)
        for item in items {
            guard let v = Element.decodeField(item) else { return nil }
            out.append(v)
        }
        return out
    }
    /// The elements that can be read, in order; an element that cannot is left out.
    public static func decodeFieldLeniently(_ json: JSON) -> [Element]? {
        json.arrayValue?.compactMap(Element.decodeFieldLeniently)
    }
    public var fieldJSON: JSON { .array(map(\.fieldJSON)) }
}

/// An enumeration of a record (a status, a role, a summary's type): its raw values are the schema's.
extension FieldValue where Self: RawRepresentable, RawValue == String {
    public static func decodeField(_ json: JSON) -> Self? { json.stringValue.flatMap(Self.init(rawValue:)) }
    public var fieldJSON: JSON { .string(rawValue) }
}

extension CaseIterable where Self: RawRepresentable, RawValue == String {
    /// The field type of this enumeration: its raw values, in the order of the cases.
    public static var fieldType: FieldType { .enumeration(allCases.map(\.rawValue)) }
}

/// A JSON object with typed fields: a collection's record, or an object inside one (a segment, audio).
public protocol RecordShape: FieldValue {
    /// A new value: every field that has a default at it (`RecordField.defaulted` reads it from here), every
    /// other one at a zero (empty text, 0, false, nil, a first case) that decoding replaces or, reading
    /// leniently, keeps.
    init()
    /// The fields, in the order the schema checks them.
    static var fields: [RecordField<Self>] { get }
    /// Total: any JSON gives a value. A field missing or of the wrong type gets its default (its value in
    /// `init()`: the schema's default, else a zero); a JSON that is not an object gives every field its
    /// default. Never throws, never traps.
    init(lenient json: JSON)
}

extension RecordShape {
    public init(lenient json: JSON) {
        self.init()
        readLeniently(json.objectValue ?? JSONObject())
    }

    /// Sets every field from `object` as `init(lenient:)` does (for a type that adds to that init).
    public mutating func readLeniently(_ object: JSONObject) {
        for f in Self.fields {
            if let v = object[f.name], f.set(&self, v, true) { continue }
            _ = f.setAbsent(&self)
        }
    }

    /// Strict: every field present and of its type, or absent with a default (or optional); nil otherwise.
    /// Members that are not fields are ignored.
    public init?(object: JSONObject) {
        self.init()
        for f in Self.fields {
            if let v = object[f.name] {
                guard f.set(&self, v, false) else { return nil }
            } else {
                guard f.setAbsent(&self) else { return nil }
            }
        }
    }

    /// The canonical object: every field (an absent optional one left out).
    public var record: JSONObject {
        var pairs = [(String, JSON)]()
        pairs.reserveCapacity(Self.fields.count)
        for f in Self.fields {
            if let v = f.get(self) { pairs.append((f.name, v)) }
        }
        return JSONObject(pairs)
    }

    public static func decodeField(_ json: JSON) -> Self? { json.objectValue.flatMap { Self(object: $0) } }
    /// An object read field by field; nil for anything else (a nullable field of the wrong type is null, an
    /// element of a list that is not an object is left out, as a number in a list of strings is).
    public static func decodeFieldLeniently(_ json: JSON) -> Self? {
        guard case .object = json else { return nil }
        return Self(lenient: json)
    }
    public var fieldJSON: JSON { .object(record) }

    /// The descriptor of the field that `keyPath` names; nil when it names no field.
    public static func field(_ keyPath: AnyKeyPath) -> RecordField<Self>? {
        fields.first { $0.keyPath == keyPath }
    }

    /// The wire name of the field that `keyPath` names. A key path that names no field is a programming
    /// error of the caller (every caller's key path is a constant, seen by the first test that runs it).
    public static func name(_ keyPath: PartialKeyPath<Self>) -> String {
        let key = FieldIndexKey(shape: ObjectIdentifier(Self.self), hash: keyPath.hashValue)
        // The table is a hint, checked with one comparison: two key paths may share a hash.
        if let i = fieldIndexes.withLock({ $0[key] }), i < fields.count, fields[i].keyPath == keyPath { return fields[i].name }
        guard let i = fields.firstIndex(where: { $0.keyPath == keyPath }) else {
            preconditionFailure("\(Self.self): \(keyPath) is not a field")
        }
        fieldIndexes.withLock { $0[key] = i }
        return fields[i].name
    }
}

/// Where in its shape's `fields` the key paths `RecordShape.name` was asked for are, by shape and key path hash.
/// `LenientRecord` reads every field through a key path; comparing it with each descriptor's in turn was 7 %
/// of the render fuzzer's time, a hash and one comparison are a fraction of that.
private let fieldIndexes = Mutex<[FieldIndexKey: Int]>([:])
private struct FieldIndexKey: Hashable, Sendable {
    let shape: ObjectIdentifier
    let hash: Int
}

/// A synced collection's record.
public protocol TypedRecord: RecordShape {
    static var collection: RecordCollection { get }
}

extension TypedRecord {
    /// The schema derived from `fields`.
    public static var schema: RecordSchema { RecordSchema.of(collection) }

    /// Strict: `record` is normalized by the schema (refused with its field named, as everywhere), then read.
    public init(record: JSONObject) throws(FieldError) {
        let normalized = try Self.schema.normalize(.object(record))
        self.init()
        for f in Self.fields {
            let ok = normalized[f.name].map { f.set(&self, $0, false) } ?? f.setAbsent(&self)
            // Cannot happen while each descriptor's Swift type reads what its FieldType accepts (a test
            // decodes random valid records of every collection); a reason, not a trap, all the same.
            guard ok else { throw FieldError(field: f.name, reason: "is not a \(f.schema.type.schema.text)") }
        }
    }
}

/// A record that every write stamps with `updatedAt` (every collection's but chat's, which is never changed):
/// what a write changes is every field but that one.
public protocol Versioned {
    var updatedAt: String { get set }
}

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

/// A record as some JSON holds it, read field by field: each field its typed value, or nil when it is
/// missing or of the wrong type (`speaker`: nil also when null). Total, like everything that reads what a
/// store or a client may hold (contract §8.1). For renderers that show a missing field apart from an empty
/// one; `value` is the record with defaults instead.
@dynamicMemberLookup
public struct LenientRecord<Record: RecordShape>: Sendable, Equatable {
    /// The members; empty when the JSON was not an object.
    public let object: JSONObject

    public init(_ json: JSON?) { object = json?.objectValue ?? JSONObject() }
    public init(object: JSONObject) { self.object = object }

    public subscript<V: FieldValue>(dynamicMember keyPath: KeyPath<Record, V>) -> V? {
        json(at: keyPath).flatMap(V.decodeFieldLeniently)
    }

    /// A nullable (or optional) field: nil when missing, null or of the wrong type.
    public subscript<V: FieldValue>(dynamicMember keyPath: KeyPath<Record, V?>) -> V? {
        json(at: keyPath).flatMap(V.decodeFieldLeniently)
    }

    /// The JSON a field holds, as it is.
    public func json(at keyPath: PartialKeyPath<Record>) -> JSON? { object[Record.name(keyPath)] }

    /// An object field read field by field: nil when it is missing or null; any other value reads as an
    /// object without members.
    public func nested<N: RecordShape>(_ keyPath: KeyPath<Record, N?>) -> LenientRecord<N>? {
        guard let v = json(at: keyPath), !v.isNull else { return nil }
        return LenientRecord<N>(v)
    }

    /// An object field every such JSON has, read field by field (missing or not an object: without members).
    public func nested<N: RecordShape>(_ keyPath: KeyPath<Record, N>) -> LenientRecord<N> {
        LenientRecord<N>(json(at: keyPath))
    }

    /// A list of objects, each read field by field: nil when it is missing or not an array; an element that
    /// is not an object reads as one without members.
    public func list<N: RecordShape>(_ keyPath: KeyPath<Record, [N]>) -> [LenientRecord<N>]? {
        json(at: keyPath)?.arrayValue?.map { LenientRecord<N>($0) }
    }

    /// The record with every field missing or of the wrong type at its default.
    public var value: Record { Record(lenient: .object(object)) }
}

extension LenientRecord: FieldValue {
    /// Anything: what is not an object reads as an object without members.
    public static func decodeField(_ json: JSON) -> LenientRecord? { LenientRecord(json) }
    public var fieldJSON: JSON { .object(object) }
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
