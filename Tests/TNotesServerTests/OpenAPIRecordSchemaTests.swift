import Foundation
import Testing
// `ValueBounds.limits` (which fields of a collection are bounded, and how) is internal: the bounds are held to
// the list the server itself checks, not to a copy of it.
@testable import TNotesCore

/// `docs/openapi.json`, the one copy of the document (compiled into the server by
/// Plugins/EmbedOpenAPI), read from the source tree.
enum OpenAPIFile {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.json")

    static func bytes() throws -> Data { try Data(contentsOf: url) }
    static func document() throws -> JSON { try JSON.parse(Array(bytes())) }
}

/// The record schemas of the document held equal to `RecordSchema` (the gate every record passes through) and to
/// the bounds `ValueBounds` checks: a field added, dropped, retyped, made nullable or given a default in
/// TNotesCore fails here, naming the schema, the property and both sides.
extension ServerAPIDescriptionTests {
    @Test("each collection's schema in openapi.json is its RecordSchema: fields, required, types, nullability, defaults and bounds",
          arguments: RecordCollection.allCases)
    func recordSchema(collection: RecordCollection) throws {
        let doc = try OpenAPIFile.document()
        let name = try #require(Schemas.recordSchemaName(collection, in: doc),
                                "openapi.json's Change discriminator names no change schema (with a record $ref) for \(collection.rawValue)")
        let schema = try #require(doc["components"]?["schemas"]?[name])
        let fields = RecordSchema.of(collection).fields

