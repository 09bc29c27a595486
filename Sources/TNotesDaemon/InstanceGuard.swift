#if canImport(Glibc)
import Glibc
#endif

/// Makes sure one daemon owns one data dir and one socket. The data dir is held by an flock for the
/// life of the process (the kernel drops it when the process dies, however it dies). A socket file is
/// replaced only when a connect proves nothing listens there (ECONNREFUSED); a path that is not a socket
/// is never removed.
final class InstanceGuard {
    private var lockFD: Int32 = -1

    /// Takes the data dir's lock, or says who holds it.
    func lockDataDir(_ paths: DaemonPaths) throws(DaemonError) {
        let fd = open(paths.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .startup("cannot open \(paths.lockPath): \(String(cString: strerror(errno)))")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let err = errno
            var holder = ""
            var buf = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buf, 32, 0)
            if n > 0 { holder = " (pid \(String(decoding: buf[0..<n], as: UTF8.self).trimmingSpaces))" }
            close(fd)
            if err == EWOULDBLOCK {
                throw .alreadyRunning("another tnotesd is using the data dir \(paths.dataDir)\(holder); two daemons must never share one database")
            }
            throw .startup("cannot lock \(paths.lockPath): \(String(cString: strerror(err)))")
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        lockFD = fd
    }

    /// Clears the way for binding `path`: nothing there, or a stale socket (removed). Refuses a live one.
    static func prepareSocketPath(_ path: String) throws(DaemonError) {
        var st = stat()
        if lstat(path, &st) != 0 {
            if errno == ENOENT { return }
            throw .startup("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw .startup("\(path) exists and is not a socket; refusing to replace it")
        }
        switch probe(path) {
        case 0:
            throw .alreadyRunning("another tnotesd is already listening on \(path)")
        case ECONNREFUSED, ENOENT:
            if unlink(path) != 0 && errno != ENOENT {
                throw .startup("cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
            }
        case let err:
            throw .startup("cannot check the socket \(path): \(String(cString: strerror(err)))")
        }
    }

    /// 0 when something accepts connections at `path`, else the connect errno.
    static func probe(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return ENAMETOOLONG }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return rc == 0 ? 0 : errno
    }

    deinit {
        if lockFD >= 0 { close(lockFD) }
    }
}

import TNotesCore
