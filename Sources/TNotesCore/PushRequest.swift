/// The body of `POST /v1/sync/push` (contract §4), decoded. Each change is validated on its own: one
/// invalid change is a `rejected` result, never a reason to refuse the others.
public struct PushRequest: Sendable {
    public struct Item: Sendable {
        public let opId: String
        public let change: Result<Change, FieldError>
    }

    public let deviceId: String?
    public let items: [Item]

    /// A body that is not `{changes: [...]}` is refused as a whole, naming the field.
    public static func decode(_ body: JSON) throws(FieldError) -> PushRequest {
        guard case .object(let o) = body else { throw FieldError(field: "body", reason: "must be a JSON object") }
        guard case .array(let raw)? = o["changes"] else { throw FieldError(field: "changes", reason: "must be an array") }
        var deviceId: String?
        if let d = o["deviceId"], !d.isNull {
            guard case .string(let s) = d else { throw FieldError(field: "deviceId", reason: "must be a string") }
            deviceId = s
        }
        var items = [Item]()
        items.reserveCapacity(raw.count)
        for element in raw {
            let opId = element["opId"]?.stringValue ?? ""
            do {
                items.append(Item(opId: opId, change: .success(try Change(json: element))))
            } catch {
                items.append(Item(opId: opId, change: .failure(error)))
            }
        }
        return PushRequest(deviceId: deviceId, items: items)
    }

    /// Parses and decodes raw body bytes (what the server and the fuzzer both run).
    public static func decode(bytes: [UInt8]) throws -> PushRequest {
        try decode(try JSON.parse(bytes))
    }
}
