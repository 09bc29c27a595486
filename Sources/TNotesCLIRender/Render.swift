import TNotesCore

/// Human renderings of what the daemon returns. Each is a pure, total function of its JSON (contract §8.1):
/// a record may hold any value a stored record can hold (a note at 1e19 seconds, a segment ending before it
/// starts, a megabyte title, a field missing or of the wrong type), and it prints; a field of the wrong type
/// (an enumeration's value that is none of its cases) reads as missing. Records are read through their typed
/// definitions (`SermonDetail`, `LenientRecord<Conflict>`, TNotesCore), never by a field's name.
public enum Render {
    /// `tnotes sermon list`: one row per sermon; `noteCounts[i]` is the i-th sermon's count of notes (a
    /// missing count shows as `-`).
    public static func sermonTable(_ items: [JSON], noteCounts: [String], style: Style) -> String {
        var table = Table(columns: [
            .init(title: "DATE"), .init(title: "TITLE"), .init(title: "SPEAKER"),
            .init(title: "NOTES", align: .right), .init(title: "SYNC", style: style.state), .init(title: "ID", style: style.dim),
        ])
        for (i, item) in items.enumerated() {
            let detail = SermonDetail(lenient: item), s = detail.sermon
            var title = Format.truncate(s.title ?? "", 48)
            if s.isArchived == true { title += " [archived]" }
            if s.deletedAt != nil { title += " [deleted]" }
            table.rows.append([
                Format.date(s.date), title, Format.truncate(s.speaker ?? "-", 32),
                i < noteCounts.count ? noteCounts[i] : "-", detail.syncState ?? "-", s.id ?? "",
            ])
        }
        return table.render(style: style)
    }

    /// `tnotes sermon show`: details, notes, transcript and summary of a `sermon.get` result.
    public static func sermon(_ json: JSON, style: Style) -> String {
        let detail = SermonDetail(lenient: json), s = detail.sermon
        var out = [String]()
        var heading = s.title ?? ""
        if s.isArchived == true { heading += " [archived]" }
        if s.deletedAt != nil { heading += " [deleted]" }
        out.append(style.bold(heading))
        out.append(Format.repeated(UInt8(ascii: "="), max(Format.width(heading), 1)))
        var rows: [(String, String)] = [
            ("Date", Format.date(s.date)),
            ("Speaker", s.speaker ?? "-"),
            ("Service", s.serviceType ?? "-"),
            ("Status", "transcription \(style.state(s.transcriptionStatus?.rawValue ?? "-")), "
                + "summary \(style.state(s.summaryStatus?.rawValue ?? "-"))"),
            ("Audio", s.nested(\.audio).map(audio) ?? "none"),
            ("Sync", style.state(detail.syncState ?? "-")),
            ("Id", s.id ?? "-"),
            ("Created", Format.time(s.createdAt)),
            ("Updated", Format.time(s.updatedAt)),
        ]
        if let deleted = s.deletedAt { rows.append(("Deleted", Format.time(deleted))) }
        out.append(Format.fields(rows, style: style))

        // Every element is shown, one that is not a note object as an empty note at 00:00.
        let notes = detail.notes.map(\.value)
        out.append("")
        out.append(style.bold("Notes") + " (\(notes.count))")
        if notes.isEmpty { out.append("  none") }
        let stamps = notes.map { ClockTime.format($0.timestamp) }
        let w = stamps.map(Format.width).max() ?? 0
        for (n, stamp) in zip(notes, stamps) {
            out.append(indented(n.text, first: "  " + style.cyan(Format.padLeft(stamp, w)) + "  ",
                                rest: Format.spaces(w + 4)))
        }

        out.append("")
        if let t = detail.transcript {
            let segments = t.list(\.segments)?.map(\.value) ?? []
            let status = t.status?.rawValue ?? "-"
            let count = segments.isEmpty ? "" : ", \(segments.count) segment\(segments.count == 1 ? "" : "s")"
            out.append(style.bold("Transcript") + " (\(style.state(status))\(count))")
            if segments.isEmpty {
                out.append(indented(t.text ?? "", first: "  ", rest: "  "))
            } else {
                // A segment that ends before it starts is shown as stored: the times are labels, no range.
                let spans = segments.map { ClockTime.format($0.start) + "–" + ClockTime.format($0.end) }
                let sw = spans.map(Format.width).max() ?? 0
                for (seg, span) in zip(segments, spans) {
                    var text = seg.text
                    if let speaker = seg.speaker { text = "\(speaker): \(text)" }
                    out.append(indented(text, first: "  " + style.cyan(Format.padRight(span, sw)) + "  ",
                                        rest: Format.spaces(sw + 4)))
                }
            }
        } else {
            out.append(style.bold("Transcript") + ": none")
        }

        out.append("")
        if let m = detail.summary {
            let status = m.status?.rawValue ?? "-"
            out.append(style.bold("Summary") + ": \(m.title ?? "") (\(m.type?.rawValue ?? "-"), \(style.state(status)))")
            out.append(indented(m.text ?? "", first: "  ", rest: "  "))
        } else {
            out.append(style.bold("Summary") + ": none")
        }
        return out.joined(separator: "\n")
    }

