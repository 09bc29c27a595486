import SystemPackage
import TNotesClient

#if canImport(Glibc)
import Glibc
#endif

/// The few file operations export and import need, on plain POSIX calls and swift-system's `FileDescriptor`
/// reads and writes (the CLI links no Foundation).
/// Errors are `Failure.message` naming the path (exit 1).
enum LocalFiles {
    static func fail(_ what: String, _ path: String) -> Failure {
        Failure.message("cannot \(what) \(path): \(String(cString: strerror(errno)))")
    }

    /// `fail` for an error swift-system threw (an `Errno`, whose description is strerror's text).
    static func fail(_ what: String, _ path: String, _ error: any Error) -> Failure {
        Failure.message("cannot \(what) \(path): \(error)")
    }

    /// `mkdir -p`.
    static func makeDirectory(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST { throw fail("create the directory", built) }
        }
        guard isDirectory(path) else { throw Failure.message("\(path) is not a directory") }
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    static func list(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw fail("read the directory", path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Writes the whole file through a temp file and a rename: a reader never sees half of it.
    static func write(_ path: String, _ text: String) throws {
        let w = try Writer(path: path)
        try w.write(text)
        try w.close()
    }

    static func copy(_ from: String, to path: String) throws {
        let input = open(from, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw fail("read", from) }
        defer { close(input) }
        let w = try Writer(path: path)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: input).read(into: $0) }
            } catch {
                throw fail("read", from, error)
            }
            if n == 0 { break }
            try w.write(bytes: buffer[0..<n])
        }
        try w.close()
    }

    /// A name from a record, safe as one path component.
    static func safeName(_ name: String) -> String {
        let cleaned = String(name.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        return cleaned == "." || cleaned == ".." || cleaned.isEmpty ? "audio" : cleaned
    }

    /// A file written to `path.tmp-PID` and renamed over `path` on close.
    final class Writer {
        let path: String
        let temp: String
        private var fd: Int32

        init(path: String) throws {
            self.path = path
            temp = "\(path).tmp-\(getpid())"
            fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw LocalFiles.fail("write", path) }
        }

        func write(_ text: String) throws { try write(bytes: Array(text.utf8)[...]) }

        func write(bytes: ArraySlice<UInt8>) throws {
            do { try FileDescriptor(rawValue: fd).writeAll(bytes) } catch { throw LocalFiles.fail("write", path, error) }
        }

        func close() throws {
            guard fsync(fd) == 0, Glibc.close(fd) == 0 else { throw LocalFiles.fail("write", path) }
            fd = -1
            guard rename(temp, path) == 0 else { throw LocalFiles.fail("rename into", path) }
        }

        deinit {
            if fd >= 0 {
                Glibc.close(fd)
                unlink(temp)
            }
        }
    }
}
