import Crypto
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import TNotesCore

/// `GET /u/{handle}` and `GET /u/{handle}/feed.xml` (contract §8.5): a user's published sermons, newest first,
/// as a page and as an RSS 2.0 podcast feed (an `enclosure` for each published recording). Read without a
/// token, once the user chose a handle (`PATCH /v1/account`). Both are read from the publications as they are
/// now, and answered with `Cache-Control: no-cache` (an ETag saves the body), so an unpublished sermon leaves
/// them at once.
struct UserPages: Sendable {
    let storage: any ServerStorage

    /// One published sermon of the list.
    struct Item {
        let publicId: String
        let title: String
        let speaker: String?
        let date: String?
        let summary: String?
        let publishedAt: String
        let audio: PublishedAudio?
    }

    func index(_ request: Request, handle raw: String) async throws -> Response {
        let handle = raw.lowercased()
        guard let items = try await published(handle: handle) else { return Self.notFound(json: false) }
        let context: [String: Any] = [
            "handle": handle, "feed": "/u/\(handle)/feed.xml", "count": String(items.count), "hasItems": !items.isEmpty,
            "items": items.map { item -> [String: Any] in
                var o: [String: Any] = ["path": "/p/\(item.publicId)", "title": item.title, "dateISO": item.date ?? "",
                                        "date": PublishedContent.day(item.date)]
                if let s = item.speaker, !s.isEmpty { o["speaker"] = s }
                if let d = item.summary { o["description"] = String(d.prefix(300)) }
                return o
            },
        ]
        return Self.answer(request, body: Self.indexTemplate.render(context), type: "text/html; charset=utf-8", html: true)
    }

    func feed(_ request: Request, handle raw: String) async throws -> Response {
        let handle = raw.lowercased()
        guard let items = try await published(handle: handle) else { return Self.notFound(json: true) }
        let base = Self.baseURL(request)
        return Self.answer(request, body: RSSFeed.render(handle: handle, base: base, items: items),
                           type: "application/rss+xml; charset=utf-8", html: false)
    }

    /// The handle's published sermons, newest first; nil when no user has the handle.
    func published(handle: String) async throws -> [Item]? {
        guard Account.isHandle(handle), let user = try await storage.user(handle: handle) else { return nil }
        var items: [Item] = []
        let publications = try await storage.records(user: user, collection: .publications)
        // One read of the user's audio for the whole list, not one per sermon.
        let audioFiles = publications.contains { PublishedContent.wanted(LenientRecord<Publication>(object: $0).json(at: \.parts)).contains(.audio) }
            ? try await storage.audio(user: user) : [:]
        for body in publications {
            let p = LenientRecord<Publication>(object: body)
            guard p.deletedAt == nil, p.published == true, let snapshot = p.snapshot, let publicId = p.publicId,
                  PublicId.isValid(publicId) else { continue }
            let s = LenientRecord<PublicationSnapshot>(object: snapshot)
            let parts = PublishedContent.wanted(p.json(at: \.parts))
            var audio: PublishedAudio?
            if parts.contains(.audio), let sermonId = p.sermonId, let info = audioFiles[sermonId] {
                audio = PublishedAudio(path: "/p/\(publicId)/audio", sizeBytes: info.sizeBytes,
                                       type: PublishedAudio.mediaType(fileName: s.nested(\.audio)?.fileName))
            }
            let summary = (p.description ?? nil).flatMap { $0.isEmpty ? nil : $0 }
                ?? (parts.contains(.summary) ? s.nested(\.summary)?.text : nil)
            items.append(Item(publicId: publicId, title: s.title ?? "Untitled sermon", speaker: s.speaker ?? nil,
                              date: s.date ?? nil, summary: summary,
                              publishedAt: p.publishedAt ?? p.updatedAt ?? "", audio: audio))
        }
        return items.sorted { $0.publishedAt != $1.publishedAt ? $0.publishedAt > $1.publishedAt : $0.publicId < $1.publicId }
    }

    static let indexTemplate: MustacheTemplate = {
        MustacheContentTypes.register(ScalarHTMLEscaping(), named: ScalarHTMLEscaping.name)
        do { return try MustacheTemplate(string: PublicPageTemplate.index) } catch { fatalError("the index template does not compile: \(error)") }
    }()

