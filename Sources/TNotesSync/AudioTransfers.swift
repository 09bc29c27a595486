import Crypto
import Logging
import Synchronization
import SystemPackage
import TNotesCore
import TNotesLifecycle
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// The audio transfer queue, apart from record sync so a large or failing transfer never holds back
/// notes. Uploads go once their sermon is on the server; downloads resume after an interruption (Range)
/// and are verified by sha256 before they are kept. Failures retry on their own backoff. While the connection
/// is metered (contract §8.4) the queue is held: a transfer under way is cancelled and nothing starts until the
/// hold is lifted.
public actor AudioTransfers {
    let store: Store
    let client: SyncClient
    let audioDirectory: String
    let backoff: BackoffPolicy
    let logger: Logger
    private var attempt = 0
    private let kicks: AsyncStream<Void>.Continuation
    private let kickStream: AsyncStream<Void>
    /// Held (metered), and the pass under way, which a hold cancels. Behind a lock, not the actor: the sync
    /// engine holds the queue while a pass is awaiting its transfer.
    private let gate = Mutex(Gate())

    struct Gate {
        var held = false
        var pass: Task<Void, any Error>?
    }

    /// Thrown by a pass that finds the queue held.
    struct Held: Error {}

    public init(store: Store, client: SyncClient, audioDirectory: String, backoff: BackoffPolicy, logger: Logger) {
        self.store = store
        self.client = client
        self.audioDirectory = audioDirectory
        self.backoff = backoff
        self.logger = logger
        (kickStream, kicks) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the queue to look for work; returns at once (callable from any thread).
    public nonisolated func kick() { kicks.yield() }

    /// Holds the queue (a metered connection) or lifts the hold; a transfer under way stops at once.
    public nonisolated func hold(metered held: Bool) {
        let (changed, pass) = gate.withLock { g -> (Bool, Task<Void, any Error>?) in
            defer { g.held = held }
            return (g.held != held, g.pass)
        }
        guard changed else { return }
        if held {
            logger.info("audio transfers wait: the connection is metered")
            pass?.cancel()
        } else {
            logger.info("audio transfers resume: the connection is no longer metered")
            kick()
        }
    }

    var isHeld: Bool { gate.withLock { $0.held } }

    /// Ends `run` once the transfer in hand (if any) has been cancelled.
    public nonisolated func stop() { kicks.finish() }

    /// The transfer queue: runs until `stop` or cancellation (the sync engine runs it in its task group).
    /// Kicks during a pass coalesce into one more pass; a failed pass is retried after its backoff.
    /// Cancelling aborts a transfer in progress at once (libcurl's progress callback).
    public func run() async {
        var kicked = kickStream.makeAsyncIterator()
        var retryAt: ContinuousClock.Instant?
        while !Task.isCancelled {
            if let at = retryAt {
                // A failed pass waits out its backoff (kicks meanwhile coalesce into the next pass).
                try? await Task.sleep(until: at)
            } else {
                guard await kicked.next() != nil else { return }
            }
            if Task.isCancelled { return }
            if isHeld {
                // Kicks (the hold's lift among them) bring the queue back here.
                retryAt = nil
                continue
            }
            // The pass is a task of its own so that a hold can cancel it (its transfer aborts at once).
            let pass = Task { try await self.uploads(); try await self.downloads() }
            let heldMeanwhile = gate.withLock { g in
                g.pass = pass
                return g.held
            }
            if heldMeanwhile { pass.cancel() }
            do {
                try await withTaskCancellationHandler { try await pass.value } onCancel: { pass.cancel() }
                gate.withLock { $0.pass = nil }
                attempt = 0
                retryAt = nil
            } catch {
                gate.withLock { $0.pass = nil }
                if Task.isCancelled { return }
                if isHeld {
                    retryAt = nil
                    continue
                }
                if case SyncFailure.revoked = error {
                    // The sync engine says so and stops; the next kick (a sync that worked) brings the queue back.
                    retryAt = nil
                    continue
                }
                attempt += 1
                let delay = SyncEngine.timerSeconds(backoff.delay(attempt: min(attempt, 64), retryAfter: (error as? SyncFailure)?.retryAfter))
                logger.warning("audio transfer failed; will retry", metadata: ["in": "\(ClockTime.wholeSeconds(delay)) s", "error": "\(error)"])
                retryAt = .now + .milliseconds(SyncEngine.milliseconds(delay))
            }
        }
    }

    func uploads() async throws {
        let pending = try await store.read { s in try s.audioToUpload() }
        for file in pending {
            guard let path = file.path, let sha = file.sha256 else { continue }
            if isHeld || Task.isCancelled { throw Held() }
            do {
                try await client.uploadAudio(sermonId: file.sermonId, path: path, sha256: sha)
            } catch SyncFailure.client(status: 413, let detail) {
                // Over the account's audio quota (or the server's size limit): this file waits for the next pass
                // (after the next sync: a deleted sermon may have freed room); the others and the downloads go on.
                logger.warning("audio upload refused: too large for the account", metadata: ["sermon": "\(file.sermonId)", "detail": "\(detail)"])
                continue
            }
            try await store.write { s in
                try s.setAudioFile(AudioFileState(sermonId: file.sermonId, path: path, sha256: sha, sizeBytes: file.sizeBytes,
                                                  localAvailable: true, uploaded: true))
            }
            logger.info("audio uploaded", metadata: ["sermon": "\(file.sermonId)", "bytes": "\(file.sizeBytes ?? 0)"])
        }
    }

    func downloads() async throws {
        let wanted = try await store.read { s in try s.audioToDownload() }
        for item in wanted {
            if isHeld || Task.isCancelled { throw Held() }
            let ext = item.fileName.split(separator: ".").count > 1 ? "." + item.fileName.split(separator: ".").last! : ""
            let safeExt = ext.count <= 10 && !ext.contains("/") ? ext : ""
            let final = "\(audioDirectory)/\(item.sermonId)\(safeExt)"
            let partial = "\(audioDirectory)/\(item.sermonId).\(item.sha256.prefix(16)).download"
            mkdir(audioDirectory, 0o700)
            var have: Int64 = 0
            var st = stat()
            if stat(partial, &st) == 0 { have = Int64(st.st_size) }
            // `sizeBytes` comes from the sermon's record (another device's word, or a row predating the schema's
            // check): below 0 it is no size at all, and like 0 the download then always runs (the sha256 decides).
            if item.sizeBytes >= 0, have > item.sizeBytes { unlink(partial); have = 0 }
            if have < item.sizeBytes || item.sizeBytes <= 0 {
                do {
                    try await client.downloadAudio(sermonId: item.sermonId, to: partial, resumeFrom: have)
                } catch {
                    // The transport never writes an error answer (404 before the upload, 5xx…) into the file; should
                    // anything else have been appended on a refused request, keep only the bytes we had. A network
                    // failure keeps what arrived (the next attempt resumes after it).
                    if case SyncFailure.network? = error as? SyncFailure {} else { truncate(partial, off_t(have)) }
                    throw error
                }
            }
            let actual = try await Self.sha256(of: partial)
            guard actual == item.sha256 else {
                // Never keep a file that is not the one the sermon names; start over next time.
                unlink(partial)
                throw SyncFailure.malformed("audio of \(item.sermonId) has sha256 \(actual), expected \(item.sha256)")
            }
            guard rename(partial, final) == 0 else { throw SyncFailure.malformed("cannot move the audio into place") }
            let size = item.sizeBytes
            try await store.write { s in
                try s.setAudioFile(AudioFileState(sermonId: item.sermonId, path: final, sha256: item.sha256, sizeBytes: size,
                                                  localAvailable: true, uploaded: true))
            }
            logger.info("audio downloaded", metadata: ["sermon": "\(item.sermonId)", "bytes": "\(size)"])
        }
    }

    /// The file's sha256, read off the cooperative pool (`BlockingWork`).
    static func sha256(of path: String) async throws -> String {
        try await BlockingWork.run {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw SyncFailure.malformed("cannot read \(path)") }
            defer { close(fd) }
            var hasher = SHA256()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                guard let n = try? buffer.withUnsafeMutableBytes({ try FileDescriptor(rawValue: fd).read(into: $0) }) else {
                    throw SyncFailure.malformed("read failed")
                }
                if n == 0 { break }
                hasher.update(data: buffer[0..<n])
            }
            return Hex.encode(hasher.finalize())
        }
    }
}
