import Subprocess
import SystemPackage
import TNotesCore

/// Runs a user-configured engine (`transcribe_command`, `summarize_command`): an argv, never a shell, with
/// the input path appended, a timeout, and a check of the exit status. A timed-out or cancelled run is
/// stopped with SIGTERM, then SIGKILL two seconds later (swift-subprocess's teardown sequence).
public struct CommandRunner: Sendable {
    public let argv: [String]
    public let timeout: Double
    /// Standard output longer than this is an error, not a silently cut result.
    public var outputLimit = 32 << 20
    /// The end of standard error kept for `lastError` (engines are chatty there; only the end explains a failure).
    public var errorTail = 2000

    public init(argv: [String], timeout: Double) {
        self.argv = argv
        self.timeout = timeout
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The command's standard output; throws `Failure` on a non-zero exit, a signal, a timeout or a failure to start.
    /// The command runs at `priority` (the job's: see `JobPriority`), set on it the moment it is started.
    public func run(inputPath: String, priority: JobPriority = .idle) async throws -> String {
        guard let program = argv.first, !program.isEmpty else { throw PermanentJobError("the command is empty") }
        let argumentList = Array(argv.dropFirst()) + [inputPath]
        let limit = outputLimit, tail = errorTail, timeoutMilliseconds = Self.milliseconds(timeout)
        let result = try await withThrowingTaskGroup(of: ExecutionResult<Void, StringOutput<UTF8>, StringOutput<UTF8>>?.self) { group in
            group.addTask {
                let executable: Executable = program.contains("/") ? .path(FilePath(program)) : .name(program)
                var options = PlatformOptions()
                options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(2))]
                let arguments = Arguments(argumentList)
                do {
                    // swift-subprocess spawns from a thread of the cooperative pool (normal priority), and offers no
                    // hook before exec on Linux: the child is set to the job's priority as soon as it exists (a
                    // thread it starts later inherits it).
                    return try await Subprocess.run(executable, arguments: arguments, platformOptions: options, input: .none,
                                                    output: .string(limit: limit), error: .string(limit: 4 << 20)) { execution in
                        _ = priority.apply(to: execution.processIdentifier.value)
                    }
                } catch let error as SubprocessError {
                    throw Failure(description: "\(program): \(error)")
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(timeoutMilliseconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let finished = first else {
                throw Failure(description: "\(program) timed out after \(Self.seconds(timeout))")
            }
            return finished
        }
        let stderr = result.standardError.trimmingWhitespace()
        let detail = stderr.isEmpty ? "" : ": " + String(stderr.suffix(tail))
        switch result.terminationStatus {
        case .exited(0):
            return result.standardOutput
        case .exited(let code):
            throw Failure(description: "\(program) exited with status \(code)\(detail)")
        case .signaled(let signal):
            throw Failure(description: "\(program) was killed by signal \(signal)\(detail)")
        }
    }

    static func seconds(_ s: Double) -> String {
        // Whole numbers as such ("3600 s"); `Int(s)` would trap past Int's range (a timeout of 1e300 in the config).
        s == s.rounded() && abs(s) < 1e15 ? "\(Int(s)) s" : "\(s) s"
    }

    /// `seconds` as whole milliseconds for a timer, clamped to 0 ... 10^15 (31,700 years: "never"), so any
    /// configured timeout converts without trapping.
    static func milliseconds(_ seconds: Double) -> Int {
        ClockTime.wholeSeconds(seconds * 1000)
    }
}
