import TNotesCore

/// The full-screen view of `tnotes record` (contract §8.2) as lines for a terminal of a given size: a pure
/// function of what the view knows, so it is total and testable without a terminal.
public struct RecordingScreen: Sendable, Equatable {
    public var title = ""
    public var sermonId = ""
    /// `recording`, `paused`, `stopped`, or `stopping` while a stop is on its way.
    public var state = "recording"
    public var elapsed = 0.0
    public var level = -120.0
    public var bytes: Int64 = 0
    /// The live transcript so far, one entry per segment.
    public var transcript: [String] = []
    public var notesAdded = 0
    public var lastNote: String?
    /// What is typed on the note line.
    public var noteLine = ""
    /// One line of news (a note added, an error), shown above the note line.
    public var message: String?

    public init() {}

    /// Exactly `height` lines (at least 1), none wider than `width` columns (at least 1).
    public func lines(width: Int, height: Int, style: Style) -> [String] {
        let width = max(1, min(width, 1000)), height = max(1, min(height, 1000))
        let mark = state == "paused" ? style.bold("❚❚ PAUSED") : state == "recording" ? style.bold("● REC") : style.bold(state.uppercased())
        var top = [
            fit("\(mark)  \(ClockTime.format(elapsed))  \(title)", width),
            fit("level \(Self.meter(level, width: max(0, min(40, width - 18))))  \(Format.clampedInt(level.rounded())) dBFS  \(Format.bytes(bytes))", width),
            String(repeating: "─", count: min(width, 80)),
        ]
        var bottom = [
            String(repeating: "─", count: min(width, 80)),
            fit(message ?? (notesAdded == 0 ? "no notes yet" : "\(notesAdded) note\(notesAdded == 1 ? "" : "s") added"
                                + (lastNote.map { ": \(Format.oneLine($0))" } ?? "")), width),
            width > 2 ? "> " + fit(noteLine, width - 2, keepEnd: true) : fit(noteLine, width, keepEnd: true),
            fit("Enter adds a note now · on an empty line: p pause/resume, q stop · Ctrl-C leaves, still recording", width),
        ]
        if height < top.count + bottom.count + 1 {
            // A tiny terminal: the clock and the note line, as many as fit.
            top = [top[0]]
            bottom = [bottom[2]]
        }
        let room = max(0, height - top.count - bottom.count)
        var body: [String] = []
        for segment in transcript.suffix(room) { body += wrap(segment, width) }
        body = Array(body.suffix(room))
        body += Array(repeating: "", count: room - body.count)
        return Array((top + body + bottom).prefix(height))
    }

    /// A bar of `width` cells for -60…0 dBFS.
    static func meter(_ dBFS: Double, width: Int) -> String {
        guard width > 0 else { return "" }
        let fraction = dBFS.isFinite ? min(1, max(0, (dBFS + 60) / 60)) : 0
        let filled = Int((fraction * Double(width)).rounded())
        return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "]"
    }

    /// One line at most `width` characters: cut at the end, or at the start with `keepEnd` (a note line
    /// longer than the screen shows what is being typed).
    func fit(_ s: String, _ width: Int, keepEnd: Bool = false) -> String {
        let flat = s.contains(where: \.isNewline) ? s.split(whereSeparator: \.isNewline).joined(separator: " ") : s
        guard flat.count > width else { return flat }
        return keepEnd ? "…" + String(flat.suffix(width - 1)) : String(flat.prefix(width - 1)) + "…"
    }

    /// A segment in lines of at most `width` characters, broken at spaces where it can be.
    func wrap(_ s: String, _ width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in s.split(whereSeparator: { $0 == " " || $0.isNewline }) {
            var w = Substring(word)
            while w.count > width {
                if !line.isEmpty { lines.append(line); line = "" }
                lines.append(String(w.prefix(width)))
                w = w.dropFirst(width)
            }
            if line.isEmpty { line = String(w) }
            else if line.count + 1 + w.count <= width { line += " " + w }
            else { lines.append(line); line = String(w) }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
