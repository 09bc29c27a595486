import Logging
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Logging for the executables: one line per event on stderr; under systemd (stderr is the journal
/// stream named by JOURNAL_STREAM) each line carries its syslog priority as a `<N>` prefix, so the
/// journal records proper priorities. Libraries only take a `Logger`; only executables call this.
public enum LogSetup {
    public static func bootstrap(level: Logger.Level) {
        let journal = stderrIsJournal()
        LoggingSystem.bootstrap { label in
            var h = LineLogHandler(label: label, journal: journal)
            h.logLevel = level
            return h
        }
    }

    /// JOURNAL_STREAM is "device:inode" of the journal stream; it counts only if stderr is that stream.
    static func stderrIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }
}

public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    let label: String
    let journal: Bool

    init(label: String, journal: Bool) {
        self.label = label
        self.journal = journal
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        var text = ""
        if journal {
            text = "<\(Self.priority(event.level))>"
        } else {
            text = Self.timestamp() + " " + event.level.rawValue + " "
        }
        text += "\(event.message)"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            text += " \(key)=\(value)"
        }
        if let error = event.error { text += " error=\(error)" }
        // One event, one line: a newline inside a message would split it in the journal.
        text = String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 }) + "\n"
        // A log line that cannot be written (stderr closed) is dropped: there is nowhere to say so.
        _ = try? FileDescriptor.standardError.writeAll(text.utf8)
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    static func timestamp() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = tm()
        var secs = ts.tv_sec
        gmtime_r(&secs, &t)
        func p(_ v: Int32, _ w: Int = 2) -> String { let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s }
        return "\(p(t.tm_year + 1900, 4))-\(p(t.tm_mon + 1))-\(p(t.tm_mday))T\(p(t.tm_hour)):\(p(t.tm_min)):\(p(t.tm_sec)).\(p(Int32(ts.tv_nsec / 1_000_000), 3))Z"
    }
}
