import TNotesCore
import TNotesStore

/// How stored records look to socket clients (contract §2 "Records as returned").
enum RecordViews {
    /// A sermon: its body, its sync state and this device's audio state; with children for `sermon.get`.
    static func sermon(_ record: StoredRecord, in session: StoreSession, withChildren: Bool, publicBase: String? = nil) throws -> JSON {
        var o = record.body
        o[Key.syncState] = .string(record.syncState.rawValue)
        if case .object(var audio)? = o[Key.audio] {
            let file = try session.audioFile(sermonId: record.id)
            let matches = file?.sha256 == audio[Key.sha256]?.stringValue
            audio[Key.localAvailable] = .bool(matches && (file?.localAvailable ?? false))
            audio[Key.uploaded] = .bool(matches && (file?.uploaded ?? false))
            o[Key.audio] = .object(audio)
        }
        if withChildren {
            // The children go out exactly as stored (canonical text), without a parse and a re-encode.
            o[Key.notes] = .array(try session.childTexts(.notes, sermonId: record.id).map { .raw($0) })
            o[Key.transcript] = try session.childTexts(.transcripts, sermonId: record.id).first.map { .raw($0) } ?? .null
            o[Key.summary] = try session.childTexts(.summaries, sermonId: record.id).first.map { .raw($0) } ?? .null
            // Every passage the sermon cites, in its title, notes, transcript and summary (contract §6.2).
            o[Key.scriptureRefs] = .array(try session.scriptureReferences(sermonId: record.id).map(\.json))
            // Its public page, if it was ever published (contract §6.5).
            let publication = try session.record(.publications, id: Identifier.derived(from: record.id, kind: "publication"))
            o[Key.publication] = publication.map { PublishMethods.view($0, base: publicBase) } ?? .null
        }
        return .object(o)
    }

    /// Notes by their place in the audio, then by creation.
    static func noteOrder(_ a: StoredRecord, _ b: StoredRecord) -> Bool {
        let ta = a.body[Key.timestamp]?.doubleValue ?? 0, tb = b.body[Key.timestamp]?.doubleValue ?? 0
        if ta != tb { return ta < tb }
        let ca = a.body[Key.createdAt]?.stringValue ?? "", cb = b.body[Key.createdAt]?.stringValue ?? ""
        return (ca, a.id) < (cb, b.id)
    }

    /// Chat is listed by (createdAt, id, deviceId) on every device, so all devices show one order.
    static func chatOrder(_ a: StoredRecord, _ b: StoredRecord) -> Bool {
        let ka = (a.body[Key.createdAt]?.stringValue ?? "", a.id, a.body[Key.deviceId]?.stringValue ?? "")
        let kb = (b.body[Key.createdAt]?.stringValue ?? "", b.id, b.body[Key.deviceId]?.stringValue ?? "")
        return ka < kb
    }
}

/// The members the views read and add, by their fields' descriptors: looked up once (a sermon's notes are
/// sorted by them).
private enum Key {
    static let syncState = SermonDetail.name(\.syncState)
    static let notes = SermonDetail.name(\.notes)
    static let transcript = SermonDetail.name(\.transcript)
    static let summary = SermonDetail.name(\.summary)
    static let scriptureRefs = SermonDetail.name(\.scriptureRefs)
    static let publication = SermonDetail.name(\.publication)
    static let audio = Sermon.name(\.audio)
    static let sha256 = Sermon.Audio.name(\.sha256)
    static let localAvailable = SermonDetail.AudioState.name(\.localAvailable)
    static let uploaded = SermonDetail.AudioState.name(\.uploaded)
    static let timestamp = Note.name(\.timestamp)
    static let createdAt = RecordHead.name(\.createdAt)
    static let deviceId = RecordHead.name(\.deviceId)
}
