/// `backup.export`: every record of every collection, a `Page` (with `total`) at a time.
public enum BackupExport: SocketMethod {
    public static let name = "backup.export"

    public struct Params: RecordShape {
        /// The `next` of the previous page.
        public var after: String??
        /// Page size, default 1000.
        public var limit: Int64?

        public init() {}
        public init(after: String?, limit: Int64) {
            self.after = .some(after)
            self.limit = limit
        }

        public static let fields: [RecordField<Params>] = [
            .optional("after", .string, \.after, nullable: true),
            .optional("limit", .integer(min: 1, max: 5000), \.limit),
        ]
    }
}

/// `backup.import`: records as `backup.export` gave them, merged by id.
public enum BackupImport: SocketMethod {
    public static let name = "backup.import"

    public struct Params: RecordShape {
        /// `[{collection, deviceId, record}]`.
        public var items: [JSONObject] = []

        public init() {}
        public init(items: [JSONObject]) { self.items = items }

        public static let fields: [RecordField<Params>] = [.required("items", .arrayOf(.object), \.items)]
    }

    public struct Result: RecordShape {
        public var applied: Int64 = 0
        public var unchanged: Int64 = 0

        public init() {}
        public init(applied: Int64, unchanged: Int64) {
            self.applied = applied
            self.unchanged = unchanged
        }

        public static let fields: [RecordField<Result>] = [
            .required("applied", .integer(min: 0, max: Int64.max), \.applied),
            .required("unchanged", .integer(min: 0, max: Int64.max), \.unchanged),
        ]
    }
}

/// The backup document `tnotes export --all --format json` writes: `{format: "tnotes-backup", version: 1,
/// exportedAt, deviceId, records: [{collection, deviceId, record}]}`.
public struct BackupDocument: RecordShape {
    public static let formatName = "tnotes-backup"

    public var format = BackupDocument.formatName
    public var version: Int64 = 1
    public var exportedAt = ""
    public var deviceId: String?
    public var records: [JSONObject] = []

    public init() {}

    public static let fields: [RecordField<BackupDocument>] = [
        .required("format", .string, \.format),
        .required("version", .integer(min: 1, max: Int64.max), \.version),
        .required("exportedAt", .time, \.exportedAt),
        .nullable("deviceId", .string, \.deviceId),
        .required("records", .arrayOf(.object), \.records),
    ]
}

/// `audio.import`: attaches an audio file on this machine to a sermon.
public enum AudioImport: SocketMethod {
    public static let name = "audio.import"

    public struct Params: RecordShape {
        public var sermonId = ""
        /// A readable file on this machine.
        public var path = ""

        public init() {}
        public init(sermonId: String, path: String) {
            self.sermonId = sermonId
            self.path = path
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: Note.self, \.sermonId, \.sermonId),
            .required("path", .text, \.path),
        ]
    }
}

/// `audio.path`: where this device holds a sermon's audio file.
public enum AudioPath: SocketMethod {
    public static let name = "audio.path"
    public typealias Params = SermonIdParams

    public struct Result: RecordShape {
        /// Null when this device does not hold the file.
        public var path: String?
        public var localAvailable = false

        public init() {}
        public init(path: String?) {
            self.path = path
            localAvailable = path != nil
        }

        public static let fields: [RecordField<Result>] = [
            .nullable("path", .string, \.path),
            .required("localAvailable", .bool, \.localAvailable),
        ]
    }
}

/// `audio.fetch`: brings a sermon's audio to this device (audio on demand, contract §8.7).
public enum AudioFetch: SocketMethod {
    public static let name = "audio.fetch"
    public typealias Params = SermonIdParams

    public struct Result: RecordShape {
        public var path = ""
        public var localAvailable = true
        /// False when the copy was already here.
        public var fetched = false
        public var sizeBytes: Int64 = 0

        public init() {}

        public static let fields: [RecordField<Result>] = [
            .required("path", .string, \.path),
            .required("localAvailable", .bool, \.localAvailable),
            .required("fetched", .bool, \.fetched),
            .required("sizeBytes", .integer(min: 0, max: Int64.max), \.sizeBytes),
        ]
    }
}

/// `audio.evict`: drops this device's copy of a sermon's audio that the server holds.
public enum AudioEvict: SocketMethod {
    public static let name = "audio.evict"
    public typealias Params = SermonIdParams

    public struct Result: RecordShape {
        /// False when there was no copy here.
        public var evicted = false

        public init() {}

        public static let fields: [RecordField<Result>] = [.required("evicted", .bool, \.evicted)]
    }
}
