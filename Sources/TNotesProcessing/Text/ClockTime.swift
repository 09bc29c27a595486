/// Playback positions as people read them beside a quote: "mm:ss" under an hour, "h:mm:ss" from an hour on.
public enum ClockTime {
    /// Whole seconds, rounded down, so the label never points past the moment it names (seeking to it
    /// replays the start of the words rather than skipping them). Negative, NaN and infinite inputs read as 0.
    public static func format(_ seconds: Double) -> String {
        let whole: Int
        if seconds.isFinite, seconds > 0 {
            // Clamp before converting: Int(Double) traps beyond Int's range.
            whole = seconds >= 1e15 ? 1_000_000_000_000_000 : Int(seconds.rounded(.down))
        } else {
            whole = 0
        }
        let h = whole / 3600, m = (whole % 3600) / 60, s = whole % 60
        return h > 0 ? "\(h):\(twoDigits(m)):\(twoDigits(s))" : "\(twoDigits(m)):\(twoDigits(s))"
    }

    private static func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
