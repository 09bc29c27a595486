/// `note.add`.
public enum NoteAdd: SocketMethod {
    public static let name = "note.add"

    public struct Params: RecordShape {
        public var sermonId = ""
        public var text = ""
        /// Seconds into the audio; absent: the recording's clock, when this sermon is recording.
        public var timestamp: Double?
        /// A client-chosen id; absent: a new one.
        public var id: String?

        public init() {}

        public init(sermonId: String, text: String, timestamp: Double? = nil, id: String? = nil) {
            self.sermonId = sermonId
            self.text = text
            self.timestamp = timestamp
            self.id = id
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: Note.self, \.sermonId, \.sermonId),
            .same(as: Note.self, \.text, \.text),
            .same(as: Note.self, \.timestamp, optional: \.timestamp),
            .same(as: Note.self, \.id, optional: \.id),
        ]
    }
}

/// `note.update`: the note's new text, place, or both.
public enum NoteUpdate: SocketMethod {
    public static let name = "note.update"

    public struct Params: RecordShape {
        public var id = ""
        public var text: String?
        public var timestamp: Double?

        public init() {}

        public init(id: String, text: String? = nil, timestamp: Double? = nil) {
            self.id = id
            self.text = text
            self.timestamp = timestamp
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: Note.self, \.id, \.id),
            .same(as: Note.self, \.text, optional: \.text),
            .same(as: Note.self, \.timestamp, optional: \.timestamp),
        ]
    }
}

/// `note.get`.
public enum NoteGet: SocketMethod {
    public static let name = "note.get"
    public typealias Params = IdParams
}

/// `note.delete`: tombstones the note.
public enum NoteDelete: SocketMethod {
    public static let name = "note.delete"
    public typealias Params = IdParams
}
