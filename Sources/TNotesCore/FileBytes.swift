#if canImport(Glibc)
import Glibc
#endif

/// A whole file's bytes, read with read(2) to its end: unlike Foundation's file reading, it also reads files
/// whose size says nothing of their length (/proc/self/smaps: Foundation stopped after its first page).
public enum FileBytes {
    /// The file's bytes; nil when it cannot be opened or a read fails.
    public static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue } else { return nil } }
            if n == 0 { return out }
            out += buffer[0..<n]
        }
    }
}
