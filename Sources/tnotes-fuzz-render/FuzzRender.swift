import TNotesCLIRender
import TNotesCore
import TNotesFuzzSupport
import TNotesProcessing
import TNotesScripture
import TNotesServer

// libFuzzer target over every renderer of stored records (issue #49, contract §8.1 "every renderer is total"):
// an input becomes a sermon with notes, transcript, summary and chat as `sermon.get` returns them, and a
// publication snapshot as a server stores it (`RecordGenerator`), with the values that once trapped (a note at
// 1e19 seconds, `Int(seconds)`), and goes through
// - the public page and its JSON (`PublicPageRenderer`, the server's one path for `/p/{id}` and `.json`);
// - the CLI's renderers (`TNotesCLIRender`: `sermon show`/`list`, Markdown and JSON export, search and
//   reference hits, jobs, history, conflicts, status lines, progress lines), with and without colour;
// - the extractive summariser and the assistant over the sermon's text as the job worker loads it, the
//   scripture scan over every text, and `ClockTime` over every time.
// None may trap or hang (libFuzzer's timeout: a `dropLast()` loop quadratic in a 100,000-character note was
// its first find). Checked besides: the page has no markup but its template's (its second: a quote followed by
// a combining mark went out unescaped), the page's JSON and the JSON export parse and keep the texts exactly,
// coloured output is plain output plus escape codes, and scripture matches lie inside their text and parse
// back to themselves.
//
// Speed: the issue asks for 100,000 inputs a minute on 2 cores, about 1 ms an input. So the most expensive
// steps take turns over inputs (`Scenario.turn`: one summary type, or the assistant, or neither; the CLI's
// other results on every other input), the checks that double a renderer's work run on one input in four
// (`Scenario.thorough`), and long texts are rare (`FuzzReader.longBudget`). A JSON input gets everything.
//
// Fuzz:   FUZZ_SECONDS=60 scripts/fuzz.sh (coverage build, two workers, no ASan: see there)
// Replay: tnotes-fuzz-render FILE… (a normal build replays the committed corpus, Tests/Fuzz/corpus-render)

func runOne(_ bytes: [UInt8]) {
    let scenario = RecordGenerator.scenario(bytes)
    let fields = Fields(scenario)
    renderPage(scenario)
    renderCLI(scenario, fields)
    process(scenario)
    scanScripture(fields)
    for n in fields.numbers { if let d = n.doubleValue { checkClock(d) } }
    _ = constants
}

/// The edge values that do not depend on an input, through the number formatters once.
let constants: Void = {
    for d in Values.seconds + Values.nonFinite {
        checkClock(d)
        _ = ProgressText.percent(d)
        _ = ProgressText.counter(label: "", count: Int.max, total: Int.min, elapsedSeconds: d)
        _ = Format.clampedInt(d)
    }
    for v in Values.integers { _ = Format.bytes(v) }
}()

// MARK: the public page

func renderPage(_ s: Scenario) {
    let publicId = s.sermon[field: \SermonDetail.publication]?[field: \Publication.publicId]?.stringValue ?? "Ab3dE5gH7jK9mN2p"
    // The publication's details (contract §8.5) from the same hostile values, of any type: a server renders
    // whatever a client pushed.
    let details: JSONObject = ["description": s.snapshot["title"] ?? .null, "tags": s.parts ?? .null,
                               "language": s.snapshot["speaker"] ?? .null, "canFork": s.snapshot["date"] ?? .null]
    let quotes = (s.snapshot["notes"]?.arrayValue ?? []).prefix(3).compactMap { $0["text"]?.stringValue }
        .map { ScriptureQuote(reference: $0, text: $0) }
    let audio = PublishedAudio(path: "/p/\(publicId)/audio", sizeBytes: 1, type: "audio/ogg")
    let html = PublicPageRenderer.html(publicId: publicId, snapshot: s.snapshot, parts: s.parts, publishedAt: s.publishedAt,
                                       details: details, quotes: quotes, audio: audio)
    precondition(html.utf8.starts(with: "<!DOCTYPE html>\n".utf8), "the public page does not start with its doctype")
    checkMarkup(html)

    let text = PublicPageRenderer.json(publicId: publicId, snapshot: s.snapshot, parts: s.parts, publishedAt: s.publishedAt,
                                       details: details, audio: audio)
    guard let page = try? JSON.parse(text), case .object(let o) = page else {
        preconditionFailure("the public page's JSON does not parse")
    }
    precondition(o["publicId"]?.stringValue == publicId && o["publishedAt"]?.stringValue == s.publishedAt,
                 "the public page's JSON changed a string it was given")
    precondition(o["title"]?.stringValue == (s.snapshot[field: \PublicationSnapshot.title]?.stringValue ?? "Untitled sermon"),
                 "the public page's JSON changed the title")
    // Notes: every one with text, in time order (one without a time as at 0); none when they are not shown.
    let wanted = s.parts?.arrayValue.map { $0.compactMap(\.stringValue) } ?? ["notes", "summary"]
    let given = wanted.contains("notes") ? (s.snapshot[field: \PublicationSnapshot.notes]?.arrayValue ?? []).filter { $0[field: \PublicationSnapshot.NotePart.text]?.stringValue != nil } : []
    let shown = o["notes"]?.arrayValue ?? []
    precondition(shown.count == given.count, "the public page's JSON lost or invented a note")
    var last = -Double.infinity
    for n in shown {
        let t = n[field: \Note.timestamp]?.doubleValue ?? 0
        precondition(t >= last, "the public page's notes are not in time order")
        last = t
    }
}

