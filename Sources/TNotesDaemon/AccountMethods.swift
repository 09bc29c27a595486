import TNotesCore
import TNotesRPC
import TNotesSync

/// The sync account, kept by the server: `account.update` (contract §8.5, the public handle), `account.get`
/// (use and limits), `devices.list` and `devices.revoke` (contract §8.6).
struct AccountMethods {
    let sync: SyncSlot

    func register(into table: inout MethodTable) {
        let slot = self.sync
        table.add(MethodSpec(AccountUpdate.self, summary: """
            Choose this user's public handle on the sync server: /u/{handle} and its podcast feed then list the \
            published sermons. A handle another user has is -32002.
            """, notes: [\.handle: "2 to 40 of a-z, 0-9, '-' and '_' (kept lowercase)"],
                             result: ["type": "object", "properties": ["handle": ["type": "string"], "url": ["type": "string"]]]) { p, _ in
            guard let sync = slot.engine else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
            let base = sync.settings.serverURL
            let handle = p.handle.lowercased()
            guard Account.isHandle(handle) else {
                throw RPCError.invalidParams(field: AccountUpdate.Params.name(\.handle),
                                             reason: "must be 2 to 40 letters, digits, '-' or '_', starting with a letter or digit")
            }
            let kept: String
            do {
                kept = try await sync.updateAccount(handle: handle)
            } catch SyncFailure.client(status: 409, _) {
                throw RPCError.conflict("the handle \(handle) is taken")
            } catch SyncFailure.client(status: 400, let detail) {
                throw RPCError.invalidParams(field: AccountUpdate.Params.name(\.handle), reason: detail)
            } catch {
                throw RPCError.unavailable("the server did not take the handle: \(error)")
            }
            var result = AccountUpdate.Result()
            result.handle = kept
            result.url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/u/" + kept
            return result.fieldJSON
        })

        table.add(MethodSpec(AccountGet.self, summary: """
            This account's handle, use (live records, audio bytes of live sermons) and limits on the sync server \
            (a null limit is none).
            """) { _, _ in
            guard let sync = slot.engine else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
            do { return try await sync.account() } catch { throw Self.unavailable(error) }
        })
        table.add(MethodSpec(DevicesList.self, summary: """
            The devices of this sync account: id, name, createdAt, lastSeenAt, and current (this device).
            """) { _, _ in
            guard let sync = slot.engine else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
            do { return try await sync.devices() } catch { throw Self.unavailable(error) }
        })
        table.add(MethodSpec(DevicesRevoke.self, summary: """
            Revoke one of this account's devices: its token answers 401 from now on, and it stops syncing (its data \
            stays on it). -32001 when the account has no such device. Revoking this device signs it out.
            """) { p, _ in
            guard let sync = slot.engine else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
            do {
                try await sync.revokeDevice(id: p.id)
            } catch SyncFailure.client(status: 404, _) {
                throw RPCError.notFound("device", id: p.id)
            } catch {
                throw Self.unavailable(error)
            }
            return ["id": .string(p.id), "revoked": .bool(true)]
        })
    }

    static func unavailable(_ error: any Error) -> RPCError {
        if case SyncFailure.revoked = error { return RPCError.unavailable("this device was revoked on the server; pair it again with tnotes sync login URL CODE") }
        return RPCError.unavailable("the sync server did not answer: \(error)")
    }
}
