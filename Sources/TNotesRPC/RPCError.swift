import TNotesCore

/// A JSON-RPC 2.0 error object, with the codes of contract §2.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSON?

    public init(code: Int, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(code) \(message)" }

    public var json: JSON {
        var o: JSONObject = ["code": .int(Int64(code)), "message": .string(message)]
        if let data { o["data"] = data }
        return .object(o)
    }

    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: -32700, message: "Parse error", data: ["reason": .string(detail)])
    }
    public static func invalidRequest(_ reason: String) -> RPCError {
        RPCError(code: -32600, message: "Invalid Request", data: ["reason": .string(reason)])
    }
    public static func methodNotFound(_ name: String) -> RPCError {
        RPCError(code: -32601, message: "Method not found", data: ["method": .string(name)])
    }
    public static func invalidParams(field: String, reason: String) -> RPCError {
        RPCError(code: -32602, message: "Invalid params: \(field) \(reason)",
                 data: ["field": .string(field), "reason": .string(reason)])
    }
    public static func invalidParams(_ e: FieldError) -> RPCError { invalidParams(field: e.field, reason: e.reason) }
    public static func internalError(_ reason: String = "internal error") -> RPCError {
        RPCError(code: -32603, message: "Internal error", data: ["reason": .string(reason)])
    }
    public static func notFound(_ what: String, id: String) -> RPCError {
        RPCError(code: -32001, message: "Not found: \(what) \(id)", data: ["id": .string(id), "kind": .string(what)])
    }
    public static func conflict(_ reason: String) -> RPCError {
        RPCError(code: -32002, message: "Conflict: \(reason)", data: ["reason": .string(reason)])
    }
    public static func tooLarge(limit: Int) -> RPCError {
        RPCError(code: -32003, message: "Request too large", data: ["limit": .int(Int64(limit))])
    }
    public static func forbidden(_ reason: String) -> RPCError {
        RPCError(code: -32004, message: "Forbidden", data: ["reason": .string(reason)])
    }
    public static func unavailable(_ reason: String) -> RPCError {
        RPCError(code: -32005, message: "Unavailable: \(reason)", data: ["reason": .string(reason)])
    }
}

/// Errors from other layers (the store, the sync engine) say how they look to a client.
public protocol RPCErrorConvertible: Error {
    var rpcError: RPCError { get }
}
