import CJemalloc

#if canImport(Glibc)
import Glibc
#endif

/// The server's `malloc` is jemalloc (Debian's libjemalloc2). Linked into this executable ahead of the C
/// library, it serves every allocation of the process: Swift's runtime, SQLite, PostgresNIO's buffers.
///
/// Why: after a large push, glibc's heap is fragmented and every allocation searches its bins. Measured with
/// `perf` on the server during a 16× pull on PostgreSQL (1.92 M changes pushed just before): `_int_malloc`,
/// `unlink_chunk`, `malloc_consolidate` and `_int_free` were 18.5 % of its samples against 10.5 % at 1×, and the
/// server spent 16.6–18.8 CPU s on the pull where 16 × its 1× pull is 11. With jemalloc (LD_PRELOAD, same
/// build): 11.1 CPU s, and 27.8 CPU s on the push against 31.7–37.3; at 1× its CPU is the same or less on both
/// backends. The daemon keeps glibc's allocator: its pull stays linear (16× CPU = 16 × 1×) and its resident
/// size is a figure of its own.
enum Allocator {
    /// What serves `malloc` here: "jemalloc <version>", or why not.
    static func describe() -> String {
        var version: UnsafePointer<CChar>?
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &version, &size, nil, 0) == 0, let version else { return "glibc (jemalloc unavailable)" }
        // Linked is not enough: `malloc` must resolve to jemalloc's, not the C library's.
        guard let jemalloc = dlopen("libjemalloc.so.2", RTLD_NOW | RTLD_NOLOAD) else { return "glibc (jemalloc not loaded)" }
        defer { dlclose(jemalloc) }
        let served = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc") == dlsym(jemalloc, "malloc")
        return served ? "jemalloc \(String(cString: version))" : "glibc (jemalloc \(String(cString: version)) linked, not first)"
    }
}
