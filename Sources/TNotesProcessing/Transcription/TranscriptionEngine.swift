import Synchronization
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// What a transcription produced: the whole text and its timed segments (seconds into the audio).
public struct TranscriptionResult: Sendable, Equatable {
    public var text: String
    public var segments: [TimedSegment]

    public init(text: String, segments: [TimedSegment]) {
        self.text = text
        self.segments = segments
    }
}

/// One speech-to-text engine. `transcribe` may take minutes; it reports progress (0...1) and stops soon
/// after `job.isCancelled` turns true (the daemon is stopping).
public protocol TranscriptionEngine: Sendable {
    /// Stored in the job and the logs ("pocketsphinx", "command").
    var name: String { get }
    func transcribe(audioPath: String, job: JobContext) async throws -> TranscriptionResult
}

/// Shared between the worker and a running job: cancellation and priority in, progress out.
public final class JobContext: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let cancelSignal = WakeSignal()
    private let onProgress: @Sendable (Double) -> Void
    private let priorityState: JobPriorityState

    public init(priority: JobPriority = .idle, onProgress: @escaping @Sendable (Double) -> Void = { _ in }) {
        self.onProgress = onProgress
        self.priorityState = JobPriorityState(priority)
    }

    /// The priority the job's threads and processes run at now.
    public var priority: JobPriority { priorityState.priority }

    /// Moves the running job, its threads and the processes it started, to `priority` (a person asked for a
    /// job the daemon had queued on its own). False when the kernel refused (leaving SCHED_IDLE needs
    /// CAP_SYS_NICE): the job then goes on where it was, and work it starts from now on gets `priority`.
    @discardableResult
    public func raise(to priority: JobPriority) -> Bool { priorityState.raise(to: priority) }

    func enter(thread tid: pid_t) { priorityState.enter(thread: tid) }
    func leave(thread tid: pid_t) { priorityState.leave(thread: tid) }
    func adopt(child pid: pid_t) { priorityState.adopt(child: pid) }
    func release(child pid: pid_t) { priorityState.release(child: pid) }

    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        cancelSignal.finish()
    }

    /// Returns once `cancel` was called (or the waiting task is cancelled).
    public func cancellation() async {
        while await cancelSignal.wait(seconds: 3600) {}
    }
    public func progress(_ fraction: Double) { onProgress(min(1, max(0, fraction))) }
}

/// A job that cannot succeed as asked (bad input, a missing package): retrying it would not help.
public struct PermanentJobError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The job cannot run yet for a reason that will pass by itself (its audio waits for a connection that is not
/// metered): it goes back to the queue after the backoff without using up an attempt.
public struct JobDeferred: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The daemon stopped while the job ran; it goes back to the queue without using up an attempt.
public struct JobInterrupted: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "interrupted by shutdown" }
}
