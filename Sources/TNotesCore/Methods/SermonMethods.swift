/// `sermon.create`.
public enum SermonCreate: SocketMethod {
    public static let name = "sermon.create"

    public struct Params: RecordShape {
        public var title = ""
        /// RFC 3339 time or YYYY-MM-DD; absent: now.
        public var date: String?
        public var serviceType: String?
        /// Null: no speaker.
        public var speaker: String??
        /// A client-chosen id; absent: a new one.
        public var id: String?

        public init() {}

        public static let fields: [RecordField<Params>] = [
            .same(as: Sermon.self, \.title, \.title),
            .same(as: Sermon.self, \.date, optional: \.date),
            .same(as: Sermon.self, \.serviceType, optional: \.serviceType),
            .same(as: Sermon.self, \.speaker, optional: \.speaker),
            .same(as: Sermon.self, \.id, optional: \.id),
        ]
    }
}

/// `sermon.get`: the sermon with its children (`SermonDetail`).
public enum SermonGet: SocketMethod {
    public static let name = "sermon.get"
    public typealias Params = IdParams
}

/// `sermon.delete`: tombstones the sermon and its children.
public enum SermonDelete: SocketMethod {
    public static let name = "sermon.delete"
    public typealias Params = IdParams
}

/// `sermon.update`: the fields given change.
public enum SermonUpdate: SocketMethod {
    public static let name = "sermon.update"

    public struct Params: RecordShape {
        public var id = ""
        public var title: String?
        public var date: String?
        public var serviceType: String?
        /// Null clears the speaker.
        public var speaker: String??
        public var isArchived: Bool?
        public var transcriptionStatus: ProcessingStatus?
        public var summaryStatus: ProcessingStatus?

        public init() {}
        public init(id: String) { self.id = id }

        public static let fields: [RecordField<Params>] = [
            .same(as: Sermon.self, \.id, \.id),
            .same(as: Sermon.self, \.title, optional: \.title),
            .same(as: Sermon.self, \.date, optional: \.date),
            .same(as: Sermon.self, \.serviceType, optional: \.serviceType),
            .same(as: Sermon.self, \.speaker, optional: \.speaker),
            .same(as: Sermon.self, \.isArchived, optional: \.isArchived),
            .same(as: Sermon.self, \.transcriptionStatus, optional: \.transcriptionStatus),
            .same(as: Sermon.self, \.summaryStatus, optional: \.summaryStatus),
        ]
    }
}

/// `sermon.list`: sermons, newest date first, a `Page` at a time.
public enum SermonList: SocketMethod {
    public static let name = "sermon.list"

    public struct Params: RecordShape {
        public var includeArchived: Bool?
        public var includeDeleted: Bool?
        /// Page size, default 100.
        public var limit: Int64?
        /// The `next` of the previous page.
        public var after: String??

        public init() {}

        public static let fields: [RecordField<Params>] = [
            .optional("includeArchived", .bool, \.includeArchived),
            .optional("includeDeleted", .bool, \.includeDeleted),
            .optional("limit", .integer(min: 1, max: 1000), \.limit),
            .optional("after", .string, \.after, nullable: true),
        ]
    }
}