        var differences: [String] = []
        let expected = Schemas.object(fields, bounds: Schemas.bounds(of: collection))
        Schemas.diff(expected: expected, documented: Schemas.reduce(schema, in: doc), at: name, into: &differences)
        // A default is what normalizing writes in for an absent field; a required or optional field has none.
        for field in fields {
            let documented = schema["properties"]?[field.name]?["default"]
            if let documented, let value = field.defaultValue {
                if Schemas.canonical(documented) != Schemas.canonical(value) {
                    differences.append("\(name).\(field.name): default \(documented.text) in the document, \(value.text) in RecordSchema")
                }
            } else if documented != nil || field.defaultValue != nil {
                differences.append("\(name).\(field.name): default \(documented?.text ?? "none") in the document, "
                    + "\(field.defaultValue?.text ?? "none") in RecordSchema")
            }
        }
        #expect(differences.isEmpty, "openapi.json's \(name) is not RecordSchema.\(collection.rawValue):\n\(differences.joined(separator: "\n"))")
    }

    @Test("a change schema per collection: discriminated by `collection`, holding that collection's record, with the envelope Change decodes")
    func changeSchemas() throws {
        let doc = try OpenAPIFile.document()
        let schemas = try #require(doc["components"]?["schemas"])
        let mapping = try #require(schemas["Change"]?["discriminator"]?["mapping"]?.objectValue)
        #expect(Set(mapping.keys) == Set(RecordCollection.allCases.map(\.rawValue)), "\(Array(mapping.keys))")
        let oneOf = Set(schemas["Change"]?["oneOf"]?.arrayValue?.compactMap { $0["$ref"]?.stringValue } ?? [])
        #expect(oneOf == Set(mapping.values.compactMap(\.stringValue)), "Change.oneOf \(oneOf) is not its discriminator's mapping")
        let records = Set(schemas["Record"]?["anyOf"]?.arrayValue?.compactMap { $0["$ref"]?.stringValue } ?? [])
        let recordNames = RecordCollection.allCases.compactMap { Schemas.recordSchemaName($0, in: doc) }
        #expect(records == Set(recordNames.map { "#/components/schemas/\($0)" }), "Record.anyOf \(records)")

        // The envelope's keys: what `Change.json` writes (with a base), and `seq`, which a pulled change carries
        // and `Change(json:)` accepts and ignores.
        let written = Change(opId: "op", collection: .notes, id: Identifier.make(), op: .upsert, updatedAt: "2026-01-01T00:00:00.000Z",
                             deviceId: "d", record: [:], base: RecordVersion(updatedAt: "2026-01-01T00:00:00.000Z", deviceId: "d"))
            .json.objectValue.map { Set($0.keys) } ?? []
        for collection in RecordCollection.allCases {
            guard let ref = mapping[collection.rawValue]?.stringValue, let change = Schemas.resolve(ref, in: doc) else {
                Issue.record("no change schema for \(collection.rawValue)")
                continue
            }
            let name = ref.split(separator: "/").last.map(String.init) ?? ref
            #expect(change["properties"]?["collection"]?["const"]?.stringValue == collection.rawValue, "\(name).collection")
            #expect(Set(change["properties"]?.objectValue?.keys.map { $0 } ?? []) == written.union(["seq"]), "\(name)'s properties")
            #expect(Set(change["required"]?.arrayValue?.compactMap(\.stringValue) ?? []) == written.subtracting(["base"]),
                    "\(name)'s required")
            #expect(change["additionalProperties"] == .bool(false), "\(name): Change(json:) refuses an unknown key")
            let ops = change["properties"]?["op"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!ops.isEmpty && ops.allSatisfy { Change.Op(rawValue: $0) != nil }, "\(name).op: \(ops)")
        }
        // Every key the document lists gets past Change(json:)'s unknown-key check (its refusal is about something
        // else), and an unlisted one does not.
        func refusal(_ key: String) -> FieldError? {
            do { _ = try Change(json: [key: .null]) } catch { return error }
            return nil
        }
        for key in written.union(["seq"]) {
            #expect(refusal(key).map { $0 != FieldError(field: key, reason: "unknown field") } == true, "\(key): \(String(describing: refusal(key)))")
        }
        #expect(refusal("bogus") == FieldError(field: "bogus", reason: "unknown field"))
    }

    @Test("the legacy request bodies carry the bounds the legacy API checks (ValueBounds of the records they write)")
    func legacyBounds() throws {
        let doc = try OpenAPIFile.document()
        for (name, collection) in [("LegacyCreateSermon", RecordCollection.sermons), ("LegacyUpdateSermon", .sermons),
                                   ("LegacyNoteInput", .notes)] {
            let properties = try #require(doc["components"]?["schemas"]?[name]?["properties"]?.objectValue, "\(name)")
            let bounds = Schemas.bounds(of: collection)
            for (field, property) in properties {
                for keyword in ["maxLength", "maximum"] {
                    let documented = property[keyword]?.doubleValue
                    let checked = bounds[field].flatMap { $0.keyword == keyword ? $0.value : nil }
                    #expect(documented == checked, "\(name).\(field).\(keyword): \(documented.map { "\($0)" } ?? "none") in the document, \(checked.map { "\($0)" } ?? "none") checked")
                }
            }
        }
    }

    @Test("the shared formats: PublicId is TNotesCore's pattern; Uuid, Time and Text accept and refuse as the validators do")
    func formats() throws {
        let doc = try OpenAPIFile.document()
        let schemas = try #require(doc["components"]?["schemas"])
        #expect(schemas["PublicId"]?["pattern"]?.stringValue == PublicId.pattern)
        func matches(_ schema: String, _ value: String) throws -> Bool {
            let pattern = try #require(schemas[schema]?["pattern"]?.stringValue, "\(schema) has no pattern")
            let regex = try NSRegularExpression(pattern: pattern)
            return regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
        }
        for value in [UUID().uuidString, UUID().uuidString.lowercased(), "not-a-uuid", "", "0123456789abcdef0123456789abcdef"] {
            #expect(try matches("Uuid", value) == (FieldType.uuid.validateOrNil(value) != nil), "Uuid: \(value)")
        }
        for value in ["2026-03-01T10:00:00Z", "2026-03-01T10:00:00.123+02:00", "2026-03-01", "2026-02-30", "yesterday",
                      "2026-03-01T25:00:00Z"] {
            #expect(try matches("Time", value) == (FieldType.time.validateOrNil(value) != nil), "Time: \(value)")
        }
        for value in ["a", " a ", "", "   ", "\n\t"] {
            #expect(try matches("Text", value) == (FieldType.text.validateOrNil(value) != nil), "Text: \(value.debugDescription)")
        }
    }
}

extension FieldType {
    fileprivate func validateOrNil(_ value: String) -> JSON? { try? validate(.string(value), field: "f") }
}

/// The comparison: the document's schemas reduced to what a `FieldType` says of a value, and the same form built
/// from `RecordSchema`'s fields.
enum Schemas {
    /// The shared string formats, kept as their names: each is compared once, in `formats()`.
    static let formats: Set<String> = ["Uuid", "Time", "Text", "PublicId"]

    /// The record schema a collection's change holds, by the document's own discriminator.
    static func recordSchemaName(_ collection: RecordCollection, in doc: JSON) -> String? {
        guard let change = doc["components"]?["schemas"]?["Change"]?["discriminator"]?["mapping"]?[collection.rawValue]?.stringValue,
              let ref = resolve(change, in: doc)?["properties"]?["record"]?["$ref"]?.stringValue else { return nil }
        return ref.split(separator: "/").last.map(String.init)
    }

