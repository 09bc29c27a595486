import Testing
@testable import TNotesServer

/// The public page's Markdown (contract §8.5): rendered, with no HTML of the user's on the page, and none of the
/// inputs that trap or hang Ink 0.6.0 reaching it as they are (`MarkdownHTML.guarded`).
@Suite("the summary's Markdown on the public page")
struct MarkdownHTMLTests {
    @Test("lists, emphasis, paragraphs and headings render; the user's HTML is text; only http(s) links stay links")
    func renders() {
        let html = MarkdownHTML.render("""
            - **Grace** comes *first*
            - second

            # Heading

            A [link](https://example.org/a?b=1&c=2) and [bad](javascript:alert(1)) and [quoted](https://x.org/"onmouseover="y).
            <script>alert(1)</script> <b>bold?</b> & 'single' "double" `a<b && c`
            ![alt text](https://example.org/i.png)
            """)
        #expect(html.contains("<ul><li><strong>Grace</strong> comes <em>first</em></li><li>second</li></ul>"), "\(html)")
        #expect(html.contains("<h3>Heading</h3>"))
        #expect(html.contains("<a href=\"https://example.org/a?b=1&amp;c=2\" rel=\"nofollow noopener\">link</a>"))
        #expect(!html.contains("javascript:") || !html.contains("href=\"javascript"), "\(html)")
        #expect(!html.contains("onmouseover=\""), "no attribute of the user's: \(html)")
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;bold?&lt;/b&gt; &amp; &#39;single&#39; &quot;double&quot;"))
        #expect(html.contains("<code>a&lt;b &amp;&amp; c</code>"), "code keeps single entities: \(html)")
        #expect(!html.contains("<img") && html.contains("alt text"))
        #expect(!html.contains("<script") && !html.contains("<b>"))
    }

    @Test("inputs that trap or hang Ink 0.6.0 render, and quickly: a list ending in white space, runs of [, an unclosed tag")
    func hostile() {
        let inputs = [
            "- a\n ", "- a\n\t\n  \n", "* x\n+ y\n ", "[ " + String(repeating: "[ ", count: 40), String(repeating: "[", count: 16_000),
            String(repeating: "[a](", count: 4000), "<p", String(repeating: "&a", count: 8000), String(repeating: "\\[a ", count: 2000),
            "[x](https://ok.example) " + String(repeating: "[", count: 100),
        ]
        for input in inputs {
            let html = MarkdownHTML.render(input)
            #expect(!html.contains("<script") && !html.contains("href=\"javascript"))
        }
        #expect(MarkdownHTML.render(String(repeating: "[", count: 5)).contains("[[[[["), "a [ that opens no link is shown as it is")
    }

    @Test("control characters are left out (the validator forbids them); tab and line breaks stay")
    func controls() {
        #expect(MarkdownHTML.escape("a\u{0}b\u{1B}c\u{7F}d\u{85}e\tf\ng") == "abcde\tf\ng")
    }
}
