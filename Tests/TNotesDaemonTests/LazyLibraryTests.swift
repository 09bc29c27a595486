import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// PocketSphinx, SWORD and libcurl are loaded on first use, not at start (CPocketSphinx.h, CSword.h,
/// CCurlShim's tn_curl_api.h): an idle local-only daemon maps none of them nor what they bring with them, and the
/// first Bible lookup loads SWORD alone. (The sync tests load libcurl: every one of them syncs through it.)
@Suite("lifecycle: PocketSphinx, SWORD and libcurl load on first use")
struct LazyLibraryTests {
    static let hasKJV = FileManager.default.fileExists(atPath: "/usr/share/sword/mods.d/engKJV2006eb.conf")

    /// The shared objects the process has mapped, by file name.
    static func mappedLibraries(_ pid: Int32) throws -> Set<String> {
        // Read to the end: /proc files report a size of 0, which String(contentsOfFile:) trusts.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        var names = Set<String>()
        for line in maps.split(separator: "\n") {
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/"),
                  path.contains(".so") else { continue }
            names.insert(String(path.split(separator: "/").last!))
        }
        return names
    }

    static func has(_ libraries: Set<String>, _ prefix: String) -> Bool { libraries.contains { $0.hasPrefix(prefix) } }

    @Test("an idle local-only daemon maps no libpocketsphinx, libsphinxbase, libsphinxad, libsword or libcurl; scripture.text loads libsword only",
          .enabled(if: hasKJV, "needs sword-text-kjv"))
    func loadedOnFirstUse() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let pid = try #require(d.process?.processIdentifier)
        let c = try d.client()
        _ = try c.call("daemon.status")
        let idle = try Self.mappedLibraries(pid)
        #expect(Self.has(idle, "libsqlite3"), "the maps were not read: \(idle.sorted())")
        for name in ["libpocketsphinx", "libsphinxbase", "libsphinxad", "libsword", "libclucene", "libpulse", "libopusenc", "libogg", "libX11",
                     "libcurl", "libssl", "libgnutls", "libldap", "libkrb5"] {
            #expect(!Self.has(idle, name), "\(name) is mapped in an idle daemon")
        }

        let john = try c.call("scripture.text", ["ref": "John 3:16"])
        #expect(john["verses"]?.arrayValue?.count == 1)
        let after = try Self.mappedLibraries(pid)
        #expect(Self.has(after, "libsword"), "scripture.text answered without libsword mapped: \(after.sorted())")
        #expect(!Self.has(after, "libpocketsphinx"), "a Bible lookup loaded PocketSphinx")
        #expect(!Self.has(after, "libcurl.so"), "a Bible lookup loaded libcurl")
    }
}
