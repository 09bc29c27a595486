import Foundation
import Testing
import TNotesTestSupport

/// The bench's page-cache fill (see `PageCacheFill`): it must put the pages it reads into the cache, and take
/// no disk for them.
@Suite struct PageCacheFillTests {
    @Test(.enabled(if: PageCacheFill.freeBytes() != nil, "needs /proc/meminfo (the fill reads MemFree from it)"))
    func fillReadsASparseFileIntoThePageCacheWithoutDiskBlocks() throws {
        let free = try #require(PageCacheFill.freeBytes())
        let tmp = TempDirectory()
        let cap = 64 << 20
        try #require(free > cap, "less than 64 MiB free: cannot check a 64 MiB fill")
        let fill = PageCacheFill(path: tmp.file("fill"), reserveBytes: 0, maxBytes: cap)
        let read = try fill.fill()
        #expect(read == cap)
        // A second fill at the cap reads nothing more.
        #expect(try fill.fill() == 0)

        var st = stat()
        #expect(stat(fill.path, &st) == 0)
        #expect(Int(st.st_size) == cap)
        #expect(st.st_blocks == 0, "the fill is sparse: no disk blocks")

        // mincore: which of the file's pages are in the page cache now.
        let fd = open(fill.path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let map = mmap(nil, cap, PROT_READ, MAP_SHARED, fd, 0)
        try #require(map != MAP_FAILED)
        defer { munmap(map, cap) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vec = [UInt8](repeating: 0, count: cap / pageSize)
        #expect(mincore(map, cap, &vec) == 0)
        let resident = vec.filter { $0 & 1 == 1 }.count
        #expect(resident * 10 >= vec.count * 9, "\(resident) of \(vec.count) pages cached")

        fill.remove()
        #expect(!FileManager.default.fileExists(atPath: fill.path))
    }
}
