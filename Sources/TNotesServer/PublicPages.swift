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

    init(storage: any ServerStorage) {
        self.storage = storage
    }

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
        let body: String
        let type: String
        if json {
            body = PublicPageRenderer.json(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt)
            type = "application/json; charset=utf-8"
        } else {
            body = PublicPageRenderer.html(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt)
            type = "text/html; charset=utf-8"
        }
        let etag = "\"" + SHA256.hash(data: Array(body.utf8)).prefix(16).map { String(format2: $0) }.joined() + "\""
        var headers: HTTPFields = [.contentType: type, .eTag: etag, .cacheControl: "public, max-age=60, must-revalidate",
                                   .init("X-Content-Type-Options")!: "nosniff", .init("Referrer-Policy")!: "no-referrer"]
        if !json {
            headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'; frame-ancestors 'none'"
        }
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingSpaces == etag || $0.trimmingSpaces == "*" }) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
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

    /// The HTML page (`GET /p/{publicId}`).
    public static func html(publicId: String, snapshot: JSONObject, parts: JSON?, publishedAt: String) -> String {
        let content = PublishedContent(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt)
        return page.render(content.mustacheContext)
    }

    /// The JSON text (`GET /p/{publicId}.json`), canonical.
    public static func json(publicId: String, snapshot: JSONObject, parts: JSON?, publishedAt: String) -> String {
        PublishedContent(publicId: publicId, snapshot: snapshot, parts: parts, publishedAt: publishedAt).json.text
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

    init(publicId: String, snapshot: JSONObject, parts: JSON?, publishedAt: String) {
        self.publicId = publicId
        let s = LenientRecord<PublicationSnapshot>(object: snapshot)
        // Parts that are not strings, or not parts, are left out; no list at all is the default parts.
        let wanted = Set(parts.flatMap([Publication.Part].decodeFieldLeniently) ?? Publication.Part.defaults)
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

    /// `{publicId, title, speaker, date, serviceType, notes, summary|null, transcript|null, publishedAt}`. A
    /// note's `timestamp` (a segment's `start`) is absent when the snapshot's was not a number.
    var json: JSON {
        [
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
    }

    /// The template's context: strings only (Mustache escapes each one), times as mm:ss (`ClockTime`, total
    /// for any number), a line without a time marked so the template leaves the time out.
    var mustacheContext: [String: Any] {
        var c: [String: Any] = [
            "title": title, "dateISO": date ?? "", "date": Self.day(date), "publishedAt": Self.day(publishedAt),
            "hasNotes": !notes.isEmpty,
            "notes": notes.map(Self.line),
        ]
        var description = [speaker, Self.day(date)].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
        if let s = summary?.text ?? notes.first?.text { description += (description.isEmpty ? "" : " — ") + String(s.prefix(160)) }
        c["description"] = description
        if let speaker { c["speaker"] = speaker }
        if let serviceType { c["serviceType"] = serviceType }
        if let summary { c["summary"] = ["heading": summary.title, "text": summary.text] }
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
