import TNotesCore
import TNotesRPC
import TNotesStore

extension StoreError: RPCErrorConvertible {
    public var rpcError: RPCError {
        switch self {
        case .notFound(let c, let id): return .notFound(Self.kind(c), id: id)
        case .gone(let c, let id):
            return RPCError(code: -32001, message: "Not found: \(Self.kind(c)) \(id) is deleted",
                            data: ["id": .string(id), "kind": .string(Self.kind(c)), "deleted": true])
        case .invalid(let e): return .invalidParams(e)
        case .closed: return .unavailable("the daemon is shutting down")
        case .corruptRow(let s): return .internalError(s)
        }
    }

    static func kind(_ collection: String) -> String {
        switch collection {
        case "sermons": return "sermon"
        case "notes": return "note"
        case "transcripts": return "transcript"
        case "summaries": return "summary"
        case "chatMessages": return "chat message"
        default: return collection
        }
    }
}
