import TNotesCore
import TNotesStore

/// A sermon's words as the summariser and the assistant read them: transcript segments and the listener's notes.
enum SermonTextLoader {
    /// Read field by field (a stored record may hold anything a store ever accepted): a segment counts when
    /// its start is a number and its text a string (a missing end is its start), a note when its text is a
    /// string (a missing time is 0).
    static func load(sermonId: String, in s: StoreSession) throws -> SermonText {
        let sermon = LenientRecord<Sermon>(object: try s.liveRecord(.sermons, sermonId).body)
        let transcript = try s.newestChild(.transcripts, sermonId: sermonId).map { LenientRecord<Transcript>(object: $0.body) }
        let segments = (transcript?.list(\.segments) ?? []).compactMap { g -> TimedSegment? in
            guard let start = g.start, let text = g.text else { return nil }
            return TimedSegment(start: start, end: g.end ?? start, text: text)
        }
        let notes = try s.children(.notes, sermonId: sermonId).compactMap { record -> TimedNote? in
            let n = LenientRecord<Note>(object: record.body)
            guard let text = n.text else { return nil }
            return TimedNote(timestamp: n.timestamp ?? 0, text: text)
        }.sorted { ($0.timestamp, $0.text) < ($1.timestamp, $1.text) }
        return SermonText(title: sermon.title ?? "", speaker: sermon.speaker, transcriptText: transcript?.text ?? "",
                          segments: segments, notes: notes)
    }

    /// The sermon as JSON, the input file of a command engine for summaries and questions.
    static func json(_ t: SermonText, extra: JSONObject = [:]) -> JSON {
        var o: JSONObject = [
            "title": .string(t.title), "speaker": JSON(t.speaker), "transcript": .string(t.transcriptText),
            "segments": .array(t.segments.map { ["start": .double($0.start), "end": .double($0.end), "text": .string($0.text)] }),
            "notes": .array(t.notes.map { [Note.name(\.timestamp): .double($0.timestamp), Note.name(\.text): .string($0.text)] }),
        ]
        for (k, v) in extra { o[k] = v }
        return .object(o)
    }
}
