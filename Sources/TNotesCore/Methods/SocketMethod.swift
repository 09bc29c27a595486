/// A socket method: its name and the shape of its params, declared once. The daemon validates and decodes a
/// call's params by it (and describes them in `rpc.discover`); clients build their calls from it. A param
/// renamed or retyped here is a compile error on both sides, not a silent miss.
///
/// Params are `RecordShape`s whose fields are `required` or `optional` (absent stays absent: the handler
/// applies its own default, and a client sends only what it was given).
public protocol SocketMethod {
    associatedtype Params: RecordShape
    static var name: String { get }
}

/// `{id}`: the params of the methods that name one record.
public struct IdParams: RecordShape {
    public var id = ""

    public init() {}
    public init(id: String) { self.id = id }

    public static let fields: [RecordField<IdParams>] = [.required("id", .uuid, \.id)]
}

/// No params.
public struct NoParams: RecordShape {
    public init() {}
    public static let fields: [RecordField<NoParams>] = []
}

/// A page of a listing: its items and the cursor of the next page (null after the last).
public struct Page: RecordShape {
    public var items: [JSON] = []
    public var next: String?
    /// How many there are in all, where the method counts them.
    public var total: Int64?

    public init() {}

    public static let fields: [RecordField<Page>] = [
        .defaulted("items", .arrayOf(.any), \.items),
        .nullable("next", .string, \.next),
        .optional("total", .integer(min: 0, max: Int64.max), \.total),
    ]
}

/// `{jobId}`: what the methods that queue a job answer.
public struct QueuedJob: RecordShape {
    public var jobId = ""

    public init() {}

    public static let fields: [RecordField<QueuedJob>] = [.required("jobId", .uuid, \.jobId)]
}

/// `daemon.status` (`DaemonStatus`).
public enum DaemonStatusMethod: SocketMethod {
    public static let name = "daemon.status"
    public typealias Params = NoParams
}

/// `sync.status` (`SyncStatus`).
public enum SyncStatusMethod: SocketMethod {
    public static let name = "sync.status"
    public typealias Params = NoParams
}

/// `sync.now`: syncs now; with `wait`, answers when done (`SyncRun`).
public enum SyncNow: SocketMethod {
    public static let name = "sync.now"

    public struct Params: RecordShape {
        public var wait: Bool?

        public init() {}
        public init(wait: Bool?) { self.wait = wait }

        public static let fields: [RecordField<Params>] = [.optional("wait", .bool, \.wait)]
    }
}

/// `sync.confirm`: lets a held pull make its deletions, and syncs.
public enum SyncConfirm: SocketMethod {
    public static let name = "sync.confirm"
    public typealias Params = NoParams

    public struct Result: RecordShape {
        public var confirmed = false
        /// How many deletions the pull may now make; null when nothing was held.
        public var deletes: Int64?

        public init() {}

        public static let fields: [RecordField<Result>] = [
            .required("confirmed", .bool, \.confirmed),
            .nullable("deletes", .integer(min: 0, max: Int64.max), \.deletes),
        ]
    }
}

extension QueuedJob {
    public init(jobId: String) { self.jobId = jobId }
}

/// `rpc.discover`: the OpenRPC document of the socket API.
public enum RPCDiscover: SocketMethod {
    public static let name = "rpc.discover"
    public typealias Params = NoParams
}

/// `sync.pending`: the outbox, changes not yet accepted by the server.
public enum SyncPending: SocketMethod {
    public static let name = "sync.pending"
    public typealias Params = NoParams
}