    /// A sermon's audio on one line: name, size, where it is, its digest's start.
    public static func audio(_ a: JSON?) -> String {
        guard let a, !a.isNull else { return "none" }
        return audio(LenientRecord<Sermon.Audio>(a))
    }

    /// The audio of a `sermon.get` result: the record's fields and what the daemon adds about this device.
    static func audio(_ file: LenientRecord<Sermon.Audio>) -> String {
        let here = SermonDetail.AudioState(lenient: .object(file.object))
        var parts = [file.fileName ?? "audio"]
        if let size = file.sizeBytes { parts.append(Format.bytes(size)) }
        parts.append(here.localAvailable ? "on this device" : "not on this device")
        parts.append(here.uploaded ? "uploaded" : "not uploaded")
        if let sha = file.sha256 { parts.append("sha256 \(sha.prefix(12))…") }
        return parts.joined(separator: ", ")
    }

    /// Multi-line text with a prefix on the first line and an indent on the rest.
    public static func indented(_ text: String, first: String, rest: String) -> String {
        var text = Substring(text)
        // `dropLast(1)`, not `dropLast()`: the argument-less call on a Substring is Collection's, which counts
        // the whole text each time (quadratic: a note of 100,000 spaces took `sermon show` minutes).
        while let last = text.last, last.isWhitespace { text = text.dropLast(1) }
        // Lines split at LF bytes (a CR before one goes with it), not by Character: LF is a grapheme boundary
        // but after CR, and a Character split of a 100,000-character note was a tenth of the render fuzzer's
        // time. (The Character split also kept a CRLF text as one line, its later lines unindented.)
        var out = first
        out.reserveCapacity(first.utf8.count + text.utf8.count + 64)
        var lineStart = text.startIndex
        var i = text.utf8.startIndex
        while i < text.utf8.endIndex {
            if text.utf8[i] == 0x0A {
                var end = i
                if end > lineStart, text.utf8[text.utf8.index(before: end)] == 0x0D { end = text.utf8.index(before: end) }
                out += text[lineStart..<end]
                out += "\n"
                out += rest
                lineStart = text.utf8.index(after: i)
            }
            i = text.utf8.index(after: i)
        }
        out += text[lineStart...]
        return out
    }

    /// `tnotes status`: a `daemon.status` result.
    public static func daemonStatus(_ json: JSON, style: Style) -> String {
        let r = LenientRecord<DaemonStatus>(json)
        let sync = r.nested(\.sync)
        var syncLine = style.state(sync.state ?? "-")
        syncLine += ", \(Format.number(sync.json(at: \.pendingOps))) pending, \(Format.number(sync.json(at: \.failedOps))) failed"
        if let server = sync.serverUrl { syncLine += " (\(server))" }
        return style.bold("tnotesd \(r.version ?? "?")") + " running\n" + Format.fields([
            ("pid", Format.number(r.json(at: \.pid))),
            ("uptime", ClockTime.duration(r.uptimeSeconds ?? 0)),
            ("schema", Format.number(r.json(at: \.schemaVersion))),
            ("device", r.deviceId ?? "-"),
            ("socket", r.socketPath ?? "-"),
            ("data dir", r.dataDir ?? "-"),
            ("sync", syncLine),
            ("last sync", Format.time(sync.lastSuccessAt, none: "never")),
        ], style: style)
    }

