/// A processing job as `jobs.list`, `jobs.get` and the `job.*` events give it.
public struct Job: RecordShape {
    public var id = ""
    /// `transcribe`, `summarize` or `chat`.
    public var kind = ""
    public var sermonId = ""
    /// `queued`, `running`, `done` or `failed`.
    public var state = ""
    /// 0…1 while running.
    public var progress: Double?
    public var attempts: Int64 = 0
    public var lastError: String?
    public var params = JSONObject()
    public var createdAt = ""
    public var updatedAt = ""
    public var nextAttemptAt: String?
    /// The engine of the last attempt: "sherpa-onnx", "pocketsphinx" or "command" for a transcription,
    /// "builtin" or "command" for a summary or an answer; null before the first attempt.
    public var engine: String?
    /// The engine's model: "moonshine-base-en", PocketSphinx's model directory, or the command's program.
    public var model: String?

    public init() {}

    public static let fields: [RecordField<Job>] = [
        .required("id", .uuid, \.id),
        .required("kind", .string, \.kind),
        .required("sermonId", .uuid, \.sermonId),
        .required("state", .string, \.state),
        .optional("progress", .number(min: 0), \.progress),
        .defaulted("attempts", .integer(min: 0, max: Int64.max), \.attempts),
        .nullable("lastError", .string, \.lastError),
        .defaulted("params", .object, \.params),
        .required("createdAt", .time, \.createdAt),
        .required("updatedAt", .time, \.updatedAt),
        .nullable("nextAttemptAt", .time, \.nextAttemptAt),
        .nullable("engine", .string, \.engine),
        .nullable("model", .string, \.model),
    ]
}
