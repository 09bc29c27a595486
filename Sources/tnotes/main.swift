import ArgumentParser
import TNotesClient

#if canImport(Glibc)
import Glibc
#endif

// A custom entry point: argument-parser exits 64 on usage errors, the contract says 2; daemon and RPC
// failures get their own statuses (69, 1).
// SIGPIPE would kill us silently with status 141; a write error says EPIPE instead.
signal(SIGPIPE, SIG_IGN)
/// `sermon update ID --title` with no value asks for the title in $EDITOR: argument-parser has no options
/// with an optional value, so a bare `--title` (last, or followed by another option) becomes `--edit-title`.
func argumentsWithBareTitle(_ args: [String]) -> [String] {
    guard args.contains("update"), args.contains("sermon") else { return args }
    var out = args
    for (i, a) in args.enumerated() where a == "--title" && (i + 1 == args.count || args[i + 1].hasPrefix("--")) {
        out[i] = "--edit-title"
    }
    return out
}

do {
    var command = try Tnotes.parseAsRoot(argumentsWithBareTitle(Array(CommandLine.arguments.dropFirst())))
    try command.run()
    exit(0)
} catch let failure as Failure {
    Output.error(failure.message)
    exit(failure.exitStatus)
} catch {
    if Tnotes.exitCode(for: error) == .validationFailure {
        Output.error(Tnotes.fullMessage(for: error))
        exit(2)
    }
    Tnotes.exit(withError: error)
}
