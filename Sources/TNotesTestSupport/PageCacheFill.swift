import Foundation

/// Takes the machine's free memory into the page cache (clean pages of a sparse file, no disk blocks), so
/// that the file pages a timed run writes come from reclaimed cache, as on a machine that has been up a while.
///
/// Why the bench needs it: on a VM whose free memory goes back to the host (virtio free-page reporting, as on
/// the machine the README's figures come from: `page_reporting.page_reporting_order=11`), the first write to a
/// free page costs a fault in the host. Measured there with `dd` of a new 4 GB file: 9.7 s of system time on
/// free memory, 2.1 s with the page cache full, 0.3 s rewriting cached pages. A 16× full sync writes ~9 GB of
/// new file pages and a 1× one ~0.5 GB (which the kernel mostly finds in pages it used just before), so the
/// VM's cost grew faster than the data: a 16× SQLite sync took 73.4 s on free memory and 62.4 s after a fill,
/// with the same user CPU, and the difference was the server's and the pulling device's system time
/// (9.4 → 5.0 s and 8.6 → 5.0 s).
///
/// Reading a hole allocates a zeroed page-cache page; the file has no blocks, so the fill costs no disk and
/// the kernel drops its pages first when memory is needed (they are clean).
public struct PageCacheFill: Sendable {
    public let path: String
    /// Free memory left alone, for the kernel's watermarks and the run's own allocations.
    public let reserveBytes: Int
    /// The fill never grows past this (tests use a small one).
    public let maxBytes: Int

    public init(path: String, reserveBytes: Int = 1 << 30, maxBytes: Int = Int.max) {
        self.path = path
        self.reserveBytes = reserveBytes
        self.maxBytes = maxBytes
    }

    /// Free memory now, from `/proc/meminfo` (nil where there is none, e.g. not Linux).
    public static func freeBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemFree:") {
            let kib = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return kib.map { $0 * 1024 }
        }
        return nil
    }

    /// Grows the file by what is free beyond the reserve and reads the new part, in rounds: once the cache is
    /// full, reading also evicts, so one round can leave memory free. Returns the bytes read (untimed work:
    /// ~1.4 s per GB on the VM above).
    @discardableResult
    public func fill(rounds: Int = 3) throws -> Int {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HarnessError("open \(path): errno \(errno)") }
        defer { close(fd) }
        var size = Int(lseek(fd, 0, SEEK_END))
        var read = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<rounds {
            guard let free = Self.freeBytes() else { break }
            let grow = min(free - reserveBytes, maxBytes - size)
            // Less than 256 MiB to take (and not the last of the cap): done. The kernel keeps some memory free
            // whatever is read.
            guard grow > 0, grow >= 256 << 20 || size + grow == maxBytes else { break }
            guard ftruncate(fd, off_t(size + grow)) == 0 else { throw HarnessError("ftruncate: errno \(errno)") }
            var offset = size
            while offset < size + grow {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, size + grow - offset), off_t(offset)) }
                guard n > 0 else { throw HarnessError("pread at \(offset): errno \(errno)") }
                offset += n
            }
            read += grow
            size += grow
        }
        return read
    }

    /// The file and its cached pages go.
    public func remove() { unlink(path) }
}
