import TNotesConfig
import TNotesCore
import TNotesProcessing
import TNotesSync
import TOMLKit

#if canImport(Glibc)
import Glibc
#endif

/// `tnotesd.toml`, checked strictly: an unknown key, a wrong type or a bad value is an error that names
/// the file and the key (and makes tnotesd exit 78, EX_CONFIG).
public struct DaemonConfig: Sendable, Equatable {
    public var dataDir: String?
    public var socketPath: String?
    public var maxRequestBytes: Int = 4 << 20
    public var logLevel: String = "info"
    public var sync = SyncConfig()
    /// Replaced versions are kept at least this many days (`[history] keep_days`, contract §6.3).
    public var historyKeepDays = 90
    /// `[processing]`: transcription, summaries and the assistant (contract §6.1).
    public var processing = ProcessingSettings()
    /// `[scripture] modules_path`: a SWORD library (a directory with mods.d/ and modules/) to read Bible text
    /// from instead of the system's (/usr/share/sword, where Debian's sword-text-* packages install).
    public var scriptureModulesPath: String?
    /// `[recording]` (contract §8.2).
    public var recording = RecordingConfig()
    /// `[desktop]` (contract §8.4).
    public var desktop = DesktopConfig()

    public struct DesktopConfig: Sendable, Equatable {
        /// Desktop notifications (a job finished or failed, a pull held, a conflict opened).
        public var notifications = true
    }

    public struct RecordingConfig: Sendable, Equatable {
        /// Seconds of audio (pauses excluded) after which a recording stops by itself: 4 hours.
        public var maxDuration = 14_400
        /// Free bytes on the data dir's filesystem below which a recording stops by itself: 500 MB.
        public var minFreeBytes: Int64 = 500_000_000
        /// Queue a transcription when a recording stops.
        public var transcribe = true
    }

    public struct SyncConfig: Sendable, Equatable {
        /// nil: sync disabled, the daemon stays local-only.
        public var serverURL: String?
        public var tokenFile: String?
        /// PEM file of the CAs to trust for an https:// server (a private CA); nil: the system's.
        public var caFile: String?
        public var interval: Double = 60
        public var backoffBase: Double = 1
        public var backoffMax: Double = 300
        public var batchSize: Int = 500
        /// Keep one long-poll pull open, so other devices' changes arrive at once (contract §6.4).
        public var realtime = true
        /// Audio transfers go on over a metered connection (contract §8.4).
        public var audioOnMetered = false
        /// Which sermons' audio comes down, and the local cache's cap (contract §8.7).
        public var audio = AudioSettings()
    }

    public init() {}

    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
}

