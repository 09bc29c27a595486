/// `sync.status`'s result (and `daemon.status`'s `sync`): where the sync engine is. The renderers read it
/// through `LenientRecord<SyncStatus>`, so a member the daemon leaves out shows as "-", never as a 0 it is not.
public struct SyncStatus: RecordShape {
    /// `idle`, `syncing`, `backoff`, `offline`, `held`, `revoked` (the server revoked this device), `error` or `disabled`.
    public var state = ""
    public var serverUrl: String?
    public var pendingOps: Int64 = 0
    public var failedOps: Int64 = 0
    /// The attempt number of the current retry (0: none).
    public var attempt: Int64 = 0
    public var nextAttemptAt: String?
    public var lastSuccessAt: String?
    public var lastError: String?
    /// Deletions a held pull would make (`state` held).
    public var heldDeletes: Int64?
    /// How many syncs each trigger started, by trigger (`startup`, `periodic`, `localChange`, …).
    public var triggers = JSONObject()
    public var realtime = false
    public var realtimeConnected = false
    /// NetworkManager says the connection is metered (audio transfers wait; contract §8.4).
    public var metered = false
    /// UPower says the machine runs on battery (automatic transcriptions wait, the interval doubles).
    public var onBattery = false
    /// The periodic sync's interval now, in seconds (doubled on battery); absent when sync is disabled.
    public var intervalSeconds: Double?
    /// Which audio this device keeps, and how much it holds (contract §8.7); absent when sync is disabled.
    public var audio: AudioCache?

    public init() {}

    /// `[sync] audio` and `audio_cache_bytes`, and the local copies now.
    public struct AudioCache: RecordShape {
        /// `always`, `on-demand` or `never`.
        public var mode = ""
        /// The cache's budget in bytes (null: no cap).
        public var cacheBytes: Int64?
        public var localBytes: Int64 = 0
        public var localFiles: Int64 = 0

        public init() {}

        public static let fields: [RecordField<AudioCache>] = [
            .required("mode", .string, \.mode),
            .nullable("cacheBytes", .integer(min: 0, max: Int64.max), \.cacheBytes),
            .required("localBytes", .integer(min: 0, max: Int64.max), \.localBytes),
            .required("localFiles", .integer(min: 0, max: Int64.max), \.localFiles),
        ]
    }

    public static let fields: [RecordField<SyncStatus>] = [
        .required("state", .string, \.state),
        .nullable("serverUrl", .string, \.serverUrl),
        .required("pendingOps", .integer(min: 0, max: Int64.max), \.pendingOps),
        .required("failedOps", .integer(min: 0, max: Int64.max), \.failedOps),
        .defaulted("attempt", .integer(min: 0, max: Int64.max), \.attempt),
        .nullable("nextAttemptAt", .time, \.nextAttemptAt),
        .nullable("lastSuccessAt", .time, \.lastSuccessAt),
        .nullable("lastError", .string, \.lastError),
        .nullable("heldDeletes", .integer(min: 0, max: Int64.max), \.heldDeletes),
        .defaulted("triggers", .object, \.triggers),
        .defaulted("realtime", .bool, \.realtime),
        .defaulted("realtimeConnected", .bool, \.realtimeConnected),
        .defaulted("metered", .bool, \.metered),
        .defaulted("onBattery", .bool, \.onBattery),
        .optional("intervalSeconds", .number(min: 0), \.intervalSeconds),
        .optional("audio", .object, \.audio),
    ]
}

/// `sync.now`'s result: `started` alone without `wait`; with it, what the sync did.
public struct SyncRun: RecordShape {
    public var started = false
    public var pushed: Int64 = 0
    public var pulled: Int64 = 0
    /// Changes the pulls received, applied or not.
    public var downloaded: Int64 = 0
    public var conflicts: Int64 = 0
    public var rejected: Int64 = 0
    public var durationMs: Int64 = 0
    /// Deletions a held pull did not make (0: nothing held).
    public var held: Int64 = 0

    public init() {}

    public static let fields: [RecordField<SyncRun>] = [
        .defaulted("started", .bool, \.started),
        .defaulted("pushed", .integer(min: 0, max: Int64.max), \.pushed),
        .defaulted("pulled", .integer(min: 0, max: Int64.max), \.pulled),
        .defaulted("downloaded", .integer(min: 0, max: Int64.max), \.downloaded),
        .defaulted("conflicts", .integer(min: 0, max: Int64.max), \.conflicts),
        .defaulted("rejected", .integer(min: 0, max: Int64.max), \.rejected),
        .defaulted("durationMs", .integer(min: 0, max: Int64.max), \.durationMs),
        .defaulted("held", .integer(min: 0, max: Int64.max), \.held),
    ]
}

/// `daemon.status`'s result.
public struct DaemonStatus: RecordShape {
    public var version = ""
    public var schemaVersion: Int64 = 0
    public var deviceId = ""
    public var pid: Int64 = 0
    public var uptimeSeconds: Double = 0
    public var socketPath = ""
    public var dataDir = ""
    public var sync = SyncStatus()
    /// The full-text index is filling after a large pull (a search meanwhile waits for it).
    public var searchIndexCatchingUp = false

    public init() {}

    public static let fields: [RecordField<DaemonStatus>] = [
        .required("version", .string, \.version),
        .required("schemaVersion", .integer(min: 0, max: Int64.max), \.schemaVersion),
        .required("deviceId", .uuid, \.deviceId),
        .required("pid", .integer(min: 1, max: Int64.max), \.pid),
        .required("uptimeSeconds", .number(min: 0), \.uptimeSeconds),
        .required("socketPath", .string, \.socketPath),
        .required("dataDir", .string, \.dataDir),
        .required("sync", .object, \.sync),
        .defaulted("searchIndexCatchingUp", .bool, \.searchIndexCatchingUp),
    ]
}
