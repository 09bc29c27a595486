import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads: POSIX open, swift-system's `FileDescriptor` reads (an interrupted read is retried there).
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
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
            } catch {
                throw Failure(path: path, errno: (error as? Errno)?.rawValue ?? EIO)
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