/// Every `<` of the page opens one of its template's tags, and every quoted attribute value in a tag ends
/// where the template's does (a space, `/` or `>` after its closing quote): a stored value is always escaped
/// text, never markup. (A note's `</script><script>` shows as those characters; a title's `"` followed by a
/// combining mark, one Character, once went out unescaped and ended the attribute it was written into.)
func checkMarkup(_ page: String) {
    var page = page
    page.withUTF8 { b in
        func isNameByte(_ c: UInt8) -> Bool { c == UInt8(ascii: "!") || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || (c >= 0x30 && c <= 0x39) }
        var i = 0
        while i < b.count {
            guard b[i] == UInt8(ascii: "<") else {
                i += 1
                continue
            }
            var j = i + 1
            if j < b.count, b[j] == UInt8(ascii: "/") { j += 1 }
            let start = j
            while j < b.count, isNameByte(b[j]) { j += 1 }
            let name = String(decoding: b[start..<j], as: UTF8.self)
            precondition(pageTags.contains(name), "the public page has markup its template does not: <\(name)")
            // The rest of the tag: quoted values are skipped whole; a closing quote is followed by what the
            // template puts there.
            while j < b.count, b[j] != UInt8(ascii: ">") {
                if b[j] == UInt8(ascii: "\"") {
                    j += 1
                    while j < b.count, b[j] != UInt8(ascii: "\"") { j += 1 }
                    j += 1
                    precondition(j < b.count && [UInt8(ascii: " "), UInt8(ascii: ">"), UInt8(ascii: "/")].contains(b[j]),
                                 "an attribute value of the public page's <\(name)> ends early")
                } else {
                    j += 1
                }
            }
            i = j
        }
    }
}

let pageTags: Set<String> = [
    "!DOCTYPE", "html", "head", "meta", "title", "style", "body", "article", "header", "h1", "h2", "p", "time",
    "section", "ol", "li", "span", "div", "footer", "main", "ul", "figure", "blockquote", "figcaption", "audio", "a", "code",
    // What Ink makes of a summary's Markdown (MarkdownHTML: headings as h3, no images).
    "strong", "em", "h3", "pre", "table", "thead", "tbody", "tr", "th", "td", "hr", "br", "s",
]

// MARK: the CLI

/// The CLI's main views of a sermon and its results in one style.
func views(_ s: Scenario, _ f: Fields, style: Style) -> [String] {
    let sermon = JSON.object(s.sermon)
    return [
        Render.sermon(sermon, style: style),
        Render.sermonTable(f.sermonRows, noteCounts: f.noteCounts, style: style),
        Render.daemonStatus(f.daemonStatus, style: style) + Render.daemonStatus(sermon, style: style),
        Render.syncStatus(f.syncStatus, style: style) + Render.syncStatus(sermon, style: style),
        Render.event(f.event, style: style, clock: f.text(0)) + Render.event(sermon, style: style, clock: ""),
        Format.fields(f.texts.prefix(4).map { ($0, $0) }, style: style, indent: f.text(1)),
    ]
}

