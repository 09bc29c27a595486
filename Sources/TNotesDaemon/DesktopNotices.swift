import ServiceLifecycle
import Synchronization
import TNotesCore
import TNotesDesktop
import TNotesStore

/// What the daemon tells the desktop (contract §8.4): a transcription or a summary finished or failed (with its
/// reason), a pull was held by the reset guard, a conflict opened. Each names its sermon by title. Fed by the
/// daemon's own events (the worker's `job.changed`, the sync engine's `sync.state`, the store's commits); the
/// bus drops them when notifications are off or there is no session bus.
///
/// A Service: the events arrive on threads that must not wait (the worker's, the store's commit observer), and
/// what they tell needs a read of the store (the sermon's title); they are queued in order and told by `run`,
/// one after another, in the order they happened.
final class DesktopNotices: Service, Sendable {
    private let bus: DesktopBus
    private let store: Store
    /// Conflicts already told of (a conflict changes again when it is resolved, or pulled again).
    private let toldConflicts = Mutex<Set<String>>([])

    /// What waits to be told: a finished or failed job, or conflicts that may have opened.
    private enum Pending: Sendable {
        case job(what: String, done: Bool, sermonId: String, error: String?)
        case conflicts([String])
    }
    private let queue: AsyncStream<Pending>.Continuation
    private let pending: AsyncStream<Pending>

    init(bus: DesktopBus, store: Store) {
        self.bus = bus
        self.store = store
        // Bounded: a burst of thousands of jobs or conflicts (a big pull) tells the newest, not a backlog.
        (pending, queue) = AsyncStream.makeStream(of: Pending.self, bufferingPolicy: .bufferingNewest(256))
    }

    func run() async throws {
        for await item in pending.cancelOnGracefulShutdown() {
            switch item {
            case .job(let what, let done, let sermonId, let error): await tellJob(what: what, done: done, sermonId: sermonId, error: error)
            case .conflicts(let ids): await tellConflicts(ids)
            }
        }
    }

    /// A `job.changed` event: a finished or failed transcription or summary (an answer of the assistant is seen
    /// in the chat itself).
    func jobChanged(_ fields: JSONObject) {
        let job = LenientRecord<Job>(object: fields)
        guard let state = job.state, state == "done" || state == "failed",
              let kind = job.kind, kind == "transcribe" || kind == "summarize", let sermonId = job.sermonId else { return }
        let what = kind == "transcribe" ? "Transcript" : "Summary"
        queue.yield(.job(what: what, done: state == "done", sermonId: sermonId, error: job.lastError ?? nil))
    }

    private func tellJob(what: String, done: Bool, sermonId: String, error: String?) async {
        let title = await self.title(sermonId)
        if done {
            bus.notify(DesktopNotification(summary: "\(what) ready", body: Self.escaped(title)))
        } else {
            let reason = error.map { Self.clipped($0, to: 300) } ?? "unknown error"
            bus.notify(DesktopNotification(summary: "\(what) failed", body: Self.escaped("\(title): \(reason)"), urgency: .critical))
        }
    }

    /// A `sync.state` event: the reset guard held a pull, or the server revoked this device (told once per change of state).
    func syncStateChanged(_ fields: JSONObject) {
        if fields["state"]?.stringValue == "revoked" {
            bus.notify(DesktopNotification(
                summary: "Sync stopped: this device was revoked",
                body: Self.escaped("Its notes stay here. To sync again, pair it with a new code: `tnotes sync login URL CODE`."),
                urgency: .critical))
            return
        }
        guard fields["state"]?.stringValue == "held" else { return }
        let deletes = fields["heldDeletes"]?.int64Value.map(String.init) ?? "many"
        bus.notify(DesktopNotification(
            summary: "Sync held",
            body: Self.escaped("A pull would delete \(deletes) of this device's records. If that is right, run `tnotes sync confirm`."),
            urgency: .critical))
    }

    /// Committed changes: a conflict that is open and not yet told of.
    func recordsChanged(_ changes: [RecordChange]) {
        let ids = changes.filter { $0.collection == .conflicts && $0.op != .delete }.map(\.id)
        guard !ids.isEmpty else { return }
        queue.yield(.conflicts(ids))
    }

    private func tellConflicts(_ ids: [String]) async {
        for id in ids {
            guard let record = try? await store.read({ s in try s.record(.conflicts, id: id) }), !record.isDeleted else { continue }
            let conflict = LenientRecord<Conflict>(object: record.body)
            guard conflict.state == .open, toldConflicts.withLock({ $0.insert(id).inserted }) else { continue }
            let title = await self.title(conflict.sermonId ?? "")
            let field = conflict.field ?? "text"
            bus.notify(DesktopNotification(
                summary: "Conflict opened",
                body: Self.escaped("\(title): the \(field) was changed on two devices; both versions are kept (tnotes conflicts)")))
        }
    }

    /// The sermon's title as a notification shows it: clipped, and "Untitled sermon" when it has none.
    private func title(_ sermonId: String) async -> String {
        let record = try? await store.read { s in try s.record(.sermons, id: sermonId) }
        let title = record.flatMap { LenientRecord<Sermon>(object: $0.body).title } ?? ""
        let trimmed = title.trimmingSpaces
        return trimmed.isEmpty ? "Untitled sermon" : "“\(Self.clipped(trimmed, to: 120))”"
    }

    /// At most `limit` characters, on one line.
    static func clipped(_ s: String, to limit: Int) -> String {
        let line = String(s.map { $0.isNewline ? " " : $0 })
        return line.count <= limit ? line : String(line.prefix(limit - 1)) + "…"
    }

    /// Notification bodies may be read as markup (the spec's `body-markup`): a title's `<`, `>` and `&` are text.
    static func escaped(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }
}
