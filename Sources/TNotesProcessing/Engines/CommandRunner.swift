import Subprocess
import SystemPackage

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
    public func run(inputPath: String) async throws -> String {
        guard let program = argv.first, !program.isEmpty else { throw PermanentJobError("the command is empty") }
        let argumentList = Array(argv.dropFirst()) + [inputPath]
        let limit = outputLimit, tail = errorTail, timeout = self.timeout
        let result = try await withThrowingTaskGroup(of: ExecutionResult<Void, StringOutput<UTF8>, StringOutput<UTF8>>?.self) { group in
            group.addTask {
                let executable: Executable = program.contains("/") ? .path(FilePath(program)) : .name(program)
                var options = PlatformOptions()
                options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(2))]
                let arguments = Arguments(argumentList)
                do {
                    return try await Subprocess.run(executable, arguments: arguments, platformOptions: options,
                                                    output: .string(limit: limit), error: .string(limit: 4 << 20))
                } catch let error as SubprocessError {
                    throw Failure(description: "\(program): \(error)")
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
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
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }
}
