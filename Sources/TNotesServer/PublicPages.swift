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
    let page: MustacheTemplate
    let gone: MustacheTemplate

    init(storage: any ServerStorage) throws {
        self.storage = storage
        page = try MustacheTemplate(string: PublicPageTemplate.page)
        gone = try MustacheTemplate(string: PublicPageTemplate.gone)
    }

    func respond(_ request: Request, publicIdPath: String) async throws -> Response {
        let json = publicIdPath.hasSuffix(".json")
        let publicId = json ? String(publicIdPath.dropLast(5)) : publicIdPath
        guard PublicId.isValid(publicId), let record = try await storage.publication(publicId: publicId) else {
            return missing(status: .notFound, json: json, heading: "Not found", message: "There is no page at this address.")
        }
        guard record.body["deletedAt"]?.isNull ?? true, record.body["published"]?.boolValue == true,
              case .object(let snapshot)? = record.body["snapshot"]
        else {
            return missing(status: .gone, json: json, heading: "No longer published",
                           message: "The owner of this page has unpublished it.")
        }
        let content = PublishedContent(publicId: publicId, snapshot: snapshot, parts: record.body["parts"],
                                       publishedAt: record.body["publishedAt"]?.stringValue ?? record.updatedAt)
        let body: String
        let type: String
        if json {
            body = content.json.text
            type = "application/json; charset=utf-8"
        } else {
            body = page.render(content.mustacheContext)
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
        let html = gone.render(["heading": heading, "message": message])
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// What a publication shows, read from its snapshot. A snapshot comes from a device; every part of it is
/// checked for its type here, and a part of the wrong shape is left out rather than failing the page.
struct PublishedContent {
    let publicId: String
    let title: String
    let speaker: String?
    let date: String?
    let serviceType: String?
    let notes: [(timestamp: Double, text: String)]
    let summary: (title: String, text: String, type: String)?
    let transcript: (text: String, segments: [(start: Double, text: String)])?
    let publishedAt: String

    init(publicId: String, snapshot s: JSONObject, parts: JSON?, publishedAt: String) {
        self.publicId = publicId
        let wanted = Set(parts?.arrayValue?.compactMap(\.stringValue) ?? ["notes", "summary"])
        title = s["title"]?.stringValue ?? "Untitled sermon"
        speaker = s["speaker"]?.stringValue
        date = s["date"]?.stringValue
        serviceType = s["serviceType"]?.stringValue
        notes = wanted.contains("notes") ? (s["notes"]?.arrayValue ?? []).compactMap { n in
            guard let text = n["text"]?.stringValue else { return nil }
            return (n["timestamp"]?.doubleValue ?? 0, text)
        }.sorted { $0.timestamp < $1.timestamp } : []
        if wanted.contains("summary"), let o = s["summary"], let text = o["text"]?.stringValue {
            summary = (o["title"]?.stringValue ?? "Summary", text, o["type"]?.stringValue ?? "")
        } else {
            summary = nil
        }
        if wanted.contains("transcript"), let o = s["transcript"], let text = o["text"]?.stringValue {
            let segments = (o["segments"]?.arrayValue ?? []).compactMap { g -> (Double, String)? in
                guard let t = g["text"]?.stringValue else { return nil }
                return (g["start"]?.doubleValue ?? 0, t)
            }
            transcript = (text, segments)
        } else {
            transcript = nil
        }
        self.publishedAt = publishedAt
    }

    /// `{publicId, title, speaker, date, serviceType, notes, summary|null, transcript|null, publishedAt}`.
    var json: JSON {
        [
            "publicId": .string(publicId), "title": .string(title), "speaker": JSON(speaker), "date": JSON(date),
            "serviceType": JSON(serviceType),
            "notes": .array(notes.map { ["timestamp": .double($0.timestamp), "text": .string($0.text)] }),
            "summary": summary.map { ["title": .string($0.title), "text": .string($0.text), "type": .string($0.type)] } ?? .null,
            "transcript": transcript.map { t in
                ["text": .string(t.text), "segments": .array(t.segments.map { ["start": .double($0.start), "text": .string($0.text)] })]
            } ?? .null,
            "publishedAt": .string(publishedAt),
        ]
    }

    /// The template's context: strings only (Mustache escapes each one), times as mm:ss.
    var mustacheContext: [String: Any] {
        var c: [String: Any] = [
            "title": title, "dateISO": date ?? "", "date": Self.day(date), "publishedAt": Self.day(publishedAt),
            "hasNotes": !notes.isEmpty,
            "notes": notes.map { ["at": Self.clock($0.timestamp), "text": $0.text] },
        ]
        var description = [speaker, Self.day(date)].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
        if let s = summary?.text ?? notes.first?.text { description += (description.isEmpty ? "" : " — ") + String(s.prefix(160)) }
        c["description"] = description
        if let speaker { c["speaker"] = speaker }
        if let serviceType { c["serviceType"] = serviceType }
        if let summary { c["summary"] = ["heading": summary.title, "text": summary.text] }
        if let transcript {
            c["transcript"] = ["text": transcript.text, "hasSegments": !transcript.segments.isEmpty,
                               "segments": transcript.segments.map { ["at": Self.clock($0.start), "text": $0.text] }]
        }
        return c
    }

    static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite && seconds > 0 ? Int(seconds) : 0
        let h = total / 3600, m = (total / 60) % 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(two(m)):\(two(s))"
    }

    /// "2025-11-09T10:30:00.000Z" → "9 November 2025".
    static func day(_ time: String?) -> String {
        guard let t = time, t.count >= 10 else { return time ?? "" }
        let parts = t.prefix(10).split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m) else { return t }
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        return "\(d) \(months[m - 1]) \(y)"
    }
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