    /// The address this server was asked at, for the feed's absolute links: the Host it was given (when it is a
    /// host name), and https when a TLS front says so (`X-Forwarded-Proto`).
    static func baseURL(_ request: Request) -> String {
        let proto = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" ? "https" : "http"
        let host = request.head.authority ?? ""
        let safe = !host.isEmpty && host.utf8.count <= 255
            && host.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || ".-:[]".unicodeScalars.contains($0)) }
        return "\(proto)://\(safe ? host : "localhost")"
    }

    static func answer(_ request: Request, body: String, type: String, html: Bool) -> Response {
        let etag = "\"" + SHA256.hash(data: Array(body.utf8)).prefix(16).map { String(format2: $0) }.joined() + "\""
        var headers: HTTPFields = [.contentType: type, .eTag: etag, .cacheControl: "public, no-cache",
                                   .init("X-Content-Type-Options")!: "nosniff", .init("Referrer-Policy")!: "no-referrer"]
        if html { headers[.contentSecurityPolicy] = PublicPages.contentSecurityPolicy }
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingSpaces == etag || $0.trimmingSpaces == "*" }) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func notFound(json: Bool) -> Response {
        if json {
            return JSONResponse.make(["error": "not_found", "detail": "no user has this handle"], status: .notFound)
        }
        return Response(status: .notFound, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(string: PublicPageRenderer.missing(heading: "Not found",
                                                                                              message: "No one here has this name."))))
    }
}

/// A user's RSS 2.0 feed, with the iTunes podcast namespace. Text is escaped for XML, and characters XML 1.0 does
/// not allow are dropped: any client may have published any title.
enum RSSFeed {
    static func render(handle: String, base: String, items: [UserPages.Item]) -> String {
        var x = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel>
            <title>Sermons of \(escape(handle))</title>
            <link>\(escape(base))/u/\(escape(handle))</link>
            <description>Sermons published by \(escape(handle)) with tnotes.</description>
            <language>en</language>
            <atom:link href="\(escape(base))/u/\(escape(handle))/feed.xml" rel="self" type="application/rss+xml"/>
            <itunes:author>\(escape(handle))</itunes:author>

            """
        if let newest = items.first { x += "<lastBuildDate>\(rfc822(newest.publishedAt))</lastBuildDate>\n" }
        for item in items {
            let link = "\(base)/p/\(item.publicId)"
            x += "<item>\n<title>\(escape(item.title))</title>\n<link>\(escape(link))</link>\n"
            x += "<guid isPermaLink=\"true\">\(escape(link))</guid>\n<pubDate>\(rfc822(item.publishedAt))</pubDate>\n"
            if let speaker = item.speaker, !speaker.isEmpty { x += "<itunes:author>\(escape(speaker))</itunes:author>\n" }
            if let summary = item.summary { x += "<description>\(escape(String(summary.prefix(4000))))</description>\n" }
            if let audio = item.audio {
                x += "<enclosure url=\"\(escape(base + audio.path))\" length=\"\(audio.sizeBytes)\" type=\"\(escape(audio.type))\"/>\n"
            }
            x += "</item>\n"
        }
        return x + "</channel>\n</rss>\n"
    }

    /// Text as XML (`MarkupText`): any client may have published any title.
    static func escape(_ s: String) -> String { MarkupText.escape(s) }

    static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "2026-11-29T05:00:00.000Z" → "Sun, 29 Nov 2026 05:00:00 GMT" (RFC 822 as RSS wants it); a time that is
    /// not canonical is the Unix epoch's date, so the feed stays valid.
    static func rfc822(_ time: String) -> String {
        let millis = Timestamp.parse(time) ?? 0
        var seconds = millis / 1000
        if millis < 0 && millis % 1000 != 0 { seconds -= 1 }
        let dayNumber = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - dayNumber * 86_400
        let (y, m, d) = civil(fromDays: dayNumber)
        let weekday = Int(((dayNumber % 7) + 11) % 7)  // 1970-01-01 was a Thursday
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[weekday]), \(two(d)) \(months[Int(m) - 1]) \(y) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// Howard Hinnant's civil_from_days: the proleptic Gregorian date of a day counted from 1970-01-01.
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
