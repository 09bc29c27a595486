import Foundation
import Testing
import TNotesTestSupport

/// The server runs on jemalloc (see tnotes-server's `Allocator`): linked, loaded, and serving `malloc` ahead of
/// the C library's, which the server checks at start and logs.
@Suite("tnotes-server allocator")
struct ServerAllocatorTests {
    @Test("the server's malloc is jemalloc's: logged at start, and the library is mapped into the process")
    func serverMallocIsJemalloc() throws {
        let server = try ServerProcess().start()
        defer { server.stop() }
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("allocator") }, "no allocator line in:\n\(server.log)")
        #expect(line.contains("malloc=jemalloc 5."), "\(line)")
        let pid = try #require(server.process?.processIdentifier)
        // Read to its end: /proc files report no size, and a sized read stops at the first page.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        #expect(maps.contains("libjemalloc.so"))
    }
}