extension DaemonConfig {
    public static func parse(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
        let table = try TableReader.parse(text, file: file)
        var c = DaemonConfig()
        var r = TableReader(table: table, prefix: "", file: file, expandPath: DaemonPaths.expandTilde)
        c.dataDir = try r.path("data_dir")
        c.socketPath = try r.path("socket_path")
        if let limits = try r.table("limits") {
            var l = TableReader(table: limits, prefix: "limits.", file: file, expandPath: DaemonPaths.expandTilde)
            if let v = try l.int("max_request_bytes", min: 1024, max: 1 << 30) { c.maxRequestBytes = v }
            try l.finish()
        }
        if let history = try r.table("history") {
            var h = TableReader(table: history, prefix: "history.", file: file, expandPath: DaemonPaths.expandTilde)
            if let v = try h.int("keep_days", min: 1, max: 36500) { c.historyKeepDays = v }
            try h.finish()
        }
        if let table = try r.table("processing") {
            c.processing = try parseProcessing(table, file: file)
        }
        if let table = try r.table("recording") {
            var rc = TableReader(table: table, prefix: "recording.", file: file, expandPath: DaemonPaths.expandTilde)
            if let v = try rc.int("max_duration", min: 1, max: 604_800) { c.recording.maxDuration = v }
            if let v = try rc.int("min_free_bytes", min: 0, max: Int.max) { c.recording.minFreeBytes = Int64(v) }
            if let v = try rc.bool("transcribe") { c.recording.transcribe = v }
            try rc.finish()
        }
        if let table = try r.table("desktop") {
            var d = TableReader(table: table, prefix: "desktop.", file: file, expandPath: DaemonPaths.expandTilde)
            if let v = try d.bool("notifications") { c.desktop.notifications = v }
            try d.finish()
        }
        if let table = try r.table("scripture") {
            var sc = TableReader(table: table, prefix: "scripture.", file: file, expandPath: DaemonPaths.expandTilde)
            c.scriptureModulesPath = try sc.path("modules_path")
            try sc.finish()
        }
        if let log = try r.table("log") {
            var l = TableReader(table: log, prefix: "log.", file: file, expandPath: DaemonPaths.expandTilde)
            if let v = try l.string("level") {
                guard logLevels.contains(v) else {
                    throw ConfigError(file: file, key: "log.level", problem: "must be one of \(logLevels.joined(separator: ", ")) (got \"\(v)\")")
                }
                c.logLevel = v
            }
            try l.finish()
        }
        if let sync = try r.table("sync") {
            var s = TableReader(table: sync, prefix: "sync.", file: file, expandPath: DaemonPaths.expandTilde)
            if let url = try s.string("server_url") {
                guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count > 8 else {
                    throw ConfigError(file: file, key: "sync.server_url", problem: "must be an http:// or https:// URL (got \"\(url)\")")
                }
                c.sync.serverURL = url
            }
            c.sync.tokenFile = try s.path("token_file")
            if let ca = try s.path("ca_file") {
                // Read now: a missing or unreadable CA file is a config error, not a sync that fails later.
                guard access(ca, R_OK) == 0 else {
                    throw ConfigError(file: file, key: "sync.ca_file", problem: "\(ca) cannot be read: \(String(cString: strerror(errno)))")
                }
                c.sync.caFile = ca
            }
            if let v = try s.seconds("interval", min: 1) { c.sync.interval = v }
            if let v = try s.seconds("backoff_base", min: 0.01) { c.sync.backoffBase = v }
            if let v = try s.seconds("backoff_max", min: 0.01) { c.sync.backoffMax = v }
            if let v = try s.int("batch_size", min: 1, max: 5000) { c.sync.batchSize = v }
            if let v = try s.bool("realtime") { c.sync.realtime = v }
            if let v = try s.bool("audio_on_metered") { c.sync.audioOnMetered = v }
            if let v = try s.string("audio") {
                guard let mode = AudioMode(rawValue: v) else {
                    let modes = AudioMode.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                    throw ConfigError(file: file, key: "sync.audio", problem: "must be one of \(modes) (got \"\(v)\")")
                }
                c.sync.audio.mode = mode
            }
            c.sync.audio.cacheBytes = try s.bytes("audio_cache_bytes")
            try s.finish()
            if c.sync.backoffMax < c.sync.backoffBase {
                throw ConfigError(file: file, key: "sync.backoff_max", problem: "must not be less than sync.backoff_base")
            }
        }
        try r.finish()
        // Retries of jobs follow the sync backoff policy.
        c.processing.backoff = BackoffPolicy(base: c.sync.backoffBase, factor: 2, max: c.sync.backoffMax)
        return c
    }

    static func parseProcessing(_ table: TOMLTable, file: String) throws(ConfigError) -> ProcessingSettings {
        var p = ProcessingSettings()
        var r = TableReader(table: table, prefix: "processing.", file: file, expandPath: DaemonPaths.expandTilde)
        if let v = try r.bool("auto_transcribe") { p.autoTranscribe = v }
        if let v = try r.bool("auto_summarize") { p.autoSummarize = v }
        if let v = try r.string("auto_summary_type") {
            guard StatusValues.summaryTypes.contains(v) else {
                throw r.fail("auto_summary_type", "must be one of \(StatusValues.summaryTypes.joined(separator: ", ")) (got \"\(v)\")")
            }
            p.autoSummaryType = v
        }
        if let v = try r.string("transcriber") {
            guard let t = ProcessingSettings.Transcriber(rawValue: v) else {
                let names = ProcessingSettings.Transcriber.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw r.fail("transcriber", "must be one of \(names) (got \"\(v)\")")
            }
            p.transcriber = t
        }
        if let v = try r.argv("transcribe_command") { p.transcribeCommand = v }
        if let v = try r.string("summarizer") {
            guard let e = ProcessingSettings.Engine(rawValue: v) else {
                throw r.fail("summarizer", "must be \"builtin\" or \"command\" (got \"\(v)\")")
            }
            p.summarizer = e
        }
        if let v = try r.argv("summarize_command") { p.summarizeCommand = v }
        if let v = try r.argv("chat_command") { p.chatCommand = v }
        if let v = try r.seconds("timeout", min: 1) { p.timeout = v }
        if let v = try r.int("max_attempts", min: 1, max: 100) { p.maxAttempts = v }
        if let v = try r.int("workers", min: 1, max: 16) { p.workers = v }
        if let v = try r.path("model_dir") { p.configuredModelDirectory = v }
        if let v = try r.seconds("stall_timeout", min: 1) { p.stallSeconds = v }
        if let v = try r.bool("on_battery") { p.runOnBattery = v }
        try r.finish()
        if p.transcriber == .command && p.transcribeCommand.isEmpty {
            throw ConfigError(file: file, key: "processing.transcribe_command", problem: "is required when transcriber = \"command\"")
        }
        if p.summarizer == .command && p.summarizeCommand.isEmpty {
            throw ConfigError(file: file, key: "processing.summarize_command", problem: "is required when summarizer = \"command\"")
        }
        return p
    }
}

