import TNotesCore

/// A sermon as `tnotes export` writes it: a Markdown file (front matter, notes as `- [mm:ss] text`, the
/// summary, the transcript with segment times, the scripture it cites), or the sermon whole as JSON.
/// Total, like every renderer here (contract §8.1).
public enum SermonExport {
    /// `2025-11-09-bread-of-life` (date, then the title's slug): the file's name without its extension.
    /// Always one path component: a date that is not one (only a record that skipped the schema could hold
    /// `../x` there) has every character but letters, digits and `-` written as `-`.
    public static func fileName(_ sermon: JSON) -> String {
        let date = String((sermon["date"]?.stringValue ?? "undated").prefix(10).map { c in
            c.isASCII && (c.isLetter || c.isNumber || c == "-") ? c : "-"
        })
        let slug = PublicId.slug(sermon["title"]?.stringValue ?? "")
        return slug.isEmpty ? date : "\(date)-\(slug)"
    }

    /// The Markdown file of a `sermon.get` result.
    public static func markdown(_ s: JSON) -> String {
        func yaml(_ v: String) -> String { JSON.string(v).text }  // a JSON string is a valid YAML scalar
        var out = "---\n"
        out += "title: \(yaml(s["title"]?.stringValue ?? ""))\n"
        if let speaker = s["speaker"]?.stringValue { out += "speaker: \(yaml(speaker))\n" }
        out += "date: \(String((s["date"]?.stringValue ?? "").prefix(10)))\n"
        out += "service: \(yaml(s["serviceType"]?.stringValue ?? ""))\n"
        out += "id: \(s["id"]?.stringValue ?? "")\n"
        if let audio = s["audio"]?["fileName"]?.stringValue { out += "audio: \(yaml(audio))\n" }
        out += "---\n\n# \(s["title"]?.stringValue ?? "")\n"
        let notes = s["notes"]?.arrayValue ?? []
        if !notes.isEmpty {
            out += "\n## Notes\n\n"
            for n in notes {
                let text = (n["text"]?.stringValue ?? "").split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ")
                out += "- [\(ClockTime.format(n["timestamp"]?.doubleValue ?? 0))] \(text)\n"
            }
        }
        if let summary = s["summary"], !summary.isNull {
            out += "\n## Summary: \(summary["title"]?.stringValue ?? "") (\(summary["type"]?.stringValue ?? ""))\n\n"
            out += (summary["text"]?.stringValue ?? "") + "\n"
        }
        if let t = s["transcript"], !t.isNull {
            out += "\n## Transcript\n\n"
            let segments = t["segments"]?.arrayValue ?? []
            if segments.isEmpty {
                out += (t["text"]?.stringValue ?? "") + "\n"
            } else {
                for g in segments { out += "[\(ClockTime.format(g["start"]?.doubleValue ?? 0))] \(g["text"]?.stringValue ?? "")\n\n" }
                out.removeLast()  // the blank line after the last segment (there is one: segments is not empty)
            }
        }
        let refs = s["scriptureRefs"]?.arrayValue ?? []
        if !refs.isEmpty {
            out += "\n## Scripture\n\n"
            for r in refs { out += "- \(Render.scriptureRef(r))\n" }
        }
        return out
    }

    /// The JSON file of a sermon: the `sermon.get` result with its chat (`chat.list`) and without its sync
    /// state (a fact of this device, not of the sermon). A result that is not an object is written as it is.
    public static func json(_ sermon: JSON, chat: JSON) -> String {
        guard case .object(var o) = sermon else { return sermon.text + "\n" }
        o["chat"] = chat
        o.removeValue(forKey: "syncState")
        return JSON.object(o).text + "\n"
    }
}
