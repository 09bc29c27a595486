import SystemPackage
import TNotesCore
import TNotesLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// A small file replaced whole: written to a temp file beside it (mode `permissions`), fsynced, renamed over,
/// its directory fsynced. After a crash it is the old file or the new one, never a mix. Blocking: call it
/// from a blocking context (`BlockingWork`).
enum DurableFile {
    static func write(_ bytes: [UInt8], to path: String, permissions: FilePermissions = [.ownerReadWrite]) throws {
        let temp = "\(path).tmp"
        let fd = try FileDescriptor.open(FilePath(temp), .writeOnly, options: [.create, .truncate, .closeOnExec],
                                         permissions: permissions)
        do {
            // A temp file left by an earlier crash keeps its old mode: set it.
            guard fchmod(fd.rawValue, mode_t(permissions.rawValue)) == 0 else { throw Errno(rawValue: errno) }
            try fd.writeAll(bytes)
            guard fsync(fd.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            try? fd.close()
            unlink(temp)
            throw error
        }
        // Closed once: a close that fails has still released the descriptor, whose number may be reused at once.
        do { try fd.close() } catch {
            unlink(temp)
            throw error
        }
        guard rename(temp, path) == 0 else {
            let e = Errno(rawValue: errno)
            unlink(temp)
            throw e
        }
        DirectorySync.fsync(directory(of: path))
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
