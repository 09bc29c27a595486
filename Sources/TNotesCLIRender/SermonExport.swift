import TNotesCore

/// A sermon as `tnotes export` writes it: a Markdown file (front matter, notes as `- [mm:ss] text`, the
/// summary, the transcript with segment times, the scripture it cites), or the sermon whole as JSON.
/// Total, like every renderer here (contract §8.1).
public enum SermonExport {
    /// `2025-11-09-bread-of-life` (date, then the title's slug): the file's name without its extension.
    /// Always one path component: a date that is not one (only a record that skipped the schema could hold
    /// `../x` there) has every character but letters, digits and `-` written as `-`.
    public static func fileName(_ sermon: JSON) -> String {
        let s = LenientRecord<Sermon>(sermon)
        let date = String((s.date ?? "undated").prefix(10).map { c in
            c.isASCII && (c.isLetter || c.isNumber || c == "-") ? c : "-"
        })
        let slug = PublicId.slug(s.title ?? "")
        return slug.isEmpty ? date : "\(date)-\(slug)"
    }

    /// The Markdown file of a `sermon.get` result.
    public static func markdown(_ json: JSON) -> String {
        func yaml(_ v: String) -> String { JSON.string(v).text }  // a JSON string is a valid YAML scalar
        let detail = SermonDetail(lenient: json), s = detail.sermon
        var out = "---\n"
        out += "title: \(yaml(s.title ?? ""))\n"
        if let speaker = s.speaker { out += "speaker: \(yaml(speaker))\n" }
        out += "date: \(String((s.date ?? "").prefix(10)))\n"
        out += "service: \(yaml(s.serviceType ?? ""))\n"
        out += "id: \(s.id ?? "")\n"
        if let audio = s.nested(\.audio)?.fileName { out += "audio: \(yaml(audio))\n" }
        out += "---\n\n# \(s.title ?? "")\n"
        let notes = detail.notes.map(\.value)
        if !notes.isEmpty {
            out += "\n## Notes\n\n"
            for n in notes {
                let text = n.text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ")
                out += "- [\(ClockTime.format(n.timestamp))] \(text)\n"
            }
        }
        if let summary = detail.summary {
            out += "\n## Summary: \(summary.title ?? "") (\(summary.type?.rawValue ?? ""))\n\n"
            out += (summary.text ?? "") + "\n"
        }
        if let t = detail.transcript {
            out += "\n## Transcript\n\n"
            let segments = t.list(\.segments)?.map(\.value) ?? []
            if segments.isEmpty {
                out += (t.text ?? "") + "\n"
            } else {
                for g in segments { out += "[\(ClockTime.format(g.start))] \(g.text)\n\n" }
                out.removeLast()  // the blank line after the last segment (there is one: segments is not empty)
            }
        }
        if !detail.scriptureRefs.isEmpty {
            out += "\n## Scripture\n\n"
            for r in detail.scriptureRefs { out += "- \(Render.scriptureRef(r))\n" }
        }
        return out
    }

    /// The JSON file of a sermon: the `sermon.get` result with its chat (`chat.list`) and without its sync
    /// state (a fact of this device, not of the sermon). A result that is not an object is written as it is.
    public static func json(_ sermon: JSON, chat: JSON) -> String {
        guard case .object(var o) = sermon else { return sermon.text + "\n" }
        o["chat"] = chat
        o.removeValue(forKey: SermonDetail.name(\.syncState))
        return JSON.object(o).text + "\n"
    }
}
