import TNotesCore
import TNotesStore

/// A sermon's words as the summariser and the assistant read them: transcript segments and the listener's notes.
enum SermonTextLoader {
    static func load(sermonId: String, in s: StoreSession) throws -> SermonText {
        let sermon = try s.liveRecord(.sermons, sermonId)
        let transcript = try s.newestChild(.transcripts, sermonId: sermonId)
        var segments: [TimedSegment] = []
        if case .array(let items)? = transcript?.body["segments"] {
            for item in items {
                guard let start = item["start"]?.doubleValue, let text = item["text"]?.stringValue else { continue }
                segments.append(TimedSegment(start: start, end: item["end"]?.doubleValue ?? start, text: text))
            }
        }
        let notes = try s.children(.notes, sermonId: sermonId).compactMap { n -> TimedNote? in
            guard let text = n.body["text"]?.stringValue else { return nil }
            return TimedNote(timestamp: n.body["timestamp"]?.doubleValue ?? 0, text: text)
        }.sorted { ($0.timestamp, $0.text) < ($1.timestamp, $1.text) }
        return SermonText(title: sermon.body["title"]?.stringValue ?? "", speaker: sermon.body["speaker"]?.stringValue,
                          transcriptText: transcript?.body["text"]?.stringValue ?? "", segments: segments, notes: notes)
    }

    /// The sermon as JSON, the input file of a command engine for summaries and questions.
    static func json(_ t: SermonText, extra: JSONObject = [:]) -> JSON {
        var o: JSONObject = [
            "title": .string(t.title), "speaker": JSON(t.speaker), "transcript": .string(t.transcriptText),
            "segments": .array(t.segments.map { ["start": .double($0.start), "end": .double($0.end), "text": .string($0.text)] }),
            "notes": .array(t.notes.map { ["timestamp": .double($0.timestamp), "text": .string($0.text)] }),
        ]
        for (k, v) in extra { o[k] = v }
        return .object(o)
    }
}
