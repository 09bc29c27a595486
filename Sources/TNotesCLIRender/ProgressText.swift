import TNotesCore

/// The text of the CLI's progress lines (the lines themselves, on a terminal only, are `tnotes`'s).
public enum ProgressText {
    /// `exporting 1200/5000 (850/s)`, `elapsedSeconds` since the first step (under a millisecond, or not a
    /// number, counts as one millisecond: no division by zero, and the rate is clamped into Int's range).
    public static func counter(label: String, count: Int, total: Int, elapsedSeconds: Double) -> String {
        let seconds = max(0.001, elapsedSeconds)
        return "\(label) \(count)/\(total) (\(Format.clampedInt(Double(count) / seconds))/s)"
    }

    /// `syncing: pushed 3/10, pulled 40`, from a `sync.progress` event's params.
    public static func sync(_ p: JSON) -> String {
        let pushed = p["pushed"]?.int64Value ?? 0, toPush = p["toPush"]?.int64Value ?? 0, pulled = p["pulled"]?.int64Value ?? 0
        return "syncing: pushed \(pushed)/\(max(toPush, pushed)), pulled \(pulled)"
    }

    /// `fetching audio: 12.3 MB of 50.0 MB (24%)`, from an `audio.progress` event's params (a fetch under way).
    public static func audio(_ p: JSON) -> String {
        let bytes = max(0, p["bytes"]?.int64Value ?? 0)
        guard let total = p["total"]?.int64Value, total > 0 else { return "fetching audio: \(Format.bytes(bytes))" }
        let percent = Format.clampedInt(Double(bytes) / Double(total) * 100)
        return "fetching audio: \(Format.bytes(bytes)) of \(Format.bytes(total)) (\(percent)%)"
    }

    /// `transcribing: 42%` for a running job's `progress` (a fraction), `transcribing…` without one.
    public static func job(label: String, progress: JSON?) -> String {
        guard let p = progress?.doubleValue else { return "\(label)…" }
        return "\(label): \(percent(p))%"
    }

    /// A fraction as whole percent, truncated as `Int(p * 100)` did; total for any Double (a progress of
    /// 1e308 once stored would have trapped).
    public static func percent(_ fraction: Double) -> Int { Format.clampedInt(fraction * 100) }
}
