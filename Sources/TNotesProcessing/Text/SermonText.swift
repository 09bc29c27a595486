/// The text the summariser and the assistant work from: plain values, so the processing code has no
/// dependency on the store or on how a sermon was recorded.

/// One transcript segment as speech-to-text returns it: seconds into the audio and the words heard. A segment
/// may hold several sentences, part of one, or (often) unpunctuated speech.
public struct TimedSegment: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// A note the listener typed while listening, stamped with the playback position at the time.
public struct TimedNote: Sendable, Equatable {
    public var timestamp: Double
    public var text: String

    public init(timestamp: Double, text: String) {
        self.timestamp = timestamp
        self.text = text
    }
}

/// A sermon's text. When `segments` is empty (or holds only blank text) `transcriptText` is read as an untimed
/// transcript: its sentences have no times, so nothing derived from it is shown with a timestamp.
public struct SermonText: Sendable {
    public var title: String
    public var speaker: String?
    public var transcriptText: String
    public var segments: [TimedSegment]
    public var notes: [TimedNote]

    public init(title: String, speaker: String? = nil, transcriptText: String = "", segments: [TimedSegment] = [],
                notes: [TimedNote] = []) {
        self.title = title
        self.speaker = speaker
        self.transcriptText = transcriptText
        self.segments = segments
        self.notes = notes
    }
}
