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
