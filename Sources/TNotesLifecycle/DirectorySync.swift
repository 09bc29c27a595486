#if canImport(Glibc)
import Glibc
#endif

/// A rename or an unlink is durable only once its directory is: without this, a power loss right after can
/// bring back the old name. Blocking: call it off the cooperative pool.
public enum DirectorySync {
    public static func fsync(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = Glibc.fsync(fd)
            close(fd)
        }
    }
}
