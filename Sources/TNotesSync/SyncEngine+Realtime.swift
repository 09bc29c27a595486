import Logging
import TNotesCore
import TNotesStore

/// Realtime (contract §6.4): the long poll that starts a sync when another device's change commits.
extension SyncEngine {
    /// Keeps one long-poll pull open after the device's cursor. When the server answers with changes, a
    /// sync runs (the normal pull applies them and announces them to `events.subscribe`). Errors back off
    /// like a sync does, and a network change retries at once. A server that ignores `wait` answers an
    /// empty page at once: that is backed off the same way (up to `interval`), so it never busy-loops and
    /// the periodic sync still delivers.
    func realtimeLoop() async {
        var failures = 0
        let waitSeconds = settings.realtimeWaitSeconds
        while !Task.isCancelled {
            // Held (a pull awaits sync.confirm): asking the server again would only find the same deletions.
            // Revoked: the token will not work again until the device is paired again.
            if state == .held || state == .revoked {
                if !(await realtimeKick.wait(seconds: Self.timerSeconds(settings.interval))) { return }
                continue
            }
            // A device that has never pulled has no cursor yet: its first sync sets one.
            guard networkUp, let cursor = try? await store.read({ s in try s.pullCursor() }) else {
                if !(await realtimeKick.wait(seconds: Self.timerSeconds(settings.interval))) { return }
                continue
            }
            let started = ContinuousClock.now
            do {
                realtimeConnected = true
                let page = try await waitForChange(after: cursor, waitSeconds: waitSeconds)
                realtimeConnected = false
                if !page.changes.isEmpty || page.cursor != cursor {
                    failures = 0
                    // Our own sync may have moved past these already (its push moves the cursor): ask again.
                    if (try? await store.read({ s in try s.pullCursor() })) != cursor { continue }
                    _ = try? await syncAndWait(timeout: 30, trigger: .realtime)
                } else if ContinuousClock.now - started < .seconds(Double(waitSeconds) / 2) {
                    // Empty, and early: an older server that ignores `wait`, or one that is stopping.
                    failures += 1
                    let delay = Self.timerSeconds(min(settings.interval, settings.backoff.delay(attempt: failures, retryAfter: nil)))
                    if !(await realtimeKick.wait(seconds: delay)) { return }
                } else {
                    failures = 0
                }
            } catch {
                realtimeConnected = false
                if Task.isCancelled { return }
                failures += 1
                let delay = Self.timerSeconds(settings.backoff.delay(attempt: failures, retryAfter: (error as? SyncFailure)?.retryAfter))
                logger.debug("realtime pull failed; will retry", metadata: ["in": "\(Self.milliseconds(delay)) ms", "error": "\(error)"])
                if !(await realtimeKick.wait(seconds: delay)) { return }
            }
        }
    }

    /// The long poll, as a task of its own (the HTTP wait must not hold this actor).
    private nonisolated func waitForChange(after cursor: String, waitSeconds: Int) async throws -> SyncClient.PullPage {
        let client = self.client
        return try await client.pull(cursor: cursor, limit: 1, waitSeconds: waitSeconds)
    }
}
