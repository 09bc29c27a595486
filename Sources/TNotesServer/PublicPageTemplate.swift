/// The public page of a published sermon (contract §6.5), a Mustache template rendered by swift-mustache.
/// `{{name}}` escapes HTML (by byte, `ScalarHTMLEscaping`, named by each template's first line), so every
/// user-provided string (title, notes, summary, transcript) is text on the page, never markup. No script: the
/// page reads the same with JavaScript off, on a phone (one column, readable line length) and on paper (print
/// styles).
enum PublicPageTemplate {
    static let page = """
        {{% CONTENT_TYPE: TNOTES_HTML }}
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'">
        <title>{{title}}</title>
        <meta name="description" content="{{description}}">
        <meta property="og:type" content="article">
        <meta property="og:title" content="{{title}}">
        <meta property="og:description" content="{{description}}">
        <meta name="twitter:card" content="summary">
        <style>
        :root { color-scheme: light dark; }
        body { font: 1.05rem/1.6 Georgia, "DejaVu Serif", serif; max-width: 40rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
        header p { margin: .2rem 0; color: #666; }
        h1 { font-size: 1.7rem; line-height: 1.25; margin: 0 0 .4rem; }
        h2 { font-size: 1.15rem; margin: 2rem 0 .6rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; }
        ol.notes, ol.segments { list-style: none; padding: 0; margin: 0; }
        ol.notes li, ol.segments li { margin: 0 0 .7rem; overflow-wrap: anywhere; }
        time.at { font: .85rem/1 ui-monospace, "DejaVu Sans Mono", monospace; color: #555; margin-right: .5rem; }
        .prose { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
        footer { margin-top: 3rem; font-size: .85rem; color: #777; }
        @media print {
          body { max-width: none; font-size: 11pt; padding: 0; color: #000; }
          h2 { break-after: avoid; }
          li { break-inside: avoid; }
          footer { display: none; }
        }
        </style>
        </head>
        <body>
        <article>
        <header>
        <h1>{{title}}</h1>
        {{#speaker}}<p class="speaker">{{speaker}}</p>{{/speaker}}
        <p class="date"><time datetime="{{dateISO}}">{{date}}</time>{{#serviceType}} · {{serviceType}}{{/serviceType}}</p>
        </header>
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
        <div class="prose">{{text}}</div>
        </section>
        {{/summary}}
        {{#transcript}}
        <section class="transcript">
        <h2>Transcript</h2>
        {{#hasSegments}}<ol class="segments">
        {{#segments}}<li>{{#timed}}<time class="at">{{at}}</time>{{/timed}}<span class="text">{{text}}</span></li>
        {{/segments}}</ol>{{/hasSegments}}
        {{^hasSegments}}<p class="prose">{{text}}</p>{{/hasSegments}}
        </section>
        {{/transcript}}
        </article>
        <footer>Published {{publishedAt}} with tnotes.</footer>
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
        <body style="font: 1.05rem/1.6 Georgia, serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
        <h1>{{heading}}</h1>
        <p>{{message}}</p>
        </body>
        </html>

        """
}
