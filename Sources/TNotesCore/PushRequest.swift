/// The body of `POST /v1/sync/push` (contract §4), decoded. Each change is validated on its own: one
/// invalid change is a `rejected` result, never a reason to refuse the others.
public struct PushRequest: Sendable {
    public struct Item: Sendable {
        public let opId: String
        public let change: Result<Change, FieldError>
        /// The change's record as canonical text, when the body carried it that way and normalizing left it as
        /// given (see `JSON.parseChanges`): the body to store, with no writing out.
        public var recordText: String? = nil
    }

    public let deviceId: String?
    public let items: [Item]

    /// A body that is not `{changes: [...]}` is refused as a whole, naming the field.
    /// `recordTexts`: by change index, records whose text the body wrote canonically (`JSON.parseChanges`).
    public static func decode(_ body: JSON, recordTexts: [Int: String] = [:]) throws(FieldError) -> PushRequest {
        guard case .object(let o) = body else { throw FieldError(field: "body", reason: "must be a JSON object") }
        guard case .array(let raw)? = o["changes"] else { throw FieldError(field: "changes", reason: "must be an array") }
        var deviceId: String?
        if let d = o["deviceId"], !d.isNull {
            guard case .string(let s) = d else { throw FieldError(field: "deviceId", reason: "must be a string") }
            deviceId = s
        }
        var items = [Item]()
        items.reserveCapacity(raw.count)
        for (index, element) in raw.enumerated() {
            let opId = element["opId"]?.stringValue ?? ""
            do {
                var text = recordTexts[index]
                let change = try Change(json: element, recordText: &text)
                items.append(Item(opId: opId, change: .success(change), recordText: text))
            } catch {
                items.append(Item(opId: opId, change: .failure(error)))
            }
        }
        return PushRequest(deviceId: deviceId, items: items)
    }

    /// Parses and decodes raw body bytes (what the server and the fuzzer both run).
    public static func decode(bytes: [UInt8]) throws -> PushRequest {
        let (json, texts) = try JSON.parseChanges(bytes)
        return try decode(json, recordTexts: texts)
    }
}
