/// Users, their devices, pairing codes and quotas (contract §8.6): what the storage keeps of who may sync.

public struct UserInfo: Sendable, Equatable {
    public let id: Int64
    public let name: String
    public let createdAt: String
    public let revokedAt: String?
}

/// One device of a user: a token of its own, named by the device when it paired.
public struct DeviceInfo: Sendable, Equatable {
    public let id: String
    public let name: String
    public let createdAt: String
    public let lastSeenAt: String?
}

/// What a presented token's hash leads to: its device and user, and whether it was revoked (kept apart
/// from an unknown token, so that a revoked device is told so).
public struct DeviceCredential: Sendable, Equatable {
    public let user: Int64
    public let device: String
    public let revoked: Bool
    public let lastSeenAt: String?
}

/// What redeeming a pairing code did.
public enum PairingOutcome: Sendable, Equatable {
    case paired(user: Int64, device: String)
    case unknown
    case used
    case expired
}

/// A user's limits; nil is no limit.
public struct Quota: Sendable, Equatable {
    public var records: Int64?
    public var audioBytes: Int64?
    public init(records: Int64? = nil, audioBytes: Int64? = nil) {
        self.records = records
        self.audioBytes = audioBytes
    }
    public var isLimited: Bool { records != nil || audioBytes != nil }
}

/// What a user holds: live records (tombstones do not count), and the audio of every sermon but the deleted
/// ones (a deleted sermon's audio frees its bytes at once; audio of a sermon not pushed yet counts).
public struct Usage: Sendable, Equatable {
    public let records: Int64
    public let audioBytes: Int64
}

/// The storage's part for users and devices, in one protocol both backends implement.
public protocol UserDirectory: Sendable {
    /// Creates a user with no device yet; `ServerError.conflict` when the name is taken. Returns its id.
    func createUser(name: String, at: String) async throws -> Int64
    func users() async throws -> [UserInfo]
    /// The live user with this name.
    func userId(name: String) async throws -> Int64?
    /// Revokes a user and every device of theirs; false when there is no such live user.
    func revokeUser(name: String, at: String) async throws -> Bool
    /// The user's public handle (contract §8.5), nil until chosen.
    func handle(user: Int64) async throws -> String?
    /// Sets the user's handle; `ServerError.conflict` when another user has it.
    func setHandle(user: Int64, _ handle: String) async throws
    /// The live user with this handle.
    func user(handle: String) async throws -> Int64?

    /// A new device with this token hash; its id.
    func addDevice(user: Int64, name: String, tokenHash: String, at: String) async throws -> String
    /// The device a token hash belongs to, revoked or not (nil: no such token).
    func device(tokenHash: String) async throws -> DeviceCredential?
    /// Records that the device was seen (throttled by the caller: `DeviceSeen`).
    func touchDevice(_ id: String, at: String) async throws
    /// The user's live devices, oldest first.
    func devices(user: Int64) async throws -> [DeviceInfo]
    /// Revokes one of the user's live devices; false when the user has no such live device.
    func revokeDevice(user: Int64, id: String, at: String) async throws -> Bool

    /// Keeps a pairing code's hash for the user until `expiresAt`.
    func addPairingCode(user: Int64, codeHash: String, at: String, expiresAt: String) async throws
    /// Trades a code for a new device, in one transaction: the code is used at most once.
    func redeemPairingCode(codeHash: String, now: String, deviceName: String, tokenHash: String) async throws -> PairingOutcome

    func quota(user: Int64) async throws -> Quota
    func setQuota(user: Int64, _ quota: Quota) async throws
    func usage(user: Int64) async throws -> Usage
    /// The audio bytes `Usage` counts, leaving out one sermon's (the one an upload replaces).
    func audioBytes(user: Int64, excluding sermonId: String) async throws -> Int64
}