    static func resolve(_ ref: String, in doc: JSON) -> JSON? {
        guard ref.hasPrefix("#/components/schemas/") else { return nil }
        return doc["components"]?["schemas"]?[String(ref.dropFirst("#/components/schemas/".count))]
    }

    /// The bounded fields of a collection as `ValueBounds` checks them: (JSON Schema keyword, value).
    static func bounds(of collection: RecordCollection) -> [String: (keyword: String, value: Double)] {
        var out: [String: (keyword: String, value: Double)] = [:]
        for (field, limit) in ValueBounds.limits(collection) {
            switch limit {
            case .seconds: out[field] = ("maximum", ValueBounds.maxSeconds)
            case .characters(let n): out[field] = ("maxLength", Double(n))
            }
        }
        return out
    }

    /// A segment's `start` and `end`: ValueBounds checks them in its transcript loop, not through `limits`; that
    /// it does is probed here (at the bound, and just past it), so the document's maximum is held to the check.
    static func segmentBounds() -> [String: (keyword: String, value: Double)] {
        var out: [String: (keyword: String, value: Double)] = [:]
        for key in ["start", "end"] {
            func check(_ seconds: Double) -> FieldError? {
                var segment: JSONObject = ["start": 0, "end": 0, "text": "t"]
                segment[key] = .double(seconds)
                do { try ValueBounds.check(.transcripts, ["segments": [.object(segment)]]) } catch { return error }
                return nil
            }
            if check(ValueBounds.maxSeconds) == nil, check(ValueBounds.maxSeconds.nextUp)?.field == "segments[0].\(key)" {
                out[key] = ("maximum", ValueBounds.maxSeconds)
            }
        }
        return out
    }

    /// A record (or a nested object) as the document must describe it: every field a property, the ones with no
    /// default and not optional required, no other key accepted (`normalize` refuses unknown fields).
    static func object(_ fields: [RecordSchema.Field], bounds: [String: (keyword: String, value: Double)]) -> JSON {
        var properties = JSONObject()
        for field in fields {
            var property = Self.type(field.type).objectValue ?? [:]
            if let bound = bounds[field.name] { property[bound.keyword] = .double(bound.value) }
            if field.nullable { property["nullable"] = true }
            properties[field.name] = .object(property)
        }
        return canonical([
            "type": "object", "additionalProperties": false, "properties": .object(properties),
            "required": .array(fields.filter { $0.defaultValue == nil && !$0.optional }.map { .string($0.name) }),
        ])
    }

    /// What a value of `type` is in the document's spelling. Exhaustive: a new FieldType fails to compile here
    /// until the document's form of it is said.
    static func type(_ type: FieldType) -> JSON {
        switch type {
        case .string: return ["type": "string"]
        // The shared formats, by name. The document spells them as patterns (what `FieldType.schema` gives as a
        // format or minLength is looser than the validators): `formats()` holds each pattern to its validator.
        case .text: return ["$ref": "Text"]
        case .uuid: return ["$ref": "Uuid"]
        case .time: return ["$ref": "Time"]
        case .publicId: return ["$ref": "PublicId"]
        case .number(let min): return ["type": "number", "minimum": .double(min)]
        case .integer(let min, let max):
            // Int64.max is no bound a JSON client can reach: the document leaves it out.
            return max == .max ? ["type": "integer", "minimum": .int(min)] : ["type": "integer", "minimum": .int(min), "maximum": .int(max)]
        case .bool: return ["type": "boolean"]
        case .enumeration(let values): return ["type": "string", "enum": .array(values.map { .string($0) })]
        case .arrayOf(let t): return ["type": "array", "items": Self.type(t)]
        // Any object: the document may describe what the server writes in it (a publication's snapshot), as
        // long as it requires and refuses nothing (`anyObject` in `diff`).
        case .object: return ["type": "object", "anyObject": true]
        case .any: return [:]
        case .segments:
            // The segment as `FieldType.validate` checks it (`validateSegment`): start and end numbers from 0,
            // text a string, speaker a string or null or absent, no other key.
            let segment: [RecordSchema.Field] = [
                .init("start", .number(min: 0)), .init("end", .number(min: 0)), .init("text", .string),
                .init("speaker", .string, nullable: true, optional: true),
            ]
            return ["type": "array", "items": object(segment, bounds: segmentBounds())]
        case .audio:
            // As `FieldType.validate` checks it: a non-empty file name, a size from 0, the digest's pattern from
            // FieldType.schema, no other key.
            var audio = object([.init("fileName", .text), .init("sizeBytes", .integer(min: 0, max: .max)),
                                .init("sha256", .string)], bounds: [:]).objectValue ?? [:]
            var properties = audio["properties"]?.objectValue ?? [:]
            properties["sha256"] = canonical(FieldType.audio.schema["properties"]?["sha256"] ?? .null)
            audio["properties"] = .object(properties)
            return .object(audio)
        }
    }

