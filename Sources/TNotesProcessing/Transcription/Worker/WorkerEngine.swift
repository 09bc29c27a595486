import TNotesCore

/// A transcription by a recognizer worker (`RecognizerWorker`, which says why a process of its own): the
/// daemon decodes the audio (WAV here, anything else through ffmpeg) and streams it to the worker, which sends
/// back timed segments. sherpa-onnx (Moonshine base English) or PocketSphinx, as `WorkerSpec` says.
///
/// Measured on this machine's kind (two ~60 s passages): Moonshine got 0.3 % of words wrong on a neural voice and
/// 3.9 % on espeak-ng, where PocketSphinx got 19.5 % and 77 %; about 4 s of audio per CPU second on one core.
public struct WorkerEngine: TranscriptionEngine {
    public var name: String { spec.engine.rawValue }
    public let spec: WorkerSpec
    /// The daemon's own executable (the worker is the same program).
    public let executable: String
    public let stallSeconds: Double

    public init(spec: WorkerSpec, executable: String, stallSeconds: Double) {
        self.spec = spec
        self.executable = executable
        self.stallSeconds = stallSeconds
    }

    public func transcribe(audioPath: String, job: JobContext) async throws -> TranscriptionResult {
        let spec = self.spec, executable = self.executable, stall = stallSeconds
        return try await LowPriorityThread.run("tnotes-asr", job: job) {
            let source = try AudioInput.open(path: audioPath, job: job)
            defer { source.close() }
            // Spawned from this thread, the worker starts at the job's priority; `adopt` moves it with the job.
            let worker: RecognizerProcess
            do {
                worker = try RecognizerProcess(executable: executable, spec: spec, stallSeconds: stall, isCancelled: { job.isCancelled })
            } catch let e as PipedChild.SpawnError {
                throw PermanentJobError("cannot start the recognizer: \(e.description)")
            }
            job.adopt(child: worker.pid)
            defer { job.release(child: worker.pid) }
            do {
                return try Self.decode(source, worker: worker, job: job)
            } catch let e as RecognizerProcess.Failure where e.damaged {
                throw RecognizerUnusable(description: e.description)
            }
        }
    }

    static func decode(_ source: any PCMSource, worker: RecognizerProcess, job: JobContext) throws -> TranscriptionResult {
        let total = source.durationSeconds.map { $0 * Double(AudioInput.sampleRate) }
        var buffer = [Int16](repeating: 0, count: 8000)
        var segments: [TimedSegment] = []
        var consumed = 0
        while true {
            if job.isCancelled { worker.kill(); throw JobInterrupted() }
            let n = try source.read(into: &buffer)
            if n == 0 { break }
            segments += try worker.feed(buffer[0..<n])
            consumed += n
            // What the worker has heard, not recognised: it trails by at most one utterance.
            if let total, total > 0 { job.progress(min(0.99, Double(consumed) / total)) }
        }
        segments += try worker.finish()
        job.progress(1)
        return TranscriptionResult(text: segments.map(\.text).joined(separator: " "), segments: segments)
    }
}

/// The recognizer's installation is missing or damaged (the worker refused to load it): no retry can help.
/// With `transcriber = "auto"` the job goes on with PocketSphinx (`JobExecutor`); asked for by name, it fails.
public struct RecognizerUnusable: Error, CustomStringConvertible {
    public let description: String
}
