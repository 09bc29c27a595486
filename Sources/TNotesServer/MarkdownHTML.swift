import Ink

/// A summary's Markdown as HTML for the public page (contract §8.5): lists, emphasis, paragraphs, headings,
/// quotes, code, safe links, by Ink (JohnSundell/Ink 0.6.0). No HTML of the user's reaches the page:
/// - Ink passes raw HTML through as it is, so every `&`, `<`, `>`, `"` and `'` of the text is escaped first. Ink
///   keeps an entity it finds (`&lt;` stays `&lt;`), so nothing is escaped twice in text; inside code, where Ink
///   escapes `&` again, the doubled entities are put back (`undoubled`).
/// - Ink writes a link's URL into `href` as it is: a link keeps its `<a>` only for an http(s) URL (its quotes are
///   escaped already), otherwise it is its text alone. An image is its alt text (the page loads no images).
/// - Headings become `h3`: the summary sits under the page's own `h2`.
/// - Control characters are dropped (not allowed in HTML).
enum MarkdownHTML {
    /// At most this much of a summary is rendered as Markdown; past it, the text is shown as plain text.
    /// Bounds the parser's work on a hostile summary (any client can publish any snapshot).
    static let maxCharacters = 200_000

    static func render(_ markdown: String) -> String {
        let escaped = escape(markdown)
        guard markdown.utf8.count <= maxCharacters else { return "<p class=\"plain\">\(escaped)</p>" }
        return parser.html(from: guarded(escaped))
    }

    /// What Ink 0.6.0 is given, measured against its failures on hostile input (6,000 random documents and long
    /// repeats of each token, 2026-11-29): a list followed by nothing but white space at the very end traps
    /// (`- a\n `), and every unmatched `[` doubles the parse time (24 took over 10 s; 16,000 overflow the stack).
    /// So trailing white space is dropped from every line, and a `[` that does not open a well-formed link to an
    /// http(s) address is escaped (`\[`, which Ink shows as `[` and never starts a link at). With both, every
    /// input tried parsed in under 0.06 s.
    static func guarded(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            var l = line
            while let last = l.last, last.isWhitespace { l.removeLast() }
            return l
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        let trimmed = lines.joined(separator: "\n")
        var out = ""
        out.reserveCapacity(trimmed.utf8.count + 16)
        var i = trimmed.startIndex
        while i < trimmed.endIndex {
            let c = trimmed[i]
            if c == "[" {
                if let end = linkEnd(trimmed, from: i) {
                    out += trimmed[i..<end]
                    i = end
                    continue
                }
                out += "\\["
            } else {
                out.append(c)
            }
            i = trimmed.index(after: i)
        }
        return out
    }

    /// The end of `[text](http(s)://address)` starting at `start` (a `[`): text without brackets or line breaks,
    /// an address without white space, parentheses, `<`, `>`, `"` or `\\`. Nil when there is no such link there.
    static func linkEnd(_ s: String, from start: String.Index) -> String.Index? {
        var i = s.index(after: start)
        while i < s.endIndex, s[i] != "]" {
            if s[i] == "[" || s[i] == "\n" { return nil }
            i = s.index(after: i)
        }
        guard i < s.endIndex else { return nil }
        i = s.index(after: i)
        guard i < s.endIndex, s[i] == "(" else { return nil }
        i = s.index(after: i)
        let rest = s[i...]
        guard rest.hasPrefix("http://") || rest.hasPrefix("https://") else { return nil }
        while i < s.endIndex, s[i] != ")" {
            let c = s[i]
            if c.isWhitespace || c == "(" || c == "<" || c == ">" || c == "\"" || c == "\\" { return nil }
            i = s.index(after: i)
        }
        guard i < s.endIndex else { return nil }
        return s.index(after: i)
    }

    /// Made per call: Ink's parser is not Sendable (and costs nothing to make).
    private static var parser: MarkdownParser { MarkdownParser(modifiers: modifiers) }

    private static var modifiers: [Modifier] { [
        Modifier(target: .links) { input in
            guard let hrefStart = input.html.firstRange(of: "href=\""),
                  let hrefEnd = input.html[hrefStart.upperBound...].firstIndex(of: "\""),
                  let textStart = input.html[hrefEnd...].firstIndex(of: ">"),
                  let textEnd = input.html.ranges(of: "</a>").last
            else { return "" }
            let url = input.html[hrefStart.upperBound..<hrefEnd]
            let text = String(input.html[input.html.index(after: textStart)..<textEnd.lowerBound])
            let lower = url.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), !url.contains(" "), !url.contains("<") else { return text }
            return "<a href=\"\(url)\" rel=\"nofollow noopener\">\(text)</a>"
        },
        Modifier(target: .images) { input in
            // <img src="…" alt="…"/>: the alt text (escaped already) alone.
            guard let altStart = input.html.firstRange(of: "alt=\""), let altEnd = input.html[altStart.upperBound...].firstIndex(of: "\"") else {
                return ""
            }
            return String(input.html[altStart.upperBound..<altEnd])
        },
        Modifier(target: .headings) { input in
            var html = input.html
            guard html.count >= 9, html.hasPrefix("<h"), let open = html.firstIndex(of: ">") else { return html }
            html.replaceSubrange(html.startIndex..<html.index(after: open), with: "<h3>")
            if let close = html.ranges(of: "</h").last { html.replaceSubrange(close.lowerBound..<html.endIndex, with: "</h3>") }
            return html
        },
        Modifier(target: .inlineCode) { input in undoubled(input.html) },
        Modifier(target: .codeBlocks) { input in undoubled(input.html) },
        Modifier(target: .html) { input in
            // Unreachable with every `<` escaped; should Ink ever see HTML, it is shown as text.
            escape(String(input.markdown))
        },
    ] }

    /// Ink escapes `&` once more inside code: the entities `escape` made are put back as they were (still entities).
    static func undoubled(_ html: String) -> String {
        var out = html
        for entity in ["lt;", "gt;", "quot;", "#39;", "amp;"] {
            out = out.replacing("&amp;" + entity, with: "&" + entity)
        }
        return out
    }

    /// The text as HTML, before Ink reads it (`MarkupText`).
    static func escape(_ s: String) -> String { MarkupText.escape(s) }
}
