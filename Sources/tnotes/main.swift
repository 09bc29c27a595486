import ArgumentParser
import TNotesClient

#if canImport(Glibc)
import Glibc
#endif

// A custom entry point: argument-parser exits 64 on usage errors, the contract says 2; daemon and RPC
// failures get their own statuses (69, 1).
// SIGPIPE would kill us silently with status 141; a write error says EPIPE instead.
signal(SIGPIPE, SIG_IGN)
do {
    var command = try Tnotes.parseAsRoot()
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