func renderCLI(_ s: Scenario, _ f: Fields) {
    let sermon = JSON.object(s.sermon)
    let chat = JSON.array(s.chats.map { .object($0) })
    let plain = views(s, f, style: Style(enabled: false))
    // `sermon show`'s heading is the title, as stored, whatever it holds.
    if let title = s.sermon[field: \Sermon.title]?.stringValue {
        precondition(plain[0].utf8.starts(with: title.utf8), "`sermon show` does not start with the title")
    }
    if s.thorough {
        // Colour only adds escape codes: the same text with them taken out.
        let coloured = views(s, f, style: Style(enabled: true))
        for (c, p) in zip(coloured, plain) {
            precondition(strippingEscapes(c) == strippingEscapes(p), "a view differs in colour:\n\(c)\n\(p)")
        }
    }
    // Results of other calls, made of the records' values, on every other input (they show the texts the
    // views above show, a fifth of the time again); search hits in bold with the thorough checks, and with
    // those also the sermon itself given as each result (one of the wrong shape).
    if s.thorough || (s.turn ?? 0) % 2 == 0 {
        _ = Render.searchHits(f.searchResult, bold: s.thorough)
        _ = Render.referenceHits(f.referenceResult, ref: f.text(2), titles: f.titles)
        _ = Render.jobs(f.jobs)
        _ = Render.conflicts(f.conflicts, all: true)
        _ = Render.history(id: f.text(0), found: ("notes", f.history))
        _ = Render.history(id: "", found: nil)
        _ = Render.syncResult(f.syncResult)
        _ = Render.passage(f.passage)
    }
    if s.thorough {
        _ = Render.searchHits(sermon, bold: false)
        _ = Render.referenceHits(sermon, ref: "", titles: [:])
        _ = Render.jobs(sermon)
        _ = Render.conflicts(sermon, all: false)
        _ = Render.history(id: "", found: ("", [sermon]))
        _ = Render.syncResult(sermon)
        _ = Render.passage(sermon)
    }
    _ = Render.audio(s.sermon[field: \Sermon.audio])
    for r in s.sermon[field: \SermonDetail.scriptureRefs]?.arrayValue ?? [] { _ = Render.scriptureRef(r) }
    // Texts through the small formatters, the ones the views above give only some texts; the ones they give
    // every note or segment with the thorough checks only.
    for (i, t) in f.texts.prefix(8).enumerated() {
        _ = Render.historyReason(t)
        _ = Format.date(t)
        _ = Format.time(.string(t))
        if s.thorough {
            _ = Render.highlight(t, bold: i % 2 == 0)
            _ = Render.conflictText(.string(t))
            _ = Render.indented(t, first: "- ", rest: "  ")
        }
    }

    // Progress lines, with the numbers the records hold as counts, totals, rates and fractions (the first
    // eight: the results above pass them all).
    _ = ProgressText.sync(f.syncProgress)
    _ = ProgressText.sync(sermon)
    _ = ProgressText.audio(f.audioProgress)
    _ = ProgressText.audio(sermon)
    for (i, n) in f.numbers.prefix(8).enumerated() {
        let d = n.doubleValue ?? 0
        let count = Format.clampedInt(d), total = Format.clampedInt(f.number(i + 1).doubleValue ?? 0)
        _ = ProgressText.counter(label: f.text(i), count: count, total: total, elapsedSeconds: d)
        _ = ProgressText.job(label: "transcribing", progress: n)
        _ = ProgressText.percent(d)
        _ = Format.number(n)
        _ = Format.truncate(f.text(i), count)
        _ = Format.padLeft(f.text(i), Format.clampedInt(d.magnitude.truncatingRemainder(dividingBy: 200)))
        if let i64 = n.int64Value { _ = Format.bytes(i64) }
    }

    // Export: Markdown and JSON.
    let markdown = SermonExport.markdown(sermon)
    precondition(markdown.hasPrefix("---\ntitle: "), "the Markdown export lost its front matter")
    _ = SermonExport.fileName(sermon)
    let exported = SermonExport.json(sermon, chat: chat)
    // Parsed back with the thorough checks only: the JSON writer is the one every target exercises.
    guard s.thorough else { return }
    guard let back = try? JSON.parse(exported), case .object(let o) = back else {
        preconditionFailure("the JSON export does not parse")
    }
    precondition(o["chat"]?.arrayValue?.count == s.chats.count, "the JSON export lost chat messages")
    precondition(o["title"]?.stringValue == s.sermon[field: \Sermon.title]?.stringValue, "the JSON export changed the title")
    precondition(o["notes"]?.arrayValue?.count == s.sermon[field: \SermonDetail.notes]?.arrayValue?.count, "the JSON export lost notes")
}

