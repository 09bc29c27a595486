// Typed records (issue #50): one definition per collection, a struct and its field descriptors, from which
// the record schema (`RecordSchema.of`, the one validation gate), the typed decoders and the encoder are all
// derived. A field's wire name is written once, in its descriptor; code that reads a record reads a typed
// value through a key path (`note.timestamp`), so a renamed or retyped field is a compile error rather than a
// silent `?? 0`.
//
// Three ways to read a record:
// - `init(record:)` (collections only): strict. The record passes `RecordSchema.normalize` first, so what is
//   refused is refused with the same field and reason as everywhere else.
// - `init(lenient:)`: total. Any JSON gives a value; a field missing or of the wrong type gets its default
//   (its value in `init()`: the schema's default, else empty text, 0, false, nil or a first case). For
//   records that may hold anything stored before the bounds of contract §8.1, or sent by any client.
//   A normalized record reads back exactly as it is (`R(lenient: r).record == r`).
// - `LenientRecord<R>`: field by field, each its typed value or nil when missing or of the wrong type, for
//   renderers that show a missing field differently from an empty one.
//
// The sync path does not go through these types: records pass through it as canonical text, and
// `RecordSchema.normalize` keeps working on `JSONObject`s (only its list of fields comes from here).
//
// The parts: `FieldValue` (a field's Swift value and its JSON), `RecordShape` (an object with typed fields),
// `RecordField` (one field's descriptor), `LenientRecord` (reading field by field), and here `TypedRecord`.

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