    /// The document's schema reduced to the form `type` builds: `$ref`s to the shared formats kept as names,
    /// other `$ref`s (and a lone `allOf`) resolved, null split off into `nullable`, descriptions and defaults
    /// dropped (defaults are compared on their own).
    static func reduce(_ schema: JSON, in doc: JSON) -> JSON {
        guard var o = schema.objectValue else { return schema }
        if let ref = o["$ref"]?.stringValue {
            let name = ref.split(separator: "/").last.map(String.init) ?? ref
            if formats.contains(name) { return ["$ref": .string(name)] }
            return reduce(resolve(ref, in: doc) ?? .null, in: doc)
        }
        if let all = o["allOf"]?.arrayValue, all.count == 1 { return reduce(all[0], in: doc) }
        if let any = o["anyOf"]?.arrayValue, any.count == 2, let i = any.firstIndex(of: ["type": "null"]) {
            var inner = reduce(any[1 - i], in: doc).objectValue ?? [:]
            inner["nullable"] = true
            return .object(inner)
        }
        o["description"] = nil
        o["default"] = nil
        if let types = o["type"]?.arrayValue, types.count == 2, let i = types.firstIndex(of: "null") {
            o["type"] = types[1 - i]
            o["nullable"] = true
        }
        if let properties = o["properties"]?.objectValue { o["properties"] = .object(properties.mapValues { reduce($0, in: doc) }) }
        if let items = o["items"] { o["items"] = reduce(items, in: doc) }
        return canonical(.object(o))
    }

    /// Numbers as doubles (`0` and `0.0` are one bound), `required` and `enum` as sets (sorted).
    static func canonical(_ value: JSON) -> JSON {
        switch value {
        case .int, .double: return value.doubleValue.map { .double($0) } ?? value
        case .array(let a): return .array(a.map(canonical))
        case .object(var o):
            for key in ["required", "enum"] {
                if let a = o[key]?.arrayValue { o[key] = .array(a.sorted { $0.text < $1.text }) }
            }
            return .object(o.mapValues { canonical($0) })
        default: return value
        }
    }

    /// Every difference between the two forms, each naming its place (`Note.timestamp.maximum`) and both sides.
    static func diff(expected: JSON, documented: JSON, at path: String, into out: inout [String]) {
        guard var e = expected.objectValue, let d = documented.objectValue else {
            if canonical(expected) != canonical(documented) {
                out.append("\(path): \(documented.text) in the document, \(expected.text) in RecordSchema")
            }
            return
        }
        // FieldType.object takes any object: the document may describe what is written in it, but not require or
        // refuse anything.
        let anyObject = e.removeValue(forKey: "anyObject") != nil
        for key in Set(e.keys).union(d.keys).sorted() {
            switch (e[key], d[key]) {
            case (_, .some) where anyObject && key == "properties":
                break
            case (nil, let y?) where anyObject && (key == "required" || key == "additionalProperties"):
                out.append("\(path): the document restricts the object (\(key) \(y.text)); RecordSchema takes any object")
            case (let x?, let y?) where key == "properties":
                let xs = x.objectValue ?? [:], ys = y.objectValue ?? [:]
                for name in Set(xs.keys).union(ys.keys).sorted() {
                    switch (xs[name], ys[name]) {
                    case (let a?, let b?): diff(expected: a, documented: b, at: "\(path).\(name)", into: &out)
                    case (let a?, nil): out.append("\(path).\(name): not in the document (RecordSchema: \(a.text))")
                    case (nil, let b?): out.append("\(path).\(name): in the document (\(b.text)), not a field in RecordSchema")
                    case (nil, nil): break
                    }
                }
            case (let x?, let y?): diff(expected: x, documented: y, at: "\(path).\(key)", into: &out)
            case (let x?, nil): out.append("\(path): the document has no \(key) (RecordSchema: \(x.text))")
            case (nil, let y?): out.append("\(path): the document has \(key) \(y.text), which RecordSchema does not say")
            case (nil, nil): break
            }
        }
    }
}
