import Logging
import TNotesCore
import TNotesStore

/// The server reset guard on the device's side (contract §6.3): every push answer and pull page carries the
/// server database's epoch.
extension SyncEngine {
    /// Compares the epoch a server answer carried with the one this device last synced with. A new epoch
    /// means the server's database was replaced: the device deletes nothing, queues every record it holds
    /// again and pulls from the start (the pull cursor is cleared), in one transaction; the queued records
    /// go out in this cycle's push or the next one (`wanted`). True when that happened.
    func noteServerEpoch(_ epoch: String?) async throws -> Bool {
        guard let epoch else { return false }
        // Known already: no transaction (this runs for every push answer and pull page).
        if knownEpoch == nil { knownEpoch = try await store.read { s in try s.serverEpoch() } }
        if knownEpoch == epoch { return false }
        let requeued = try await store.write { s -> Int? in
            guard let known = try s.serverEpoch() else {
                try s.setServerEpoch(epoch)
                return nil
            }
            guard known != epoch else { return nil }
            let n = try s.requeueAllRecords()
            try s.forgetAudioUploads()
            try s.clearPullCursor()
            try s.setServerEpoch(epoch)
            return n
        }
        knownEpoch = epoch  // only once the store has it (and the records are queued)
        guard let requeued else { return false }
        logger.warning("the server's database was replaced (new epoch): pushing every record again and pulling from the start",
                       metadata: ["records": "\(requeued)"])
        wanted = true
        return true
    }
}
