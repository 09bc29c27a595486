import Synchronization
import TNotesCore

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

/// Shared between the worker and a running job: cancellation in, progress out.
public final class JobContext: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let cancelSignal = WakeSignal()
    private let onProgress: @Sendable (Double) -> Void

    public init(onProgress: @escaping @Sendable (Double) -> Void = { _ in }) {
        self.onProgress = onProgress
    }

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

/// The daemon stopped while the job ran; it goes back to the queue without using up an attempt.
public struct JobInterrupted: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "interrupted by shutdown" }
}
