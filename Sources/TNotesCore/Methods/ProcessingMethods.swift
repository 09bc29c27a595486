/// `{sermonId}`: the params of the methods that act on one sermon as a whole.
public struct SermonIdParams: RecordShape {
    public var sermonId = ""

    public init() {}
    public init(sermonId: String) { self.sermonId = sermonId }

    public static let fields: [RecordField<SermonIdParams>] = [.same(as: Note.self, \.sermonId, \.sermonId)]
}

/// `transcript.generate`: queues a transcription job (`QueuedJob`).
public enum TranscriptGenerate: SocketMethod {
    public static let name = "transcript.generate"
    public typealias Params = SermonIdParams
}

/// `summary.generate`: queues a summary job (`QueuedJob`).
public enum SummaryGenerate: SocketMethod {
    public static let name = "summary.generate"

    public struct Params: RecordShape {
        public var sermonId = ""
        public var type = Summary.Kind.bullet

        public init() {}
        public init(sermonId: String, type: Summary.Kind) {
            self.sermonId = sermonId
            self.type = type
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: Summary.self, \.sermonId, \.sermonId),
            .same(as: Summary.self, \.type, \.type),
        ]
    }
}

/// `chat.ask`: queues the assistant's answer (`QueuedJob`).
public enum ChatAsk: SocketMethod {
    public static let name = "chat.ask"

    public struct Params: RecordShape {
        public var sermonId = ""
        public var question = ""

        public init() {}
        public init(sermonId: String, question: String) {
            self.sermonId = sermonId
            self.question = question
        }

        public static let fields: [RecordField<Params>] = [
            .same(as: ChatMessage.self, \.sermonId, \.sermonId),
            .required("question", .text, \.question),
        ]
    }
}

/// `chat.list`: a sermon's chat, oldest first (`[ChatMessage]`).
public enum ChatList: SocketMethod {
    public static let name = "chat.list"
    public typealias Params = SermonIdParams
}

/// `jobs.get`: one job (`Job`).
public enum JobsGet: SocketMethod {
    public static let name = "jobs.get"
    public typealias Params = IdParams
}

/// `jobs.retry`: queues a failed job again (`Job`).
public enum JobsRetry: SocketMethod {
    public static let name = "jobs.retry"
    public typealias Params = IdParams
}

/// `events.subscribe`: event notifications on this connection.
public enum EventsSubscribe: SocketMethod {
    public static let name = "events.subscribe"

    public struct Params: RecordShape {
        /// Absent: every topic.
        public var topics: [EventTopic]?

        public init() {}
        public init(topics: [EventTopic]?) { self.topics = topics }

        public static let fields: [RecordField<Params>] = [
            .optional("topics", .arrayOf(EventTopic.fieldType), \.topics),
        ]
    }
}

/// `chat.append`: appends a message to a sermon's chat (the `ChatMessage`).
public enum ChatAppend: SocketMethod {
    public static let name = "chat.append"

    public struct Params: RecordShape {
        public var sermonId = ""
        public var role = ChatMessage.Role.user
        public var content = ""
        /// A client-chosen id; absent: a new one.
        public var id: String?

        public init() {}

        public static let fields: [RecordField<Params>] = [
            .same(as: ChatMessage.self, \.sermonId, \.sermonId),
            .same(as: ChatMessage.self, \.role, \.role),
            .same(as: ChatMessage.self, \.content, \.content),
            .same(as: ChatMessage.self, \.id, optional: \.id),
        ]
    }
}

/// `models.list`: the speech-to-text engines and the one in use (`ModelsStatus`).
public enum ModelsList: SocketMethod {
    public static let name = "models.list"
    public typealias Params = NoParams
}
