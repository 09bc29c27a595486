import CSQLite

/// When a writing connection checkpoints its WAL, decided after each commit by the WAL's length and by how
/// much that commit added. It replaces `PRAGMA wal_autocheckpoint` (one length for every kind of write).
///
/// Why two lengths:
/// - **Small commits** (a `note.add` adds five frames) checkpoint at `smallCommitsAt` frames, so the WAL
///   wraps inside the space reserved for it at open and its commits overwrite written blocks (see the store's
///   `WALReserve`; growing the file made each commit's `fdatasync` ~50 % dearer).
/// - **Large commits** (a pulled page adds hundreds) checkpoint only at `anyCommitsAt`. A checkpoint writes
///   every page the WAL holds back into the database and syncs it; hot index pages, rewritten by every page
///   of a pull, are then written once per checkpoint instead of once per page. With 1000 frames for every
///   commit, the 16× bench pull fell from 46-47 k to 38 k changes/s.
public struct CheckpointPolicy: Sendable {
    public var smallCommitsAt: Int32
    public var anyCommitsAt: Int32
    /// A commit that added fewer frames than this is small.
    public var smallCommit: Int32

    public init(smallCommitsAt: Int32, anyCommitsAt: Int32, smallCommit: Int32) {
        self.smallCommitsAt = smallCommitsAt
        self.anyCommitsAt = anyCommitsAt
        self.smallCommit = smallCommit
    }

    /// Whether a WAL of `frames` frames, of which the last commit added `added`, is checkpointed now.
    public func checkpoints(frames: Int32, added: Int32) -> Bool {
        frames >= anyCommitsAt || (frames >= smallCommitsAt && added < smallCommit)
    }
}

/// The WAL's length after the previous commit; touched only by the connection's own commits.
final class WALHookState {
    let policy: CheckpointPolicy
    var frames: Int32 = 0
    /// Frames the last commit added.
    var added: Int32 = 0

    init(policy: CheckpointPolicy) { self.policy = policy }
}

extension SQLiteConnection {
    /// Checkpoints this connection's WAL as `policy` says, after each of its commits (passive: it never waits
    /// for readers, and a checkpoint they hold back is tried again at the next commit).
    public func setCheckpointPolicy(_ policy: CheckpointPolicy) {
        let state = WALHookState(policy: policy)
        walHookState = state
        sqlite3_wal_hook(handle, { context, db, name, frames in
            guard let context else { return SQLITE_OK }
            let state = Unmanaged<WALHookState>.fromOpaque(context).takeUnretainedValue()
            // A WAL shorter than after the last commit has been restarted (by a checkpoint) since.
            let added = frames >= state.frames ? frames - state.frames : frames
            state.frames = frames
            state.added = added
            if state.policy.checkpoints(frames: frames, added: added) {
                // As SQLite's own auto-checkpoint: its result is not the commit's (the commit stands).
                _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(state).toOpaque())
    }

    /// Checkpoints now (passive, as the hook's) if the WAL is past the small commits' length and, with
    /// `afterLargeCommit`, its last commit was large:
    /// - `afterLargeCommit: true`, after a background job's large commit (a search index chunk), which would
    ///   otherwise leave the WAL to grow to `anyCommitsAt` and the whole checkpoint to the next small commit,
    ///   a person's `note.add` (377 ms at 1×);
    /// - `false`, at the end of a run of large commits (a pull's pages), whose checkpoint was left for later,
    ///   whatever its last commit.
    public func checkpointIfPastSmallCommits(afterLargeCommit: Bool) {
        guard let state = walHookState, state.frames >= state.policy.smallCommitsAt,
              !afterLargeCommit || state.added >= state.policy.smallCommit else { return }
        _ = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}
