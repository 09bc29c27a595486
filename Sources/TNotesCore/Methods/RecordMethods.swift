/// `conflicts.list`: conflicts, newest first (`[Conflict]`).
public enum ConflictsList: SocketMethod {
    public static let name = "conflicts.list"

    public struct Params: RecordShape {
        /// Absent: both.
        public var state: Conflict.State?

        public init() {}

        public static let fields: [RecordField<Params>] = [.same(as: Conflict.self, \.state, optional: \.state)]
    }
}

/// `conflicts.resolve`: sets the conflicted field to `value` and closes the conflict (the `Conflict`).
public enum ConflictsResolve: SocketMethod {
    public static let name = "conflicts.resolve"

    public struct Params: RecordShape {
        public var id = ""
        public var value = ""

        public init() {}
        public init(id: String, value: String) {
            self.id = id
            self.value = value
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: Conflict.self, \.id, \.id),
            .required("value", .string, \.value),
        ]
    }
}

/// The collections whose records keep their earlier versions (every one but the append-only chat).
public let versionedCollections = RecordCollection.allCases.filter { !$0.isAppendOnly }

/// `history.list`: every version of a record this device held, newest first (`{items: [HistoryVersion]}`).
public enum HistoryList: SocketMethod {
    public static let name = "history.list"

    public struct Params: RecordShape {
        public var collection = RecordCollection.sermons
        public var id = ""
        /// Default 100.
        public var limit: Int64?

        public init() {}
        public init(collection: RecordCollection, id: String, limit: Int64?) {
            self.collection = collection
            self.id = id
            self.limit = limit
        }

        public static let fields: [RecordField<Params>] = [
            .required("collection", .enumeration(versionedCollections.map(\.rawValue)), \.collection),
            .required("id", .uuid, \.id),
            .optional("limit", .integer(min: 1, max: 1000), \.limit),
        ]
    }

    public struct Result: RecordShape {
        public var items: [HistoryVersion] = []

        public init() {}

        public static let fields: [RecordField<Result>] = [.defaulted("items", .arrayOf(.object), \.items)]
    }
}

/// `history.restore`: a held version of a record, restored as a new edit that syncs (the record).
public enum HistoryRestore: SocketMethod {
    public static let name = "history.restore"

    public struct Params: RecordShape {
        public var collection = RecordCollection.sermons
        public var id = ""
        /// The version, by its `updatedAt` and `deviceId` (as `history.list` gives them).
        public var updatedAt = ""
        public var deviceId = ""

        public init() {}
        public init(collection: RecordCollection, id: String, updatedAt: String, deviceId: String) {
            self.collection = collection
            self.id = id
            self.updatedAt = updatedAt
            self.deviceId = deviceId
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: HistoryList.Params.self, \.collection, \.collection),
            .same(as: HistoryList.Params.self, \.id, \.id),
            .same(as: HistoryVersion.self, \.updatedAt, \.updatedAt),
            .same(as: HistoryVersion.self, \.deviceId, \.deviceId),
        ]
    }
}

/// `sermon.publish`: publishes (or republishes) a sermon's public page (a `PublicationView`).
public enum SermonPublish: SocketMethod {
    public static let name = "sermon.publish"

    public struct Params: RecordShape {
        public var id = ""
        public var parts: [Publication.Part]?
        /// The readable part of the page's address (default: from the title); kept on later publishes.
        public var slug: String?
        /// Contract §8.5; each kept from the last publish when absent.
        public var description: String?
        public var tags: [String]?
        public var language: String?
        public var canFork: Bool?

