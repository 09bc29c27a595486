import TNotesCore

/// `tnotes record` and `tnotes audio sources` in words (contract §8.2). Total like every renderer here.
public enum RecordingText {
    /// A `recording.*` result on one line: `recording 12:34 (-23 dBFS, 2.3 MB) sermon <id>`.
    public static func status(_ json: JSON) -> String {
        let r = LenientRecord<RecordingStatus>(json)
        let state = r.state ?? "-"
        guard state != "idle" else { return "not recording" }
        var line = "\(state) \(ClockTime.format(r.elapsed ?? 0))"
        var details: [String] = []
        if state != "stopped", let level = r.level { details.append("\(Format.clampedInt(level.rounded())) dBFS") }
        if let bytes = r.bytes { details.append(Format.bytes(bytes)) }
        if !details.isEmpty { line += " (\(details.joined(separator: ", ")))" }
        line += " sermon \(r.sermonId ?? "-")"
        if state == "stopped", let message = r.message, r.reason != "requested" {
            line += ": \(message)"
        }
        return line
    }

    /// `audio.sources`: one line per source, the default marked.
    public static func sources(_ r: JSON) -> String {
        let items = LenientRecord<AudioSourceList>(r).list(\.items) ?? []
        guard !items.isEmpty else { return "no audio sources" }
        var table = Table(columns: [.init(title: "DEFAULT"), .init(title: "NAME"), .init(title: "DESCRIPTION")])
        for item in items {
            table.rows.append([item.isDefault == true ? "*" : "", item.name ?? "-", Format.oneLine(item.description ?? "")])
        }
        return table.render(style: Style(enabled: false))
    }
}
