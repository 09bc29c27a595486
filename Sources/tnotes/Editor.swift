import TNotesClient

#if canImport(Glibc)
import Glibc
#endif

/// Text written in the user's own editor, as git does it: `$EDITOR`, then `$VISUAL`, then `editor`, then
/// `vi`, run through `/bin/sh` (so `EDITOR="code --wait"` works) on a private temp file (mode 0600). Lines
/// starting with `#` are dropped; an empty result or a non-zero exit of the editor aborts with exit 1 and
/// nothing changes.
enum Editor {
    /// Whether a command that got no text should open the editor: one is named, or there is a terminal to
    /// run `vi` on. Without either the command fails as before (a usage error), never hanging a script.
    static var available: Bool {
        let env = currentEnvironment()
        return env["EDITOR"].map { !$0.isEmpty } == true || env["VISUAL"].map { !$0.isEmpty } == true
            || (isatty(0) == 1 && isatty(1) == 1 && env["TERM"] != "dumb")
    }

    static var command: String {
        let env = currentEnvironment()
        for key in ["EDITOR", "VISUAL"] { if let e = env[key], !e.isEmpty { return e } }
        if access("/usr/bin/editor", X_OK) == 0 { return "editor" }
        return "vi"
    }

    /// Opens the editor on `initial` followed by `help` as comment lines; returns what was written.
    static func edit(_ initial: String, help: [String]) throws -> String {
        var template = Array("/tmp/tnotes-edit-XXXXXX.md".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 3) }  // mode 0600
        guard fd >= 0 else { throw Failure.message("cannot make a temp file for the editor: \(String(cString: strerror(errno)))") }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { unlink(path) }
        var text = initial
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        text += "\n" + help.map { "# " + $0 }.joined(separator: "\n") + "\n"
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw Failure.message("cannot write \(path)") }

        let status = try run(command, path)
        guard status == 0 else {
            throw Failure.message("the editor (\(command)) exited with status \(status); nothing changed")
        }
        let result: String
        do {
            result = String(decoding: try FileReader.read(path), as: UTF8.self)
        } catch {
            throw Failure.message("cannot read back \(path): \(error)")
        }
        let kept = result.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
        var out = kept.joined(separator: "\n")
        while let last = out.last, last.isWhitespace { out.removeLast() }
        while let first = out.first, first.isNewline { out.removeFirst() }
        guard !out.isEmpty else { throw Failure.message("empty text; nothing changed") }
        return out
    }

    /// `/bin/sh -c '<editor> "$@"' sh <path>`, with the terminal inherited; its exit status.
    private static func run(_ editor: String, _ path: String) throws -> Int32 {
        let words: [String] = ["/bin/sh", "-c", editor + " \"$@\"", "sh", path]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        guard rc == 0 else { throw Failure.message("cannot run the editor: \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