        public init() {}
        public init(id: String, parts: [Publication.Part]?, slug: String?, description: String? = nil, tags: [String]? = nil,
                    language: String? = nil, canFork: Bool? = nil) {
            self.id = id
            self.parts = parts
            self.slug = slug
            self.description = description
            self.tags = tags
            self.language = language
            self.canFork = canFork
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: Sermon.self, \.id, \.id),
            .same(as: Publication.self, \.parts, optional: \.parts),
            .optional("slug", .text, \.slug),
            .same(as: Publication.self, \.description, optional: \.description),
            .same(as: Publication.self, \.tags, optional: \.tags),
            .same(as: Publication.self, \.language, optional: \.language),
            .same(as: Publication.self, \.canFork, optional: \.canFork),
        ]
    }
}

/// `sermon.unpublish`: takes the page down (a `PublicationView`).
public enum SermonUnpublish: SocketMethod {
    public static let name = "sermon.unpublish"
    public typealias Params = IdParams
}

/// A publication as `sermon.get` and `sermon.publish` show it: `pending` until the server has the latest
/// version, and its address known from then on.
public struct PublicationView: RecordShape {
    public var sermonId: String?
    public var publicId = ""
    public var parts: [Publication.Part] = []
    /// `pending`, `published` or `unpublished`.
    public var state = "pending"
    public var url: String?
    public var publishedAt: String?
    public var description: String?
    public var tags: [String] = []
    public var language = Publication.defaultLanguage
    public var canFork = false

    public init() {}

    public static let fields: [RecordField<PublicationView>] = [
        .nullable("sermonId", .uuid, \.sermonId),
        .required("publicId", .string, \.publicId),
        .defaulted("parts", .arrayOf(Publication.Part.fieldType), \.parts),
        .required("state", .enumeration(["pending", "published", "unpublished"]), \.state),
        .nullable("url", .string, \.url),
        .nullable("publishedAt", .time, \.publishedAt),
        .nullable("description", .string, \.description),
        .defaulted("tags", .arrayOf(.string), \.tags),
        .defaulted("language", .string, \.language),
        .defaulted("canFork", .bool, \.canFork),
    ]
}

/// `transcript.set`: creates or replaces a sermon's transcript (the `Transcript`).
public enum TranscriptSet: SocketMethod {
    public static let name = "transcript.set"

    public struct Params: RecordShape {
        public var sermonId = ""
        public var text = ""
        public var status: ProcessingStatus?
        /// `[{start, end, text, speaker?}]`: a JSON array, never a string.
        public var segments: [Transcript.Segment]?

        public init() {}

        public static let fields: [RecordField<Params>] = [
            .same(as: Transcript.self, \.sermonId, \.sermonId),
            .same(as: Transcript.self, \.text, \.text),
            .same(as: Transcript.self, \.status, optional: \.status),
            .same(as: Transcript.self, \.segments, optional: \.segments),
        ]
    }
}

/// `summary.set`: creates or replaces a sermon's summary (the `Summary`).
public enum SummarySet: SocketMethod {
    public static let name = "summary.set"

    public struct Params: RecordShape {
        public var sermonId = ""
        public var title = ""
        public var text = ""
        public var type = Summary.Kind.devotional
        public var status: ProcessingStatus?

        public init() {}

        public static let fields: [RecordField<Params>] = [
            .same(as: Summary.self, \.sermonId, \.sermonId),
            .same(as: Summary.self, \.title, \.title),
            .same(as: Summary.self, \.text, \.text),
            .same(as: Summary.self, \.type, \.type),
            .same(as: Summary.self, \.status, optional: \.status),
        ]
    }
}

/// `jobs.list`: processing jobs, newest first (`[Job]`).
public enum JobsList: SocketMethod {
    public static let name = "jobs.list"

    public struct Params: RecordShape {
        /// `queued`, `running`, `done` or `failed`; absent: all.
        public var state: String?
        public var sermonId: String?
        /// Default 100.
        public var limit: Int64?

        public init() {}

        public static let fields: [RecordField<Params>] = [
            .optional("state", .enumeration(["queued", "running", "done", "failed"]), \.state),
            .same(as: Job.self, \.sermonId, optional: \.sermonId),
            .optional("limit", .integer(min: 1, max: 1000), \.limit),
        ]
    }
}
