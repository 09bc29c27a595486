import TNotesClient
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// ANSI styling, only on a terminal and never with NO_COLOR set (https://no-color.org).
struct Style {
    let enabled: Bool

    static let stdout = Style(enabled: isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil)

    private func wrap(_ s: String, _ code: String) -> String { enabled && !s.isEmpty ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func bold(_ s: String) -> String { wrap(s, "1") }
    func dim(_ s: String) -> String { wrap(s, "2") }
    func green(_ s: String) -> String { wrap(s, "32") }
    func yellow(_ s: String) -> String { wrap(s, "33") }
    func red(_ s: String) -> String { wrap(s, "31") }
    func cyan(_ s: String) -> String { wrap(s, "36") }

    /// Sync and processing states in traffic-light colours.
    func state(_ s: String) -> String {
        switch s {
        case "synced", "complete", "idle": return green(s)
        case "pending", "processing", "syncing", "backoff": return yellow(s)
        case "error", "failed", "offline": return red(s)
        default: return s
        }
    }
}

enum Format {
    /// Seconds into the audio as `mm:ss`, or `h:mm:ss` from one hour on.
    static func offset(_ seconds: Double) -> String {
        let total = seconds.isFinite && seconds > 0 ? Int(seconds.rounded(.down)) : 0
        let h = total / 3600, m = (total / 60) % 60, s = total % 60
        return h > 0 ? "\(h):\(pad(m)):\(pad(s))" : "\(pad(m)):\(pad(s))"
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A sermon date: `2025-11-09` at midnight UTC, else `2025-11-09 10:30 UTC`.
    static func date(_ text: String?) -> String {
        guard let t = text else { return "-" }
        guard t.utf8.count >= 16 else { return t }
        let day = String(t.prefix(10))
        if t.dropFirst(10).hasPrefix("T00:00:00.000Z") { return day }
        return "\(day) \(t.dropFirst(11).prefix(5)) UTC"
    }

    /// A time stamp for people: `2025-11-09 10:30:00 UTC` (nil/null → `never` or the given word).
    static func time(_ value: JSON?, none: String = "-") -> String {
        guard let t = value?.stringValue, t.utf8.count >= 19 else { return none }
        return "\(t.prefix(10)) \(t.dropFirst(11).prefix(8)) UTC"
    }

    static func bytes(_ n: Int64) -> String {
        if n < 1000 { return "\(n) B" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(n) / 1000
        var i = 0
        while value >= 1000 && i < units.count - 1 { value /= 1000; i += 1 }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[i])"
    }

    static func duration(seconds: Double) -> String {
        var s = Int(seconds)
        let d = s / 86400; s %= 86400
        let h = s / 3600; s %= 3600
        let m = s / 60; s %= 60
        if d > 0 { return "\(d)d \(h)h" }
        if h > 0 { return "\(h)h \(m)m" }
        if m > 0 { return "\(m)m \(s)s" }
        return "\(s)s"
    }

    static func number(_ v: JSON?) -> String {
        guard let v else { return "-" }
        switch v {
        case .int(let i): return "\(i)"
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? "\(Int64(d))" : "\(d)"
        case .string(let s): return s
        case .null: return "-"
        default: return v.text
        }
    }

    /// Width in terminal columns (one per character; good enough for the scripts sermons are written in).
    static func width(_ s: String) -> Int { s.count }

    static func padRight(_ s: String, _ w: Int) -> String {
        let n = width(s)
        return n >= w ? s : s + String(repeating: " ", count: w - n)
    }

    static func padLeft(_ s: String, _ w: Int) -> String {
        let n = width(s)
        return n >= w ? s : String(repeating: " ", count: w - n) + s
    }

    static func truncate(_ s: String, _ w: Int) -> String {
        s.count <= w ? s : String(s.prefix(w - 1)) + "…"
    }

    /// `key: value` lines with the values aligned.
    static func fields(_ rows: [(String, String)], style: Style, indent: String = "") -> String {
        let w = rows.map { width($0.0) }.max() ?? 0
        return rows.map { "\(indent)\(style.dim(padRight($0.0 + ":", w + 1)))  \($0.1)" }.joined(separator: "\n")
    }
}

/// An aligned text table; the styling of a cell does not count towards its width.
struct Table {
    enum Align { case left, right }
    struct Column {
        let title: String
        var align: Align = .left
        var style: (String) -> String = { $0 }
    }
    let columns: [Column]
    var rows: [[String]] = []

    func render(style: Style) -> String {
        var widths = columns.map { Format.width($0.title) }
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], Format.width(cell)) } }
        func line(_ cells: [String], header: Bool) -> String {
            var parts = [String]()
            for (i, cell) in cells.enumerated() {
                let last = i == cells.count - 1
                let gap = String(repeating: " ", count: max(0, widths[i] - Format.width(cell)))
                let text = header ? style.bold(cell) : columns[i].style(cell)
                if columns[i].align == .right { parts.append(gap + text) }
                else { parts.append(last ? text : text + gap) }
            }
            return parts.joined(separator: "  ")
        }
        return ([line(columns.map(\.title), header: true)] + rows.map { line($0, header: false) }).joined(separator: "\n")
    }
}
