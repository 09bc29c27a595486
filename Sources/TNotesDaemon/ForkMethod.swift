import TNotesCore
import TNotesRPC
import TNotesStore
import TNotesSync

/// `sermon.fork {url}` (contract §8.5): a published sermon, copied into this library as a new sermon of its own
/// (notes, summary and transcript as published, `forkedFrom` kept), when its publication allows copies
/// (`canFork`); -32004 when it does not. The page's JSON (`/p/{publicId}.json`) is fetched through the daemon's
/// libcurl client: http(s) only, no redirects, 20 s, at most 32 MiB. What it holds is another server's word, so
/// each value is read leniently and brought within this store's bounds (contract §8.1) before it is written.
struct ForkMethod {
    let store: Store
    /// The configured server and its CA file (a page of one's own server may need its private CA).
    let sync: SyncSlot
    let caFile: String?

    static let maxBodyBytes = 32 << 20
    static let maxNotes = 10_000

    /// A page's address, taken apart: `base/p/publicId`.
    struct PageAddress: Equatable {
        let base: String
        let publicId: String
        var page: String { "\(base)/p/\(publicId)" }
        var json: String { "\(page).json" }

        /// nil for anything but an http(s) address of a published page (`…/p/{publicId}`, with or without `.json`).
        init?(_ text: String) {
            let url = text.trimmingSpaces
            let lower = url.lowercased()
            guard url.utf8.count <= 2000, lower.hasPrefix("http://") || lower.hasPrefix("https://"),
                  url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
                  let marker = url.ranges(of: "/p/").last else { return nil }
            let schemeEnd = url.firstRange(of: "://")!.upperBound
            guard marker.lowerBound > schemeEnd else { return nil }
            var id = String(url[marker.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
            if id.hasSuffix(".json") { id = String(id.dropLast(5)) }
            guard PublicId.isValid(id) else { return nil }
            base = String(url[..<marker.lowerBound])
            publicId = id
        }
    }

    func register(into table: inout MethodTable) {
        let store = self.store, slot = sync, caFile = self.caFile
        table.add(MethodSpec(SermonFork.self, summary: """
            Copy a published sermon whose author allows it (canFork) into this library as a new sermon: its notes, \
            summary and transcript as published, and forkedFrom {url, publicId}. -32004 when copies are not allowed.
            """, notes: [\.url: "the page's address, https://server/p/{publicId}"], result: RecordMethods.sermonResult) { p, _ in
            guard let address = PageAddress(p.url) else {
                throw RPCError.invalidParams(field: SermonFork.Params.name(\.url), reason: "must be the http(s) address of a published page (…/p/{publicId})")
            }
            let own = slot.serverURL.map { address.base.hasPrefix($0.hasSuffix("/") ? String($0.dropLast()) : $0) } ?? false
            let page = try await Self.fetch(address, transport: CurlTransport(caFile: own ? caFile : nil))
            guard page["canFork"]?.boolValue == true else {
                throw RPCError.forbidden("the author of \(address.page) does not allow copies (canFork is false)")
            }
            return try await store.write { s in try Self.copy(page, from: address, in: s) }
        })
    }

    static func fetch(_ address: PageAddress, transport: CurlTransport) async throws -> JSONObject {
        var request = TransportRequest(method: "GET", url: address.json, headers: ["Accept: application/json"])
        request.maxBodyBytes = maxBodyBytes
        let response: TransportResponse
        do {
            response = try await transport.perform(request)
        } catch {
            throw RPCError.unavailable("\(address.page) cannot be read: \(error)")
        }
        switch response.status {
        case 200: break
        case 404: throw RPCError.notFound("published page", id: address.page)
        case 410: throw RPCError.notFound("published page (it was unpublished)", id: address.page)
        default: throw RPCError.unavailable("\(address.page) answered \(response.status)")
        }
        guard case .object(let page)? = try? JSON.parse(response.body), page["publicId"]?.stringValue == address.publicId else {
            throw RPCError.unavailable("\(address.json) is not a tnotes page")
        }
        return page
    }

    /// The new sermon and its parts, written in one transaction; the sermon as `sermon.get` shows it.
    static func copy(_ page: JSONObject, from address: PageAddress, in s: StoreSession) throws -> JSON {
        let shown = LenientRecord<PublicationSnapshot>(object: page)
        let now = s.stamp()
        var sermon = Sermon()
        sermon.id = Identifier.make()
        sermon.title = clip(shown.title ?? "", ValueBounds.maxLabelCharacters).nonEmpty ?? "Untitled sermon"
        sermon.date = (shown.date ?? nil).flatMap(Timestamp.canonical) ?? now
        if let serviceType = shown.serviceType ?? nil { sermon.serviceType = clip(serviceType, ValueBounds.maxLabelCharacters) }
        sermon.speaker = (shown.speaker ?? nil).map { clip($0, ValueBounds.maxLabelCharacters) }
        sermon.forkedFrom = Sermon.ForkSource(url: address.page, publicId: address.publicId).record
        sermon.createdAt = now
        sermon.updatedAt = now
        let saved = try s.commitLocal(.sermons, record: sermon.record, op: .upsert)

        for item in (page["notes"]?.arrayValue ?? []).prefix(maxNotes) {
            guard let text = item["text"]?.stringValue else { continue }
            var note = Note()
            note.id = Identifier.make()
            note.sermonId = sermon.id
            note.text = clip(text, ValueBounds.maxNoteCharacters)
            note.timestamp = seconds(item["timestamp"]?.doubleValue)
            note.createdAt = now
            note.updatedAt = now
            try s.commitLocal(.notes, record: note.record, op: .upsert)
        }
        if let summary = page["summary"], let text = summary["text"]?.stringValue {
            let type = summary["type"]?.stringValue.flatMap(Summary.Kind.init(rawValue:)) ?? .devotional
            _ = try s.setSummary(sermonId: sermon.id, title: .string(summary["title"]?.stringValue ?? "Summary"), text: .string(text),
                                 type: type.fieldJSON, status: ProcessingStatus.complete.fieldJSON, generatedBy: nil)
        }
        if let transcript = page["transcript"], let text = transcript["text"]?.stringValue {
            // The page gives each segment its start; it ends where the next one starts.
            let given = (transcript["segments"]?.arrayValue ?? []).compactMap { g -> (Double, String)? in
                guard let t = g["text"]?.stringValue else { return nil }
                return (seconds(g["start"]?.doubleValue), t)
            }
            let segments: [JSON] = given.enumerated().map { i, g in
                let end = max(g.0, i + 1 < given.count ? given[i + 1].0 : g.0)
                return ["start": .double(g.0), "end": .double(end), "text": .string(g.1)]
            }
            _ = try s.setTranscript(sermonId: sermon.id, text: .string(text), status: ProcessingStatus.complete.fieldJSON,
                                    segments: .array(segments))
        }
        return try RecordViews.sermon(saved, in: s, withChildren: true)
    }

    /// A time within contract §8.1's bounds (0 when it is not a number).
    static func seconds(_ value: Double?) -> Double {
        guard let v = value, v.isFinite else { return 0 }
        return min(max(v, 0), ValueBounds.maxSeconds)
    }

    static func clip(_ text: String, _ limit: Int) -> String { text.count <= limit ? text : String(text.prefix(limit)) }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
