import TNotesCore
import TNotesRPC
import TNotesSync

/// `account.update` (contract §8.5): this user's public handle, kept by the sync server.
struct AccountMethods {
    let sync: SyncEngine?
    /// The sync server's base URL, for the index's address.
    let serverURL: String?

    func register(into table: inout MethodTable) {
        let sync = self.sync, base = serverURL
        table.add(MethodSpec(AccountUpdate.self, summary: """
            Choose this user's public handle on the sync server: /u/{handle} and its podcast feed then list the \
            published sermons. A handle another user has is -32002.
            """, notes: [\.handle: "2 to 40 of a-z, 0-9, '-' and '_' (kept lowercase)"],
                             result: ["type": "object", "properties": ["handle": ["type": "string"], "url": ["type": "string"]]]) { p, _ in
            guard let sync, let base else { throw RPCError.unavailable("sync is disabled (no sync.server_url in the config)") }
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
    }
}
