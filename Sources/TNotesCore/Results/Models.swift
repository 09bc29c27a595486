/// `models.list`'s result: the speech-to-text engines this daemon can use, and the one a transcription would
/// use now (contract §8.3, issue #52).
public struct ModelsStatus: RecordShape {
    /// `[processing] transcriber`: `auto`, `sherpa-onnx`, `pocketsphinx` or `command`.
    public var transcriber = ""
    /// Where `tnotes models install` puts the recognizer for this daemon (`[processing] model_dir`, else
    /// `<data_dir>/models`).
    public var directory = ""
    /// The engine and model a transcription would use now.
    public var engine = ""
    public var model = ""
    /// Why `auto` is not using sherpa-onnx (it is not installed), or null.
    public var fallbackReason: String?
    public var engines: [EngineStatus] = []

    public init() {}

    public static let fields: [RecordField<ModelsStatus>] = [
        .required("transcriber", .string, \.transcriber),
        .required("directory", .string, \.directory),
        .required("engine", .string, \.engine),
        .required("model", .string, \.model),
        .nullable("fallbackReason", .string, \.fallbackReason),
        .defaulted("engines", .arrayOf(.object), \.engines),
    ]
}

/// One engine in `models.list`.
public struct EngineStatus: RecordShape {
    public var engine = ""
    public var model = ""
    public var installed = false
    /// Where its files are (or would be).
    public var location = ""

    public init() {}
    public init(engine: String, model: String, installed: Bool, location: String) {
        self.engine = engine
        self.model = model
        self.installed = installed
        self.location = location
    }

    public static let fields: [RecordField<EngineStatus>] = [
        .required("engine", .string, \.engine),
        .required("model", .string, \.model),
        .required("installed", .bool, \.installed),
        .required("location", .string, \.location),
    ]
}