    /// `tnotes sync status`: a `sync.status` result.
    public static func syncStatus(_ json: JSON, style: Style) -> String {
        let r = LenientRecord<SyncStatus>(json)
        var rows: [(String, String)] = [
            ("state", style.state(r.state ?? "-")),
            ("server", r.serverUrl ?? "-"),
            ("pending ops", Format.number(r.json(at: \.pendingOps))),
            ("failed ops", Format.number(r.json(at: \.failedOps))),
        ]
        if let attempt = r.attempt, attempt > 0 { rows.append(("attempt", "\(attempt)")) }
        rows += [
            ("next attempt", Format.time(r.json(at: \.nextAttemptAt))),
            ("last success", Format.time(r.lastSuccessAt, none: "never")),
            ("last error", r.lastError.map(style.red) ?? "-"),
        ]
        if let held = r.heldDeletes {
            rows.append(("held", style.red("a pull would delete \(held) records; `tnotes sync confirm` allows it")))
        }
        if r.intervalSeconds != nil {
            rows.append(("interval", "\(Format.number(r.json(at: \.intervalSeconds))) s\(r.onBattery == true ? " (doubled on battery)" : "")"))
        }
        if let audio = r.nested(\.audio) {
            let files = audio.localFiles ?? 0
            var line = "\(audio.mode ?? "-"): \(Format.bytes(audio.localBytes ?? 0)) in \(files) file\(files == 1 ? "" : "s") here"
            if let cap = audio.cacheBytes { line += ", cache \(Format.bytes(cap))" }
            rows.append(("audio", line))
        }
        var desktop = [String]()
        if r.metered == true { desktop.append("metered connection: audio waits") }
        if r.onBattery == true { desktop.append("on battery: automatic transcriptions wait") }
        if !desktop.isEmpty { rows.append(("desktop", desktop.joined(separator: "; "))) }
        if let t = r.triggers {
            let order = ["startup", "periodic", "localChange", "network", "manual", "realtime", "resume"]
            let keys = order.filter { t[$0] != nil } + t.keys.filter { !order.contains($0) }.sorted()
            rows.append(("triggers", keys.map { "\($0) \(Format.number(t[$0]))" }.joined(separator: ", ")))
        }
        return Format.fields(rows, style: style)
    }

    /// `tnotes sync`: a `sync.now` result.
    public static func syncResult(_ json: JSON) -> String {
        let r = LenientRecord<SyncRun>(json)
        if r.started == true { return "sync started" }
        let conflicts = r.conflicts ?? 0
        var line = "pushed \(Format.number(r.json(at: \.pushed))), pulled \(Format.number(r.json(at: \.pulled))), "
            + "\(conflicts) conflict\(conflicts == 1 ? "" : "s")"
        if let rejected = r.rejected, rejected > 0 { line += ", \(rejected) rejected" }
        return line + " in \(Format.number(r.json(at: \.durationMs))) ms"
    }

    /// `tnotes watch`: one event, after `clock` (the local time it arrived, which the caller reads: the
    /// renderer stays a function of its arguments).
    public static func event(_ e: JSON, style: Style, clock: String) -> String {
        let head = LenientRecord<EventHead>(e)
        let topic = head.topic ?? "?"
        var detail: String
        if topic == EventTopic.recordChanged.rawValue {
            let change = LenientRecord<RecordChangedEvent>(e)
            detail = "\(change.op ?? "?") \(change.collection ?? "?") \(change.id ?? "?")"
            if let origin = change.origin { detail += " (\(origin))" }
        } else {
            detail = head.members.sorted { $0.key < $1.key }.map { k, v in
                "\(k)=\(v.stringValue ?? v.text)"
            }.joined(separator: " ")
        }
        return "\(style.dim(clock))  \(style.bold(topic))  \(detail)"
    }

    /// A job on one line (two with its last error), as `tnotes jobs` lists it.
    public static func job(_ json: JSON) -> String {
        let j = LenientRecord<Job>(json)
        let state = j.state ?? "?"
        var s = "\(j.id ?? "?")  \(j.kind ?? "?")  \(state)"
        if state == "running", let p = j.progress { s += " \(ProgressText.percent(p))%" }
        s += "  sermon \(j.sermonId ?? "?")  attempts \(j.attempts ?? 0)"
        if let e = j.lastError { s += "\n    \(state == "failed" ? "error" : "last error"): \(e)" }
        return s
    }

    /// `tnotes jobs`: a `jobs.list` result.
    public static func jobs(_ r: JSON) -> String {
        let jobs = r.arrayValue ?? []
        if jobs.isEmpty { return "no jobs" }
        return jobs.map(job).joined(separator: "\n")
    }

    /// `tnotes conflicts`: a `conflicts.list` result (`all`: resolved ones were asked for too).
    public static func conflicts(_ r: JSON, all: Bool) -> String {
        let items = r.arrayValue ?? []
        if items.isEmpty { return all ? "no conflicts" : "no open conflicts" }
        var lines = [String]()
        for item in items {
            let c = LenientRecord<Conflict>(item)
            let kind = String((c.collection?.rawValue ?? "record").dropLast())
            lines.append("\(c.id ?? "?")  \(c.state?.rawValue ?? "?")  \(kind) \(c.recordId ?? "?") · \(c.field ?? "?")")
            lines.append("    this device: \(Format.oneLine(c.local ?? ""))")
            lines.append("    other:       \(Format.oneLine(c.remote ?? ""))")
            lines.append("    now:         \(Format.oneLine(c.merged ?? ""))")
        }
        return lines.joined(separator: "\n")
    }

