import Foundation
import Testing
import TNotesCore
@testable import TNotesLifecycle
import TNotesTestSupport

/// An idle daemon gives back the pages it keeps only because start-up (or a burst of work) ran
/// (`ResidentMemory`, `IdleMemoryRelease`): never a page it wrote, never while it is busy.
@Suite("idle memory release")
struct IdleMemoryTests {
    @Test("smaps: the mappings holding a page of their own, in memory or swapped out, or not saying, are found")
    func findsMappingsHoldingTheirOwnPages() {
        let smaps = """
            55d000000000-55d000400000 r-xp 00000000 fd:01 123 /usr/bin/tnotesd
            Rss:                1024 kB
            Anonymous:             0 kB
            Swap:                  0 kB
            VmFlags: rd ex mr mw me
            55d000400000-55d000500000 r--p 00400000 fd:01 123 /usr/bin/tnotesd
            Rss:                  64 kB
            Anonymous:            64 kB
            Swap:                  0 kB
            7f0000000000-7f0000100000 r--p 00000000 fd:01 456 /usr/lib/with space/libc.so.6 (deleted)
            Rss:                   4 kB
            Anonymous:             0 kB
            Swap:                 12 kB
            7f0000100000-7f0000200000 r--p 00000000 fd:01 789 /usr/lib/libm.so.6
            Rss:                   8 kB
            Anonymous:             0 kB
            7f0000200000-7f0000300000 r-xp 00000000 fd:01 457 /usr/lib/libz.so.1
            Rss:                   0 kB
            Anonymous:             0 kB
            Swap:                  0 kB
            7ffe00000000-7ffe00002000 r-xp 00000000 00:00 0 [vdso]
            Rss:                   8 kB
            Anonymous:             0 kB
            Swap:                  0 kB
            7ffe00002000-7ffe00004000 rw-p 00000000 00:00 0
            Rss:                   8 kB
            Anonymous:             8 kB
            Swap:                  0 kB
            """
        #expect(ResidentMemory.pinnedRanges(smaps: smaps) == [
            .init(start: 0x55d0_0040_0000, end: 0x55d0_0050_0000),
            .init(start: 0x7f00_0000_0000, end: 0x7f00_0010_0000),
            .init(start: 0x7f00_0010_0000, end: 0x7f00_0020_0000),
            .init(start: 0x7ffe_0000_2000, end: 0x7ffe_0000_4000),
        ])
    }

    /// The safety of the release, on this test process's own mappings: the code of the executable and its
    /// libraries leaves the resident set (and runs on: this test goes on), and no mapping holding pages of its
    /// own (a relocated RELRO segment, data) loses one.
    @Test("a release drops code pages, and no file mapping loses a page it wrote")
    func releaseIsSafe() throws {
        let before = Self.fileMappings()
        let release = ResidentMemory.release()
        let after = Self.fileMappings()
        let code = { (m: [String: Self.MappingPages]) in m.values.filter { $0.perms == "r-xp" }.reduce(0) { $0 + $1.rss } }
        #expect(release.segments > 0)
        #expect(code(after) < code(before) / 2, "code resident before \(code(before)) KiB, after \(code(after)) KiB")
        for (range, was) in before where was.anonymous > 0 {
            let now = try #require(after[range], "the mapping \(range) \(was.path) went away")
            #expect(now.anonymous >= was.anonymous, "\(was.path) \(was.perms) \(range): \(was.anonymous) KiB of its own before, \(now.anonymous) after")
        }
    }

    @Test("a daemon asked something every second keeps its pages; quiet for 5 s, it gives back start-up's, and then serves as before")
    func quietDaemonReleases() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let c = try d.client()
        let sermon = try c.call("sermon.create", ["title": "Before the release"])
        let startFile = Self.fileKiB(d.pid)
        // Busy: a request every second for 8 s (each shorter than the quiet period apart): nothing is released.
        for _ in 0..<8 {
            usleep(1_000_000)
            _ = try c.call("daemon.status")
            #expect(Self.fileKiB(d.pid) > startFile * 3 / 4, "released while a request came every second")
        }
        let lastRequest = Date()
        // Polling /proc is not activity: only requests, commits and jobs are.
        var droppedAfter: Double?
        _ = eventually(timeout: 30, every: 0.1) {
            if Self.fileKiB(d.pid) < startFile / 2 { droppedAfter = Date().timeIntervalSince(lastRequest); return true }
            return false
        }
        let after = try #require(droppedAfter, "file-backed RSS stayed at \(Self.fileKiB(d.pid)) of \(startFile) KiB for 30 s")
        #expect(after >= 4.9, "released \(after) s after the last request, before the 5 s quiet period")

        // Everything the released code does still works, and what was stored is there.
        let sid = try #require(sermon["id"]?.stringValue)
        let note = try c.call("note.add", ["sermonId": .string(sid), "text": "after the release", "timestamp": 3])
        #expect(note["text"] == "after the release")
        #expect(try c.call("sermon.get", ["id": .string(sid)])["notes"]?.arrayValue?.count == 1)
        #expect(try c.call("search.query", ["q": "release"])["items"]?.arrayValue?.isEmpty == false)
    }

    /// RssFile of a process, in KiB: its file-backed resident pages.
    static func fileKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("RssFile:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    struct MappingPages {
        var perms: String
        var path: String
        var rss = 0
        var anonymous = 0
    }

    /// This process's file mappings by address range, with their resident and private KiB.
    static func fileMappings() -> [String: MappingPages] {
        var result: [String: MappingPages] = [:]
        var current: String?
        for line in (ResidentMemory.readFile("/proc/self/smaps") ?? "").split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if !first.hasSuffix(":") {
                current = nil
                if fields.count >= 6, fields[5].hasPrefix("/") {
                    current = String(first)
                    result[String(first)] = MappingPages(perms: String(fields[1]), path: String(fields[5]))
                }
            } else if let key = current, fields.count >= 2 {
                if first == "Rss:" { result[key]?.rss = Int(fields[1]) ?? 0 }
                if first == "Anonymous:" { result[key]?.anonymous = Int(fields[1]) ?? 0 }
            }
        }
        return result
    }
}
