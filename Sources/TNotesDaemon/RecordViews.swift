import TNotesCore
import TNotesStore

/// How stored records look to socket clients (contract §2 "Records as returned").
enum RecordViews {
    /// A sermon: its body, its sync state and this device's audio state; with children for `sermon.get`.
    static func sermon(_ record: StoredRecord, in session: StoreSession, withChildren: Bool, publicBase: String? = nil) throws -> JSON {
        var o = record.body
        o["syncState"] = .string(record.syncState.rawValue)
        if case .object(var audio)? = o["audio"] {
            let file = try session.audioFile(sermonId: record.id)
            let matches = file?.sha256 == audio["sha256"]?.stringValue
            audio["localAvailable"] = .bool(matches && (file?.localAvailable ?? false))
            audio["uploaded"] = .bool(matches && (file?.uploaded ?? false))
            o["audio"] = .object(audio)
        }
        if withChildren {
            // The children go out exactly as stored (canonical text), without a parse and a re-encode.
            o["notes"] = .array(try session.childTexts(.notes, sermonId: record.id).map { .raw($0) })
            o["transcript"] = try session.childTexts(.transcripts, sermonId: record.id).first.map { .raw($0) } ?? .null
            o["summary"] = try session.childTexts(.summaries, sermonId: record.id).first.map { .raw($0) } ?? .null
            // Every passage the sermon cites, in its title, notes, transcript and summary (contract §6.2).
            o["scriptureRefs"] = .array(try session.scriptureReferences(sermonId: record.id).map(\.json))
            // Its public page, if it was ever published (contract §6.5).
            let publication = try session.record(.publications, id: Identifier.derived(from: record.id, kind: "publication"))
            o["publication"] = publication.map { PublishMethods.view($0, base: publicBase) } ?? .null
        }
        return .object(o)
    }

    /// Notes by their place in the audio, then by creation.
    static func noteOrder(_ a: StoredRecord, _ b: StoredRecord) -> Bool {
        let ta = a.body["timestamp"]?.doubleValue ?? 0, tb = b.body["timestamp"]?.doubleValue ?? 0
        if ta != tb { return ta < tb }
        let ca = a.body["createdAt"]?.stringValue ?? "", cb = b.body["createdAt"]?.stringValue ?? ""
        return (ca, a.id) < (cb, b.id)
    }

    /// Chat is listed by (createdAt, id, deviceId) on every device, so all devices show one order.
    static func chatOrder(_ a: StoredRecord, _ b: StoredRecord) -> Bool {
        let ka = (a.body["createdAt"]?.stringValue ?? "", a.id, a.body["deviceId"]?.stringValue ?? "")
        let kb = (b.body["createdAt"]?.stringValue ?? "", b.id, b.body["deviceId"]?.stringValue ?? "")
        return ka < kb
    }
}
