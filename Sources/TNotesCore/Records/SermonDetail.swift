/// A sermon as `sermon.get` returns it (contract §2 "Records as returned"): the sermon's record, with this
/// device's sync state, its audio's state here, its live notes (by time), its transcript and summary (or
/// null), the scripture it cites and its publication. Read leniently and totally (contract §8.1): the
/// daemon returns what its store holds, which may be anything stored before the bounds, or written to the
/// file by something else. Renderers read it through this type.
public struct SermonDetail: RecordShape {
    /// The sermon's own fields, each nil when missing or of the wrong type.
    public var sermon = LenientRecord<Sermon>(nil)
    /// `pending`, `synced` or `error`.
    public var syncState: String?
    /// The notes, each read field by field (`.value`: with a field missing or of the wrong type at its
    /// default, empty text or time 0). Every element is kept, so that a renderer shows as many notes as
    /// were returned.
    public var notes: [LenientRecord<Note>] = []
    public var transcript: LenientRecord<Transcript>?
    public var summary: LenientRecord<Summary>?
    /// Scripture references: `{book, chapter, verseStart?, verseEnd?, …}` (not typed yet).
    public var scriptureRefs: [JSON] = []
    public var publication: JSON?

    public init() {}

    public init(lenient json: JSON) {
        self.init()
        let object = json.objectValue ?? JSONObject()
        readLeniently(object)
        sermon = LenientRecord(object: object)
    }

    /// The members `sermon.get` adds to the sermon's record.
    public static let fields: [RecordField<SermonDetail>] = [
        .nullable("syncState", .enumeration(["pending", "synced", "error"]), \.syncState),
        .defaulted("notes", .arrayOf(.object), \.notes),
        .nullable("transcript", .object, \.transcript),
        .nullable("summary", .object, \.summary),
        .defaulted("scriptureRefs", .arrayOf(.object), \.scriptureRefs),
        .nullable("publication", .object, \.publication),
    ]

    /// What `sermon.get` adds to the sermon's `audio`: whether this device holds the file, and whether the
    /// server does (both false when the file here is not the one the record names).
    public struct AudioState: RecordShape {
        public var localAvailable = false
        public var uploaded = false

        public init() {}

        public static let fields: [RecordField<AudioState>] = [
            .defaulted("localAvailable", .bool, \.localAvailable),
            .defaulted("uploaded", .bool, \.uploaded),
        ]
    }
}
