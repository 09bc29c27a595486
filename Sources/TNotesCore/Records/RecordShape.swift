import Synchronization

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
