import Crypto
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import TNotesCore

/// `GET /p/{publicId}` and `GET /p/{publicId}.json` (contract §6.5): a published sermon for anyone with the
/// link, read without a token. An unknown id is 404 and an unpublished one 410, both saying nothing about
/// the sermon. Pages are cacheable: a strong ETag over the body, `Cache-Control: public`, 304 on a match.
struct PublicPages: Sendable {
    let storage: any ServerStorage
    let scripture: PageScripture

    init(storage: any ServerStorage, scripture: PageScripture = PageScripture()) {
        self.storage = storage
        self.scripture = scripture
    }

    /// Security headers of every public HTML answer: no script, no frames; audio only from this server.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; media-src 'self'; script-src 'none'; frame-ancestors 'none'"

    func respond(_ request: Request, publicIdPath: String) async throws -> Response {
        let json = publicIdPath.hasSuffix(".json")
        let publicId = json ? String(publicIdPath.dropLast(5)) : publicIdPath
        guard PublicId.isValid(publicId), let record = try await storage.publication(publicId: publicId) else {
            return missing(status: .notFound, json: json, heading: "Not found", message: "There is no page at this address.")
        }
        let publication = LenientRecord<Publication>(object: record.body)
        guard publication.deletedAt == nil, publication.published == true, let snapshot = publication.snapshot else {
            return missing(status: .gone, json: json, heading: "No longer published",
                           message: "The owner of this page has unpublished it.")
        }
        let publishedAt = publication.publishedAt ?? record.updatedAt
        let parts = publication.json(at: \.parts)
        var audio: PublishedAudio?
        if PublishedContent.wanted(parts).contains(.audio), let sermonId = publication.sermonId,
           let info = try await storage.audio(user: record.user, sermonId: sermonId) {
            audio = PublishedAudio(path: "/p/\(publicId)/audio", sizeBytes: info.sizeBytes,
                                   type: PublishedAudio.mediaType(fileName: LenientRecord<PublicationSnapshot>(object: snapshot).nested(\.audio)?.fileName))
        }
        let body: String
        let type: String
        if json {
            body = PublicPageRenderer.json(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt,
                                           details: record.body, audio: audio)
            type = "application/json; charset=utf-8"
        } else {
            let content = PublishedContent(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt, details: record.body)
            let quotes = await scripture.quotes(in: content.notes.map(\.text) + [content.summary?.text ?? ""])
            body = PublicPageRenderer.html(content, quotes: quotes, audio: audio)
            type = "text/html; charset=utf-8"
        }
        let etag = "\"" + SHA256.hash(data: Array(body.utf8)).prefix(16).map { String(format2: $0) }.joined() + "\""
        var headers: HTTPFields = [.contentType: type, .eTag: etag, .cacheControl: "public, max-age=60, must-revalidate",
                                   .init("X-Content-Type-Options")!: "nosniff", .init("Referrer-Policy")!: "no-referrer"]
        if !json {
            headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        }
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingSpaces == etag || $0.trimmingSpaces == "*" }) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// `GET /p/{publicId}/audio`: the published audio, as `/v1/audio/{sermonId}` serves it (Range included), for
    /// anyone with the link, while the publication is published with its `audio` part.
    func audio(_ request: Request, _ context: ServerRequestContext, publicId: String, store: AudioStore, head: Bool,
               metrics: ServerMetrics) async throws -> Response {
        guard PublicId.isValid(publicId), let record = try await storage.publication(publicId: publicId) else {
            throw APIError.notFound("publication \(publicId)")
        }
        let publication = LenientRecord<Publication>(object: record.body)
        guard publication.deletedAt == nil, publication.published == true, let sermonId = publication.sermonId,
              PublishedContent.wanted(publication.json(at: \.parts)).contains(.audio) else {
            throw APIError(status: .gone, error: "gone", detail: "the audio of this page is not published")
        }
        let fileName = publication.snapshot.flatMap { LenientRecord<PublicationSnapshot>(object: $0).nested(\.audio)?.fileName }
        return try await ServerApp.serveAudio(request, context, user: record.user, sermonId: sermonId,
                                              contentType: PublishedAudio.mediaType(fileName: fileName), audio: store, head: head,
                                              metrics: metrics)
    }

    private func missing(status: HTTPResponse.Status, json: Bool, heading: String, message: String) -> Response {
        if json {
            return JSONResponse.make(["error": .string(status == .gone ? "gone" : "not_found"), "detail": .string(message)], status: status)
        }
        let html = PublicPageRenderer.missing(heading: heading, message: message)
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// A publication's page and its JSON from a snapshot alone, with no server: the one code path `PublicPages`
/// answers through, public so that a fuzz target can render any snapshot a client could push (contract §8.1:
/// the server renders any snapshot; a field of the wrong type is left out). Total: no input traps.
public enum PublicPageRenderer {
    /// Compiled once per process. The templates are constants of this module, so a failure here is a
    /// programming error that any render in any test shows, never something a stored value can cause.
    static let page = compile(PublicPageTemplate.page, name: "page")
    static let gone = compile(PublicPageTemplate.gone, name: "gone")

    private static func compile(_ text: String, name: String) -> MustacheTemplate {
        // Registered before a template is parsed: each names it in its CONTENT_TYPE pragma.
        MustacheContentTypes.register(ScalarHTMLEscaping(), named: ScalarHTMLEscaping.name)
        do { return try MustacheTemplate(string: text) } catch { fatalError("the public \(name) template does not compile: \(error)") }
    }

    /// The HTML page (`GET /p/{publicId}`). `details`: the publication record (its description, tags, language
    /// and canFork, read leniently); `quotes`: the cited verses' text; `audio`: the published audio, if any.
    public static func html(publicId: String, snapshot: JSONObject, parts: JSON?, publishedAt: String, details: JSONObject = [:],
                            quotes: [ScriptureQuote] = [], audio: PublishedAudio? = nil) -> String {
        html(PublishedContent(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt, details: details),
             quotes: quotes, audio: audio)
    }

    /// The HTML page of content already read from its snapshot (the server reads it once, for the quotes too).
    static func html(_ content: PublishedContent, quotes: [ScriptureQuote], audio: PublishedAudio?) -> String {
        page.render(content.mustacheContext(quotes: quotes, audio: audio))
    }

    /// The JSON text (`GET /p/{publicId}.json`), canonical.
    public static func json(publicId: String, snapshot: JSONObject, parts: JSON?, publishedAt: String, details: JSONObject = [:],
                            audio: PublishedAudio? = nil) -> String {
        PublishedContent(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt, details: details)
            .json(audio: audio).text
    }

    /// The page of an id that is unknown (404) or unpublished (410).
    static func missing(heading: String, message: String) -> String {
        gone.render(["heading": heading, "message": message])
    }
}

/// The escaping of `{{name}}` in the public templates: HTML's five characters, by UTF-8 byte. swift-mustache's
/// own HTML escaping goes by Character, and a quote or `<` followed by a combining mark is one Character that
/// is not in its table: a title `x"\u{301} style=…` ended the `content="…"` attribute it was written into and
/// added attributes of its own (tnotes-fuzz-render found it). The five are ASCII, and an ASCII byte never
/// occurs inside a multi-byte UTF-8 sequence, so escaping bytes escapes each of them wherever it stands.
struct ScalarHTMLEscaping: MustacheContentType {
    static let name = "TNOTES_HTML"

    func escapeText(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            // Control characters are not allowed in HTML (the validator's "forbidden code point"); tab, line
            // feed and carriage return are.
            case 0x00...0x08, 0x0B, 0x0C, 0x0E...0x1F, 0x7F: continue
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): out.append(contentsOf: "&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What a publication shows, read from its snapshot. A snapshot comes from a device (any client, old or
/// hostile, can push one); every part of it is checked for its type here, and a part of the wrong shape is
/// left out rather than failing the page: a note without text, a segment that is not an object, a time that
/// is not a finite number (the note is shown without its time). Times out of the bounds of contract §8.1
/// (stored before them) are kept and shown through `ClockTime`, which is total.
struct PublishedContent {
    typealias Note = (timestamp: Double?, text: String)
    typealias Segment = (start: Double?, text: String)

    let publicId: String
    let title: String
    let speaker: String?
    let date: String?
    let serviceType: String?
    let notes: [Note]
    let summary: (title: String, text: String, type: String)?
    let transcript: (text: String, segments: [Segment])?
    let publishedAt: String
    /// The publication's details (contract §8.5), each of the right type or left out.
    let description: String?
    let tags: [String]
    let language: String
    let canFork: Bool

    /// The parts a publication's `parts` names: those that are not strings, or not parts, are left out; no
    /// list at all is the default parts.
    static func wanted(_ parts: JSON?) -> Set<Publication.Part> {
        Set(parts.flatMap([Publication.Part].decodeFieldLeniently) ?? Publication.Part.defaults)
    }

    init(publicId: String, snapshot: JSONObject, parts: JSON?, publishedAt: String, details: JSONObject = [:]) {
        self.publicId = publicId
        let s = LenientRecord<PublicationSnapshot>(object: snapshot)
        let wanted = Self.wanted(parts)
        let d = LenientRecord<Publication>(object: details)
        description = (d.description ?? nil).flatMap { $0.isEmpty ? nil : $0 }
        tags = (d.tags ?? nil) ?? []
        // Only a well-formed tag reaches the page's `lang`.
        language = (d.language ?? nil).flatMap { Publication.isLanguageTag($0) ? $0 : nil } ?? Publication.defaultLanguage
        canFork = (d.canFork ?? nil) ?? false
        title = s.title ?? "Untitled sermon"
        speaker = s.speaker
        date = s.date
        serviceType = s.serviceType
        if wanted.contains(.notes) {
            let given = (s.list(\.notes) ?? []).compactMap { n -> Note? in
                guard let text = n.text else { return nil }
                return (Self.seconds(n.timestamp), text)
            }
            // By time, a note without one first (as at 0), ties in the snapshot's order. The key is a finite
            // number and the index breaks ties, so the order is a strict total one whatever the snapshot holds.
            notes = given.enumerated().sorted { a, b in
                let x = a.element.timestamp ?? 0, y = b.element.timestamp ?? 0
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
        } else {
            notes = []
        }
        if wanted.contains(.summary), let o = s.nested(\.summary), let text = o.text {
            summary = (o.title ?? "Summary", text, o.type ?? "")
        } else {
            summary = nil
        }
        if wanted.contains(.transcript), let o = s.nested(\.transcript), let text = o.text {
            let segments = (o.list(\.segments) ?? []).compactMap { g -> Segment? in
                guard let t = g.text else { return nil }
                return (Self.seconds(g.start), t)
            }
            transcript = (text, segments)
        } else {
            transcript = nil
        }
        self.publishedAt = publishedAt
    }

    /// A time in seconds when `value` is a finite number; nil (left out) otherwise. JSON cannot carry NaN or
    /// infinity, but a snapshot built in memory (the fuzz target's) can.
    static func seconds(_ value: Double?) -> Double? {
        guard let d = value, d.isFinite else { return nil }
        return d
    }

    /// `{publicId, title, speaker, date, serviceType, notes, summary|null, transcript|null, publishedAt,
    /// description|null, tags, language, canFork, audio|null}`. A note's `timestamp` (a segment's `start`) is absent
    /// when the snapshot's was not a number.
    func json(audio: PublishedAudio?) -> JSON {
        var o: JSONObject = [
            "publicId": .string(publicId), "title": .string(title), "speaker": JSON(speaker), "date": JSON(date),
            "serviceType": JSON(serviceType),
            "notes": .array(notes.map { n in
                var o: JSONObject = ["text": .string(n.text)]
                if let t = n.timestamp { o[field: \PublicationSnapshot.NotePart.timestamp] = .double(t) }
                return .object(o)
            }),
            "summary": summary.map { ["title": .string($0.title), "text": .string($0.text), "type": .string($0.type)] } ?? .null,
            "transcript": transcript.map { t in
                ["text": .string(t.text), "segments": .array(t.segments.map { g in
                    var o: JSONObject = ["text": .string(g.text)]
                    if let start = g.start { o[field: \Transcript.Segment.start] = .double(start) }
                    return .object(o)
                })]
            } ?? .null,
            "publishedAt": .string(publishedAt),
        ]
        o["description"] = JSON(description)
        o["tags"] = .array(tags.map { .string($0) })
        o["language"] = .string(language)
        o["canFork"] = .bool(canFork)
        o["audio"] = audio.map { ["url": .string($0.path), "sizeBytes": .int($0.sizeBytes), "type": .string($0.type)] } ?? .null
        return .object(o)
    }

    /// The template's context: strings only (Mustache escapes each one), times as mm:ss (`ClockTime`, total
    /// for any number), a line without a time marked so the template leaves the time out.
    func mustacheContext(quotes: [ScriptureQuote] = [], audio: PublishedAudio? = nil) -> [String: Any] {
        var c: [String: Any] = [
            "title": title, "dateISO": date ?? "", "date": Self.day(date), "publishedAt": Self.day(publishedAt),
            "hasNotes": !notes.isEmpty,
            "notes": notes.map(Self.line),
            "language": language,
        ]
        var meta = [speaker, Self.day(date)].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
        if let s = description ?? summary?.text ?? notes.first?.text { meta += (meta.isEmpty ? "" : " — ") + String(s.prefix(160)) }
        c["metaDescription"] = meta
        if let description { c["description"] = description }
        if !tags.isEmpty { c["tags"] = tags.map { ["tag": $0] }; c["hasTags"] = true }
        if canFork { c["canFork"] = true }
        if let speaker { c["speaker"] = speaker }
        if let serviceType { c["serviceType"] = serviceType }
        // The Markdown's HTML comes from `MarkdownHTML`, which escapes every character of the text first.
        if let summary { c["summary"] = ["heading": summary.title, "html": MarkdownHTML.render(summary.text)] }
        if !quotes.isEmpty { c["quotes"] = quotes.map { ["reference": $0.reference, "text": $0.text] }; c["hasQuotes"] = true }
        if let audio { c["audio"] = ["path": audio.path, "type": audio.type] }
        if let transcript {
            c["transcript"] = ["text": transcript.text, "hasSegments": !transcript.segments.isEmpty,
                               "segments": transcript.segments.map(Self.line)]
        }
        return c
    }

    /// One timed line of the page (a note, a segment).
    static func line(_ item: (Double?, String)) -> [String: Any] {
        var l: [String: Any] = ["text": item.1, "timed": item.0 != nil]
        if let t = item.0 { l["at"] = ClockTime.format(t) }
        return l
    }

    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]

    /// "2025-11-09T10:30:00.000Z" → "9 November 2025"; anything else is shown as it is.
    static func day(_ time: String?) -> String {
        guard let t = time, t.count >= 10 else { return time ?? "" }
        let parts = t.prefix(10).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), (1...31).contains(d)
        else { return t }
        return "\(d) \(months[m - 1]) \(y)"
    }
}

/// A publication's published audio as the page, its JSON and the feed name it.
public struct PublishedAudio: Sendable, Equatable {
    /// `/p/{publicId}/audio`.
    public let path: String
    public let sizeBytes: Int64
    /// Its media type, from the file's name.
    public let type: String

    public init(path: String, sizeBytes: Int64, type: String) {
        self.path = path
        self.sizeBytes = sizeBytes
        self.type = type
    }

    /// The media type of an audio file by its extension (what tnotes imports and records).
    static func mediaType(fileName: String?) -> String {
        let ext = fileName.flatMap { name in name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]).lowercased() } } ?? ""
        switch ext {
        case "ogg", "oga", "opus": return "audio/ogg"
        case "mp3": return "audio/mpeg"
        case "m4a", "mp4", "aac": return "audio/mp4"
        case "wav": return "audio/wav"
        case "flac": return "audio/flac"
        case "webm": return "audio/webm"
        default: return "application/octet-stream"
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

extension String {
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}

extension Substring {
    var trimmingSpaces: String { String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
