/// A JSON-RPC 2.0 message (https://www.jsonrpc.org/specification) as it is on the socket: a request, a
/// notification or a reply, each member read by its name here. Read leniently (`LenientRecord`): a member of
/// the wrong type reads as missing, and the reader answers that as the protocol says.
public struct JSONRPCMessage: RecordShape {
    public static let version = "2.0"

    public var jsonrpc: String?
    /// A request's or reply's id (a string, a number or null); absent in a notification.
    public var id: JSON?
    public var method: String?
    public var params: JSON?
    public var result: JSON?
    public var error: ErrorObject?

    public init() {}

    /// A request (`id` given) or a notification (`id` nil).
    public init(method: String, params: JSON?, id: JSON?) {
        jsonrpc = Self.version
        self.method = method
        self.params = params
        self.id = id
    }

    public static let fields: [RecordField<JSONRPCMessage>] = [
        .optional("jsonrpc", .string, \.jsonrpc),
        .optional("id", .any, \.id),
        .optional("method", .string, \.method),
        .optional("params", .any, \.params),
        .optional("result", .any, \.result),
        .optional("error", .object, \.error),
    ]

    /// An error reply's `error`: its code, message and data (the daemon's data names the field and reason of
    /// invalid params).
    public struct ErrorObject: RecordShape {
        public var code: Int64 = 0
        public var message = ""
        public var data: JSON?

        public init() {}

        public static let fields: [RecordField<ErrorObject>] = [
            .required("code", .integer(min: Int64.min, max: Int64.max), \.code),
            .required("message", .string, \.message),
            .optional("data", .any, \.data),
        ]
    }

    /// The daemon's `data` of an error: which param, and why.
    public struct ErrorData: RecordShape {
        public var field: String?
        public var reason: String?

        public init() {}

        public static let fields: [RecordField<ErrorData>] = [
            .optional("field", .string, \.field),
            .optional("reason", .string, \.reason),
        ]
    }
}
