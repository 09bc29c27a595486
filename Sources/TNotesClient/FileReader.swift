#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads with plain POSIX calls.
public enum FileReader {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let errno: Int32
        public var description: String { "\(path): \(String(cString: strerror(errno)))" }
    }

    /// The bytes of `path` ("-" is standard input).
    public static func read(_ path: String) throws(Failure) -> [UInt8] {
        let fd: Int32
        if path == "-" {
            fd = 0
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { throw Failure(path: path, errno: errno) }
            var st = stat()
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw Failure(path: path, errno: EISDIR)
            }
        }
        defer { if fd != 0 { close(fd) } }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, errno: errno)
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// The text of `path`, or nil when it cannot be read.
    public static func readText(_ path: String) -> String? {
        guard let bytes = try? read(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `read(2)` (the name is shadowed inside `FileReader`).
func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
