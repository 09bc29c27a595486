import TNotesCore

/// `tnotes record` and `tnotes audio sources` in words (contract §8.2). Total like every renderer here.
public enum RecordingText {
    /// A `recording.*` result on one line: `recording 12:34 (-23 dBFS, 2.3 MB) sermon <id>`.
    public static func status(_ r: JSON) -> String {
        let state = r["state"]?.stringValue ?? "-"
        guard state != "idle" else { return "not recording" }
        var line = "\(state) \(ClockTime.format(r["elapsed"]?.doubleValue ?? 0))"
        var details: [String] = []
        if state != "stopped", let level = r["level"]?.doubleValue { details.append("\(Format.clampedInt(level.rounded())) dBFS") }
        if let bytes = r["bytes"]?.int64Value { details.append(Format.bytes(bytes)) }
        if !details.isEmpty { line += " (\(details.joined(separator: ", ")))" }
        line += " sermon \(r["sermonId"]?.stringValue ?? "-")"
        if state == "stopped", let message = r["message"]?.stringValue, r["reason"]?.stringValue != "requested" {
            line += ": \(message)"
        }
        return line
    }

    /// `audio.sources`: one line per source, the default marked.
    public static func sources(_ r: JSON) -> String {
        let items = r["items"]?.arrayValue ?? []
        guard !items.isEmpty else { return "no audio sources" }
        var table = Table(columns: [.init(title: "DEFAULT"), .init(title: "NAME"), .init(title: "DESCRIPTION")])
        for item in items {
            table.rows.append([item["isDefault"]?.boolValue == true ? "*" : "", item["name"]?.stringValue ?? "-",
                               Format.oneLine(item["description"]?.stringValue ?? "")])
        }
        return table.render(style: Style(enabled: false))
    }
}
