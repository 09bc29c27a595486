#if canImport(Glibc)
import Glibc
#endif

import CLoadedSegments
import TNotesCore

/// Gives back what an idle process keeps resident only because it once ran: the pages of code and constants
/// it mapped from its executable and libraries, and the heap glibc holds free.
///
/// Why: the kernel maps a file's pages 64 KiB at a time around each page fault (fault-around), so start-up
/// code that runs once (the config, the store's checks and migrations, the runtime's and the libraries'
/// initialisers, libcurl's dependency tree) stays in the resident set for the process's whole life. Measured on
/// the idle release `tnotesd` with sync configured: 33.1 MiB resident, 27.8 of them file pages; after a release
/// and 15 s more of idling, 14.8 MiB (the code idling runs faulted back in).
///
/// What is released, with `MADV_DONTNEED`: the read-only segments (ELF `PT_LOAD` without `PF_W`) of the
/// executable and of each library loaded from a file, found with `dl_iterate_phdr` under the loader's lock, so
/// that no library is unmapped meanwhile (CLoadedSegments). Their pages stay in the page cache and come back on
/// the next access as a minor fault, identical: nothing wrote them. Never released: a RELRO segment (the
/// loader relocated it, then made it read-only; it lies in a writable segment), anything writable, an object
/// with text relocations, and, as a second guard, any segment overlapping a mapping that smaps shows holding a
/// page of its own, in memory or swapped out (`Anonymous:` or `Swap:` above 0, or either line missing): there
/// `MADV_DONTNEED` would throw that page away.
public enum ResidentMemory {
    /// What one release did: the resident set before and after, in KiB (VmRSS), and the segments it released.
    public struct Release: Sendable, Equatable {
        public var residentBeforeKiB: Int
        public var residentAfterKiB: Int
        public var segments: Int
    }

    /// Releases the segments described above and trims the heap. Blocking (it reads /proc/self/smaps, some
    /// hundred mappings, and `malloc_trim` walks every arena): call it through `BlockingWork`.
    public static func release() -> Release {
        let before = residentKiB() ?? 0
        guard let smaps = readFile("/proc/self/smaps"), smaps.hasSuffix("\n") else {
            _ = trimHeap()
            return Release(residentBeforeKiB: before, residentAfterKiB: residentKiB() ?? 0, segments: 0)
        }
        let pinned = pinnedRanges(smaps: smaps).map { tn_range(start: $0.start, end: $0.end) }
        let released = pinned.withUnsafeBufferPointer { tn_release_readonly_segments($0.baseAddress, $0.count) }
        _ = trimHeap()
        return Release(residentBeforeKiB: before, residentAfterKiB: residentKiB() ?? 0, segments: released)
    }

    /// glibc's `malloc_trim(0)`: returns the free pages of every arena. False when the C library has no such
    /// call (musl). Blocking for some milliseconds.
    @discardableResult
    public static func trimHeap() -> Bool {
        guard let trim = mallocTrim else { return false }
        _ = trim(0)
        return true
    }

    /// The process's resident set (VmRSS), in KiB.
    public static func residentKiB() -> Int? {
        guard let status = readFile("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    struct Range: Equatable {
        var start: UInt
        var end: UInt
    }

    /// The mappings, read from smaps text (proc(5)), that hold a page of their own: `Anonymous:` or `Swap:`
    /// above 0, or either line missing. A header line per mapping (`start-end perms offset dev inode [path]`),
    /// then its `Key: value kB` lines.
    static func pinnedRanges(smaps: String) -> [Range] {
        var result: [Range] = []
        var current: Range?
        var anonymous = -1, swap = -1
        func close() {
            if let r = current, anonymous != 0 || swap != 0 { result.append(r) }
            current = nil
        }
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.last != ":" {
                // A mapping's header: the address range has no colon; keys end with one.
                close()
                let bounds = first.split(separator: "-")
                guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) else { continue }
                current = Range(start: start, end: end)
                anonymous = -1
                swap = -1
            } else if current != nil, fields.count >= 2 {
                if first == "Anonymous:" { anonymous = Int(fields[1]) ?? -1 }
                if first == "Swap:" { swap = Int(fields[1]) ?? -1 }
            }
        }
        close()
        return result
    }

    /// A whole /proc file (`FileBytes`: Foundation's file reading stops after the first page of /proc/self/smaps).
    static func readFile(_ path: String) -> String? {
        FileBytes.read(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// glibc's `malloc_trim`, looked up at run time: Swift's Glibc module does not export `<malloc.h>`, and
    /// another C library (musl) has no such call, in which case nothing is trimmed.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
