import TNotesCore

/// What a command engine printed: JSON `{text, segments?}` (contract §6.1) or plain text. Anything else is
/// refused with the reason, so a broken engine ends as a failed job, never as garbage in a transcript.
enum CommandOutput {
    static func parse(_ output: String, program: String) throws -> TranscriptionResult {
        let trimmed = output.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw CommandRunner.Failure(description: "\(program) printed nothing") }
        if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" })
            || trimmed.unicodeScalars.contains("\u{FFFD}")
        {
            throw CommandRunner.Failure(description: "\(program) printed binary data, not text or JSON {text, segments}")
        }
        guard trimmed.hasPrefix("{") || trimmed.hasPrefix("[") else {
            return TranscriptionResult(text: trimmed, segments: [])
        }
        let json: JSON
        do { json = try JSON.parse(trimmed) } catch {
            throw CommandRunner.Failure(description: "\(program) printed malformed JSON: \(error)")
        }
        guard case .object(let o) = json, case .string(let text)? = o[field: \Transcript.text] else {
            throw CommandRunner.Failure(description: "\(program) printed JSON without a string \"text\" (expected {text, segments?})")
        }
        var segments: [TimedSegment] = []
        if let raw = o[field: \Transcript.segments], !raw.isNull {
            guard case .array(let items) = raw else {
                throw CommandRunner.Failure(description: "\(program) printed \"segments\" that is not an array")
            }
            for (i, item) in items.enumerated() {
                guard let start = item[field: \Transcript.Segment.start]?.doubleValue, let end = item[field: \Transcript.Segment.end]?.doubleValue,
                      case .string(let t)? = item[field: \Transcript.Segment.text], start >= 0, end >= start, start.isFinite, end.isFinite
                else {
                    throw CommandRunner.Failure(description: "\(program) printed segments[\(i)] without start ≤ end and text")
                }
                // The bound every stored segment time meets (contract §8.1): a time past it is the engine's
                // mistake, named here rather than as the store's refusal of the transcript.
                guard end <= ValueBounds.maxSeconds else {
                    throw CommandRunner.Failure(description: "\(program) printed segments[\(i)] ending at \(end) s, past "
                                                + "\(Int(ValueBounds.maxSeconds)) s (7 days)")
                }
                segments.append(TimedSegment(start: start, end: end, text: t.trimmingWhitespace()))
            }
        }
        return TranscriptionResult(text: text.trimmingWhitespace(), segments: segments)
    }
}

/// A speech-to-text program the user installed (whisper.cpp's CLI, say), run per `transcribe_command`.
public struct CommandTranscriptionEngine: TranscriptionEngine {
    public let name = "command"
    public let runner: CommandRunner

    public init(runner: CommandRunner) { self.runner = runner }

    public func transcribe(audioPath: String, job: JobContext) async throws -> TranscriptionResult {
        let output = try await runner.run(inputPath: audioPath, priority: job.priority)
        return try CommandOutput.parse(output, program: runner.argv.first ?? "command")
    }
}
