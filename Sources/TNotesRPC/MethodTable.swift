import TNotesCore

/// One declared parameter of a method. Dispatch validates every call against these before a handler runs,
/// and `rpc.discover` describes them: one table serves both, so the description cannot drift.
public struct ParamSpec: Sendable {
    public let name: String
    public let type: FieldType
    public let required: Bool
    public let nullable: Bool
    public let summary: String

    public init(_ name: String, _ type: FieldType, required: Bool = false, nullable: Bool = false, _ summary: String = "") {
        self.name = name
        self.type = type
        self.required = required
        self.nullable = nullable
        self.summary = summary
    }
}

/// Validated params, as a handler receives them.
public struct Params: Sendable {
    public let values: JSONObject

    public init(_ values: JSONObject) { self.values = values }

    public func has(_ name: String) -> Bool { values[name] != nil }
    public subscript(name: String) -> JSON? { values[name] }
    public func string(_ name: String) -> String? { values[name]?.stringValue }
    public func bool(_ name: String) -> Bool? { values[name]?.boolValue }
    public func double(_ name: String) -> Double? { values[name]?.doubleValue }
    public func int(_ name: String) -> Int? { values[name]?.int64Value.map { Int($0) } }

    /// A param the method declares `required`: validation has checked it is present, so a missing one here
    /// is a mismatch between a handler and its spec, answered as invalid params naming the field, never a crash.
    public func required(_ name: String) throws(RPCError) -> JSON {
        guard let v = values[name] else { throw RPCError.invalidParams(field: name, reason: "is required") }
        return v
    }

    /// A required string param (ids, paths): as `required`, typed.
    public func requiredString(_ name: String) throws(RPCError) -> String {
        guard let v = try required(name).stringValue else { throw RPCError.invalidParams(field: name, reason: "must be a string") }
        return v
    }
}

public typealias MethodHandler = @Sendable (Params, ConnectionContext) async throws -> JSON

public struct MethodSpec: Sendable {
    public let name: String
    public let summary: String
    public let params: [ParamSpec]
    /// A schema of the result, for `rpc.discover`.
    public let result: JSON
    public let handler: MethodHandler
    /// The method changes nothing (no store write, no subscription, no sync side effect): pipelined calls of
    /// such methods on one connection may run side by side, their answers still in order (`Dispatcher.prepare`).
    public let readOnly: Bool
    /// The handler's only store access is one `store.write` (every check it makes runs inside it), and it does
    /// nothing after that write that a later call could depend on. In a JSON-RPC batch the next call may then
    /// start as soon as this one's write is queued (`WriteQueuedSignal`): the store still runs the writes in
    /// batch order, each seeing the ones before it, and the batch's writes commit as one group.
    public let queuesOneWrite: Bool

    public init(_ name: String, summary: String, params: [ParamSpec] = [], result: JSON = [:], readOnly: Bool = false,
                queuesOneWrite: Bool = false, handler: @escaping MethodHandler) {
        self.name = name
        self.summary = summary
        self.params = params
        self.result = result
        self.readOnly = readOnly
        self.queuesOneWrite = queuesOneWrite
        self.handler = handler
    }

    /// Named params only: unknown, missing, null where not allowed, or wrongly typed → the field is named.
    public func validate(_ raw: JSON?) throws(RPCError) -> Params {
        let input: JSONObject
        switch raw {
        case nil, .null?: input = [:]
        case .object(let o)?: input = o
        case .array(let a)?:
            guard a.isEmpty else {
                throw RPCError.invalidParams(field: "params", reason: "must be an object of named params")
            }
            input = [:]
        case let other?:
            throw RPCError.invalidParams(field: "params", reason: "must be an object, not \(other.typeName)")
        }
        for key in input.keys.sorted() where !params.contains(where: { $0.name == key }) {
            // An empty name cannot name the field itself (found by the RPC fuzzer): the error names `params`.
            if key.isEmpty { throw RPCError.invalidParams(field: "params", reason: "has a param with an empty name") }
            throw RPCError.invalidParams(field: key, reason: "unknown param")
        }
        var out = JSONObject()
        for p in params {
            guard let v = input[p.name] else {
                if p.required { throw RPCError.invalidParams(field: p.name, reason: "is required") }
                continue
            }
            if v.isNull {
                guard p.nullable else { throw RPCError.invalidParams(field: p.name, reason: "must not be null") }
                out[p.name] = .null
                continue
            }
            do {
                out[p.name] = try p.type.validate(v, field: p.name)
            } catch {
                throw RPCError.invalidParams(error)
            }
        }
        return Params(out)
    }
}

/// The methods a server answers, by name.
public struct MethodTable: Sendable {
    public private(set) var methods: [String: MethodSpec] = [:]
    public private(set) var order: [String] = []
    public var title: String
    public var version: String

    public init(title: String, version: String) {
        self.title = title
        self.version = version
    }

    public mutating func add(_ spec: MethodSpec) {
        precondition(methods[spec.name] == nil, "method \(spec.name) declared twice")
        methods[spec.name] = spec
        order.append(spec.name)
    }

    public subscript(name: String) -> MethodSpec? { methods[name] }

    /// The OpenRPC document (https://spec.open-rpc.org) for this table.
    public func openRPC(components: JSON? = nil) -> JSON {
        var list = [JSON]()
        for name in order {
            guard let m = methods[name] else { continue }
            var params = [JSON]()
            for p in m.params {
                var schema = p.type.schema
                if p.nullable, case .object(var o) = schema, let t = o["type"] {
                    o["type"] = .array([t, "null"])
                    schema = .object(o)
                }
                var param: JSONObject = ["name": .string(p.name), "required": .bool(p.required), "schema": schema]
                if !p.summary.isEmpty { param["summary"] = .string(p.summary) }
                params.append(.object(param))
            }
            list.append([
                "name": .string(m.name), "summary": .string(m.summary), "paramStructure": "by-name",
                "params": .array(params), "result": ["name": "result", "schema": m.result],
            ])
        }
        var doc: JSONObject = [
            "openrpc": "1.2.6",
            "info": ["title": .string(title), "version": .string(version)],
            "methods": .array(list),
        ]
        if let components { doc["components"] = components }
        return .object(doc)
    }
}
