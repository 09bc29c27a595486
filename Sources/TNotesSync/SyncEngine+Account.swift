import TNotesCore

/// The sync account's calls that are not syncing (contract §8.5, §8.6): made at once, outside the sync loop.
extension SyncEngine {
    /// Sets this user's public handle on the server (`account.update`, contract §8.5).
    public nonisolated func updateAccount(handle: String) async throws -> String {
        try await client.updateAccount(handle: handle)
    }

    /// The account's use and limits (`GET /v1/account`, contract §8.6).
    public nonisolated func account() async throws -> JSON { try await client.account() }
    /// The account's devices (`GET /v1/devices`).
    public nonisolated func devices() async throws -> JSON { try await client.devices() }
    /// Revokes one of the account's devices (`DELETE /v1/devices/{id}`).
    public nonisolated func revokeDevice(id: String) async throws { try await client.revokeDevice(id: id) }
}
