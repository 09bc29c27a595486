/// Devices of a sync account (contract §8.6): each device has a token of its own.
public enum Devices {
    /// A device's name as it is kept: one line, trimmed, control characters dropped, at most 64 characters.
    public static func name(_ raw: String) -> String {
        let kept = raw.unicodeScalars.filter { !($0.properties.generalCategory == .control || $0.properties.generalCategory == .format) }
        var text = String(String.UnicodeScalarView(kept)).trimmingSpaces
        if text.count > 64 { text = String(text.prefix(64)).trimmingSpaces }
        return text
    }
}

/// `devices.list`: the sync account's devices, as the server lists them (`GET /v1/devices`):
/// `{items: [{id, name, createdAt, lastSeenAt, current}]}`.
public enum DevicesList: SocketMethod {
    public static let name = "devices.list"
    public typealias Params = NoParams
}

/// `devices.revoke {id}`: revokes one of the account's devices on the server (`DELETE /v1/devices/{id}`); its
/// token stops working at once. -32001 when the account has no such device. Answers `{id, revoked: true}`.
public enum DevicesRevoke: SocketMethod {
    public static let name = "devices.revoke"
    public typealias Params = IdParams
}

/// `account.get`: the sync account's handle, use and limits (`GET /v1/account`):
/// `{handle, usage: {records, audioBytes}, quota: {records, audioBytes}}`.
public enum AccountGet: SocketMethod {
    public static let name = "account.get"
    public typealias Params = NoParams
}

/// `sync.login {url, code, name?}`: trades a pairing code (`tnotes-server user add` / `user pair`) for this
/// device's token (`POST /v1/devices/pair`), writes it to `sync.token_file` (mode 0600), writes the server's
/// URL and the token file into the config when they are missing, and starts syncing. A code that is used,
/// expired or unknown is -32602 naming `code`; a config that names another server is -32602 naming `url`.
public enum SyncLogin: SocketMethod {
    public static let name = "sync.login"

    public struct Params: RecordShape {
        public var url = ""
        public var code = ""
        public var name: String?

        public init() {}
        public init(url: String, code: String, name: String? = nil) {
            self.url = url
            self.code = code
            self.name = name
        }

        public static let fields: [RecordField<Params>] = [
            .required("url", .text, \.url),
            .required("code", .text, \.code),
            .optional("name", .text, \.name),
        ]
    }

    /// What the login did: the new device's id and name, where the token and the config are.
    public struct Result: RecordShape {
        public var deviceId = ""
        public var name = ""
        public var serverUrl = ""
        public var tokenFile = ""
        public var configFile = ""
        /// The config gained `server_url` / `token_file` (false: it had them).
        public var configWritten = false
        /// Set when `TNOTES_TOKEN` is in the daemon's environment: it is used instead of the token file.
        public var warning: String?

        public init() {}

        public static let fields: [RecordField<Result>] = [
            .required("deviceId", .string, \.deviceId),
            .required("name", .string, \.name),
            .required("serverUrl", .string, \.serverUrl),
            .required("tokenFile", .string, \.tokenFile),
            .required("configFile", .string, \.configFile),
            .required("configWritten", .bool, \.configWritten),
            .optional("warning", .string, \.warning),
        ]
    }
}