/// `s` without ANSI SGR sequences (`ESC [ digits ; … m`), the only codes `Style` writes. Text a user stored
/// may hold such sequences too; they go in both outputs alike.
func strippingEscapes(_ s: String) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(s.utf8.count)
    let b = Array(s.utf8)
    var i = 0
    while i < b.count {
        if b[i] == 0x1B, i + 1 < b.count, b[i + 1] == UInt8(ascii: "[") {
            var j = i + 2
            while j < b.count, (b[j] >= 0x30 && b[j] <= 0x39) || b[j] == UInt8(ascii: ";") { j += 1 }
            if j < b.count, b[j] == UInt8(ascii: "m") {
                i = j + 1
                continue
            }
        }
        out.append(b[i])
        i += 1
    }
    return out
}

// MARK: processing

/// The summariser's reference finder, as the job worker builds it.
let summarizer = ExtractiveSummarizer(referencesIn: { text in ScriptureReferences.references(in: text).map(\.display) })

/// The summariser and the assistant over the sermon's text, taking turns over eight inputs: a summary of
/// each type, the assistant asked the first chat message (or a question of its own), then four inputs
/// without. Each indexes the whole text (the assistant ranks it as the summariser does besides), and all four
/// on every input were half of this target's time. A JSON input (rare) gets all four, every question.
func process(_ s: Scenario) {
    let turns = s.turn.map { [$0] } ?? [0, 1, 2, 3]
    guard turns.contains(where: { $0 < 4 }) else { return }
    let text = sermonText(s)
    _ = ExtractiveSummarizer.hasContent(text)
    for turn in turns where turn < SummaryType.allCases.count {
        let type = SummaryType.allCases[turn]
        let summary = summarizer.summarize(text, type: type)
        precondition(summary.type == type, "the summariser answered another type")
    }
    guard turns.contains(3) else { return }
    let questions = s.chats.compactMap { $0[field: \ChatMessage.content]?.stringValue }
    for q in questions.isEmpty ? ["What did he say about love?"] : (s.turn == nil ? questions : [questions[0]]) {
        _ = SermonAssistant().answer(question: q, about: text)
    }
}

/// The sermon's text as the job worker loads it (`SermonTextLoader`): segments with a numeric start and
/// text, notes with text, any other shape left out.
func sermonText(_ s: Scenario) -> SermonText {
    let transcript = s.sermon[field: \SermonDetail.transcript]
    var segments = [TimedSegment]()
    for item in transcript?[field: \Transcript.segments]?.arrayValue ?? [] {
        guard let start = item[field: \Transcript.Segment.start]?.doubleValue, let text = item[field: \Transcript.Segment.text]?.stringValue else { continue }
        segments.append(TimedSegment(start: start, end: item[field: \Transcript.Segment.end]?.doubleValue ?? start, text: text))
    }
    let notes = (s.sermon[field: \SermonDetail.notes]?.arrayValue ?? []).compactMap { n -> TimedNote? in
        guard let text = n[field: \Note.text]?.stringValue else { return nil }
        return TimedNote(timestamp: n[field: \Note.timestamp]?.doubleValue ?? 0, text: text)
    }.sorted { ($0.timestamp, $0.text) < ($1.timestamp, $1.text) }
    return SermonText(title: s.sermon[field: \Sermon.title]?.stringValue ?? "", speaker: s.sermon[field: \Sermon.speaker]?.stringValue,
                      transcriptText: transcript?[field: \Transcript.text]?.stringValue ?? "", segments: segments, notes: notes)
}

// MARK: scripture and clock times

/// The scan the store indexes references by, over every text the records hold: each match lies inside its
/// text, and its reference, written out, parses back to itself.
func scanScripture(_ f: Fields) {
    for text in f.texts {
        for m in ScriptureReferences.find(in: text) {
            precondition(text.startIndex <= m.range.lowerBound && m.range.upperBound <= text.endIndex,
                         "a scripture match outside its text")
            let display = m.reference.display
            precondition(ScriptureReferences.parse(display) == [m.reference], "\(display) does not parse back to itself")
        }
    }
}

/// `ClockTime` is total: any Double gives `m:ss`-shaped digits.
func checkClock(_ d: Double) {
    let text = ClockTime.format(d)
    let groups = text.split(separator: ":", omittingEmptySubsequences: false)
    precondition((2...3).contains(groups.count) && groups.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) },
                 "ClockTime.format(\(d)) is \(text)")
    precondition((0...1_000_000_000_000_000).contains(ClockTime.wholeSeconds(d)), "ClockTime.wholeSeconds(\(d)) out of range")
    _ = ClockTime.duration(d)
}

@main
struct Entry {
    static func main() {
        FuzzEntry.main(runOne)
    }
}
