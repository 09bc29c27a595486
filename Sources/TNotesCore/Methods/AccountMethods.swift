/// A user's account on the sync server (contract §8.5).
public enum Account {
    /// A handle as `/u/{handle}` shows it: 2 to 40 of a-z, 0-9, `-` and `_`, starting with a letter or a digit
    /// (lowercase: the server lowercases what it is given, so handles differ by more than case).
    public static func isHandle(_ s: String) -> Bool {
        guard (2...40).contains(s.utf8.count), let first = s.utf8.first, isLetterOrDigit(first) else { return false }
        return s.utf8.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    private static func isLetterOrDigit(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
    }
}

/// `account.update {handle}`: sets this user's public handle on the sync server (`PATCH /v1/account`), which
/// makes `/u/{handle}` and its feed list the published sermons. A handle another user has is -32002.
public enum AccountUpdate: SocketMethod {
    public static let name = "account.update"

    public struct Params: RecordShape {
        public var handle = ""

        public init() {}
        public init(handle: String) { self.handle = handle }

        public static let fields: [RecordField<Params>] = [
            .required("handle", .text, \.handle),
        ]
    }

    /// `{handle, url}`: the handle as the server keeps it (lowercase) and the index's address.
    public struct Result: RecordShape {
        public var handle = ""
        public var url = ""

        public init() {}

        public static let fields: [RecordField<Result>] = [
            .required("handle", .string, \.handle),
            .required("url", .string, \.url),
        ]
    }
}

/// `sermon.fork {url}`: copies a published sermon whose publication allows it (`canFork`) into this library as a
/// new sermon, with its published notes, summary and transcript and `forkedFrom`; -32004 when forking is not
/// allowed. Answers the new sermon.
public enum SermonFork: SocketMethod {
    public static let name = "sermon.fork"

    public struct Params: RecordShape {
        public var url = ""

        public init() {}
        public init(url: String) { self.url = url }

        public static let fields: [RecordField<Params>] = [
            .required("url", .text, \.url),
        ]
    }
}
