import TNotesCore

extension ParamSpec {
    /// The param that a params shape's field declares: required when the field is, nullable when it may be null.
    public init<Shape: RecordShape>(_ field: RecordField<Shape>, _ summary: String = "") {
        let f = field.schema
        self.init(f.name, f.type, required: f.defaultValue == nil && !f.optional && !f.nullable, nullable: f.nullable, summary)
    }
}

extension MethodSpec {
    /// A method whose params are declared by `method`'s params shape: validated as every method's are (the
    /// field named in an error), then handed to the handler as a typed value. `notes` describes params in
    /// `rpc.discover`.
    public init<M: SocketMethod>(_ method: M.Type, summary: String, notes: [PartialKeyPath<M.Params>: String] = [:],
                                 result: JSON = [:], readOnly: Bool = false, queuesOneWrite: Bool = false,
                                 handler: @escaping @Sendable (M.Params, ConnectionContext) async throws -> JSON) {
        let params = M.Params.fields.map { f in ParamSpec(f, notes[f.keyPath as PartialKeyPath<M.Params>] ?? "") }
        self.init(M.name, summary: summary, params: params, result: result, readOnly: readOnly, queuesOneWrite: queuesOneWrite) { p, c in
            // Validation has checked every param's presence and type, so this reads; a mismatch between the
            // shape's Swift types and its field types answers invalid params, never traps.
            guard let typed = M.Params(object: p.values) else {
                throw RPCError.invalidParams(field: "params", reason: "do not match the method's params")
            }
            return try await handler(typed, c)
        }
    }
}
