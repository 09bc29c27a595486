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
