/// Playback positions as people read them: "mm:ss" under an hour, "h:mm:ss" from an hour on.
///
/// The one place a number of seconds becomes clock text (the CLI, the public page, exports, the assistant's
/// quotes). It is total: any Double a record can hold, however it got there, renders. Values stored before
/// the bounds of contract §8.1 (docs/socket-api.md, "Bounds") may be as large as 1e308; `Int(seconds)` on
/// such a value traps, which is how one published note once stopped the server.
public enum ClockTime {
    /// Whole seconds, rounded down, so the label never points past the moment it names (seeking to it
    /// replays the start of the words rather than skipping them). Negative, NaN and infinite inputs read as 0.
    public static func format(_ seconds: Double) -> String {
        let whole = wholeSeconds(seconds)
        let h = whole / 3600, m = (whole % 3600) / 60, s = whole % 60
        return h > 0 ? "\(h):\(twoDigits(m)):\(twoDigits(s))" : "\(twoDigits(m)):\(twoDigits(s))"
    }

    /// `seconds` rounded down to a whole number, clamped to 0 ... 10^15 (about 31.7 million years; far past
    /// any real recording, and far inside Int's range). NaN and negatives are 0.
    public static func wholeSeconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        // Clamp before converting: Int(Double) traps beyond Int's range.
        return seconds >= 1e15 ? 1_000_000_000_000_000 : Int(seconds.rounded(.down))
    }

    /// A length of time for people: `3d 4h`, `2h 5m`, `4m 10s`, `12s`. Total, as `format`.
    public static func duration(_ seconds: Double) -> String {
        var s = wholeSeconds(seconds)
        let d = s / 86400; s %= 86400
        let h = s / 3600; s %= 3600
        let m = s / 60; s %= 60
        if d > 0 { return "\(d)d \(h)h" }
        if h > 0 { return "\(h)h \(m)m" }
        if m > 0 { return "\(m)m \(s)s" }
        return "\(s)s"
    }

    private static func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