    /// One version of a conflicted text on one line, at most 100 characters.
    public static func conflictText(_ v: JSON?) -> String { Format.oneLine(v?.stringValue ?? "") }

    /// `tnotes history ID`: the versions `history.list` holds of one record (of `collection`), newest first;
    /// nil `found` when this device holds none.
    public static func history(id: String, found: (collection: String, items: [JSON])?) -> String {
        guard let found else { return "no earlier versions of \(id) on this device" }
        var lines = ["\(found.collection.dropLast()) \(id): \(found.items.count) earlier version\(found.items.count == 1 ? "" : "s"), newest first"]
        for item in found.items {
            let version = LenientRecord<HistoryVersion>(item)
            let record = version.json(at: \.record) ?? .null
            let replaced = version.replacedAt ?? "?"
            let reason = version.reason ?? "?"
            lines.append("")
            lines.append("  \(version.updatedAt ?? "?")  from \(version.deviceId ?? "?")")
            lines.append("    replaced \(replaced) (\(historyReason(reason)))")
            lines.append("    \(historySummary(record))")
        }
        return lines.joined(separator: "\n")
    }

    /// Why a version was replaced, in words.
    public static func historyReason(_ reason: String) -> String {
        switch reason {
        case "edit": return "edited here"
        case "delete": return "deleted here"
        case "remote": return "another device's version arrived"
        case "merge": return "merged with another device's edit"
        case "restore": return "an older version was restored"
        default: return reason
        }
    }

    /// One line that tells a version apart: its text, or its title.
    public static func historySummary(_ record: JSON) -> String {
        let gist = LenientRecord<RecordGist>(record)
        var parts = [String]()
        if gist.deletedAt != nil { parts.append("[deleted]") }
        if let title = gist.title { parts.append(title) }
        if let text = gist.text { parts.append(text) }
        return Format.oneLine(parts.joined(separator: " — "))
    }

    /// `tnotes search WORDS`: a `search.query` result; `bold` turns the `**match**` markers into bold.
    public static func searchHits(_ r: JSON, bold: Bool) -> String {
        let items = LenientRecord<SearchPage>(r).list(\.items) ?? []
        if items.isEmpty { return "no matches" }
        return items.map { i in
            var at = ""
            if let t = i.start ?? i.timestamp { at = " [\(ClockTime.format(t))]" }
            var snippet = (i.snippet ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
            snippet = highlight(snippet, bold: bold)
            return "\(i.sermonId ?? "?")  \(i.kind ?? "?")\(at)  \(snippet)"
        }.joined(separator: "\n")
    }

    /// `tnotes search --ref PASSAGE`: a `search.byReference` result; `titles` maps a sermon id to its title
    /// (one the caller could not read is left out and shows empty).
    public static func referenceHits(_ r: JSON, ref: String, titles: [String: String]) -> String {
        let items = LenientRecord<SearchPage>(r).list(\.items) ?? []
        if items.isEmpty { return "no sermon cites \(ref)" }
        return items.map { i in
            let sid = i.sermonId ?? "?"
            var at = ""
            if let t = i.start ?? i.timestamp { at = " [\(ClockTime.format(t))]" }
            return "\(sid)  \(titles[sid] ?? "")  \(i.kind ?? "?")\(at): \(i.display ?? "")"
        }.joined(separator: "\n")
    }

    /// `**match**` markers as bold on a terminal, plain text elsewhere.
    public static func highlight(_ s: String, bold: Bool) -> String {
        let parts = s.split(separator: "**", omittingEmptySubsequences: false)
        var out = ""
        for (i, part) in parts.enumerated() {
            if i > 0 && bold { out += i % 2 == 1 ? "\u{1B}[1m" : "\u{1B}[0m" }
            out += part
        }
        return out
    }

    /// A scripture reference record as people write it: `John 3:16-18`.
    public static func scriptureRef(_ r: JSON) -> String {
        let c = LenientRecord<ScriptureCitation>(r)
        var s = "\(c.book ?? "?") \(c.chapter ?? 0)"
        if let v = c.verseStart {
            s += ":\(v)"
            if let e = c.verseEnd { s += "-\(e)" }
        }
        return s
    }

    /// `tnotes verse`: a `scripture.text` result, one verse a line.
    public static func passage(_ r: JSON) -> String {
        let p = LenientRecord<PassageText>(r)
        var lines = ["\(p.reference ?? "") (\(p.translation ?? ""))"]
        for v in p.list(\.verses) ?? [] {
            lines.append("\(v.chapter ?? 0):\(v.verse ?? 0) \(v.text ?? "")")
        }
        return lines.joined(separator: "\n")
    }
}
