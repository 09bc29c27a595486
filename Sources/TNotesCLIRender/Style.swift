/// ANSI styling. Whether it is on is decided by the caller (`tnotes` turns it on only on a terminal and never
/// with NO_COLOR set), so the renderers stay pure functions of their input and a fuzzer can call them.
public struct Style: Sendable {
    public let enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    private func wrap(_ s: String, _ code: String) -> String { enabled && !s.isEmpty ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    public func bold(_ s: String) -> String { wrap(s, "1") }
    public func dim(_ s: String) -> String { wrap(s, "2") }
    public func green(_ s: String) -> String { wrap(s, "32") }
    public func yellow(_ s: String) -> String { wrap(s, "33") }
    public func red(_ s: String) -> String { wrap(s, "31") }
    public func cyan(_ s: String) -> String { wrap(s, "36") }

    /// Sync and processing states in traffic-light colours.
    public func state(_ s: String) -> String {
        switch s {
        case "synced", "complete", "idle": return green(s)
        case "pending", "processing", "syncing", "backoff": return yellow(s)
        case "error", "failed", "offline", "revoked": return red(s)
        default: return s
        }
    }
}
