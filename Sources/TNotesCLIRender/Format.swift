import TNotesCore

/// Small text formatters of values the daemon returns. Every one is total (contract §8.1): a record may hold
/// any value a stored record can hold, so nothing here converts, indexes or repeats by an unchecked number.
/// Clock times are `ClockTime.format` (TNotesCore), the one formatter of them.
public enum Format {
    public static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A sermon date: `2025-11-09` at midnight UTC, else `2025-11-09 10:30 UTC`.
    public static func date(_ text: String?) -> String {
        guard let t = text else { return "-" }
        guard t.utf8.count >= 16 else { return t }
        let day = String(t.prefix(10))
        if t.dropFirst(10).hasPrefix("T00:00:00.000Z") { return day }
        return "\(day) \(t.dropFirst(11).prefix(5)) UTC"
    }

    /// A time stamp for people: `2025-11-09 10:30:00 UTC` (nil/null → `never` or the given word).
    public static func time(_ value: JSON?, none: String = "-") -> String {
        time(value?.stringValue, none: none)
    }

    /// A time stamp for people from its text (nil, or too short to be one → `none`).
    public static func time(_ text: String?, none: String = "-") -> String {
        guard let t = text, t.utf8.count >= 19 else { return none }
        return "\(t.prefix(10)) \(t.dropFirst(11).prefix(8)) UTC"
    }

    public static func bytes(_ n: Int64) -> String {
        if n < 1000 { return "\(n) B" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(n) / 1000
        var i = 0
        while value >= 1000 && i < units.count - 1 { value /= 1000; i += 1 }
        // Int64.max is 9.2e6 TB here, far inside Int; clamped all the same, so no input can reach a trap.
        let tenths = clampedInt((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[i])"
    }

    /// `d` truncated toward zero as `Int(d)` does, but total: NaN is 0, and values beyond ±10^15 are clamped
    /// to it (`Int(Double)` traps outside Int's range).
    public static func clampedInt(_ d: Double) -> Int {
        guard !d.isNaN else { return 0 }
        if d >= 1e15 { return 1_000_000_000_000_000 }
        if d <= -1e15 { return -1_000_000_000_000_000 }
        return Int(d)
    }

    public static func number(_ v: JSON?) -> String {
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
    public static func width(_ s: String) -> Int { s.count }

    public static func padRight(_ s: String, _ w: Int) -> String {
        let n = width(s)
        return n >= w ? s : s + spaces(w - n)
    }

    public static func padLeft(_ s: String, _ w: Int) -> String {
        let n = width(s)
        return n >= w ? s : spaces(w - n) + s
    }

    /// `n` spaces; none when `n` is not positive.
    public static func spaces(_ n: Int) -> String { repeated(UInt8(ascii: " "), n) }

    /// `n` copies of an ASCII character, in one allocation; none when `n` is not positive. (The standard
    /// `String(repeating:count:)` appends its string `n` times: 11 % of the render fuzzer's time went there,
    /// padding every line of a transcript whose speaker has 1,000 characters.)
    public static func repeated(_ ascii: UInt8, _ n: Int) -> String {
        guard n > 0 else { return "" }
        return String(unsafeUninitializedCapacity: n) { buffer in
            buffer.initialize(repeating: ascii)
            return n
        }
    }

    /// At most `w` characters, the last an ellipsis when cut. `w` below 1 leaves nothing (`prefix(w - 1)`
    /// with a negative count would trap).
    public static func truncate(_ s: String, _ w: Int) -> String {
        guard w > 0 else { return "" }
        return s.count <= w ? s : String(s.prefix(w - 1)) + "…"
    }

    /// `key: value` lines with the values aligned.
    public static func fields(_ rows: [(String, String)], style: Style, indent: String = "") -> String {
        let w = rows.map { width($0.0) }.max() ?? 0
        return rows.map { "\(indent)\(style.dim(padRight($0.0 + ":", w + 1)))  \($0.1)" }.joined(separator: "\n")
    }

    /// Multi-line text on one line (each run of newlines becomes a space), at most 100 characters.
    public static func oneLine(_ s: String) -> String {
        // Most texts have no newline (no byte that starts one of `Character.isNewline`'s: LF, VT, FF, CR,
        // NEL as C2 85, LS and PS as E2 80 A8/A9): then the text is its line, and its first 101 characters
        // tell whether it is cut. Splitting and counting a 100,000-character note by Character was a fifth
        // of the render fuzzer's time.
        let mayBreak = s.utf8.contains { ($0 >= 0x0A && $0 <= 0x0D) || $0 == 0xC2 || $0 == 0xE2 }
        let line = mayBreak ? s.split(whereSeparator: \.isNewline).joined(separator: " ") : s
        guard line.utf8.count > 100, let cut = line.index(line.startIndex, offsetBy: 100, limitedBy: line.endIndex),
              cut < line.endIndex else { return line }
        return String(line.prefix(99)) + "…"
    }
}

/// An aligned text table; the styling of a cell does not count towards its width.
public struct Table {
    public enum Align: Sendable { case left, right }
    public struct Column {
        public let title: String
        public var align: Align
        public var style: (String) -> String

        public init(title: String, align: Align = .left, style: @escaping (String) -> String = { $0 }) {
            self.title = title
            self.align = align
            self.style = style
        }
    }
    public let columns: [Column]
    public var rows: [[String]]

    public init(columns: [Column], rows: [[String]] = []) {
        self.columns = columns
        self.rows = rows
    }

    public func render(style: Style) -> String {
        // A row wider than the header has its extra cells left out rather than indexing past `columns`.
        let rows = self.rows.map { Array($0.prefix(columns.count)) }
        var widths = columns.map { Format.width($0.title) }
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], Format.width(cell)) } }
        func line(_ cells: [String], header: Bool) -> String {
            var parts = [String]()
            for (i, cell) in cells.enumerated() {
                let last = i == cells.count - 1
                let gap = Format.spaces(widths[i] - Format.width(cell))
                let text = header ? style.bold(cell) : columns[i].style(cell)
                if columns[i].align == .right { parts.append(gap + text) }
                else { parts.append(last ? text : text + gap) }
            }
            return parts.joined(separator: "  ")
        }
        return ([line(columns.map(\.title), header: true)] + rows.map { line($0, header: false) }).joined(separator: "\n")
    }
}
