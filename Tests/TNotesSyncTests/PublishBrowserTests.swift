import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.5 acceptance 3: the public page in a real browser, Debian's headless Chromium.
@Suite("the public page in headless Chromium")
struct PublishBrowserTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Where a test leaves files for people to look at: $TNOTES_TEST_ARTIFACTS, else .build/test-artifacts.
    static var artifacts: String {
        let dir = ProcessInfo.processInfo.environment["TNOTES_TEST_ARTIFACTS"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/test-artifacts").standardized.path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs headless Chromium with `args` on `url` (its own profile dir, no sandbox: tests may run as root).
    static func chromium(_ args: [String], _ url: String, profile: TempDirectory) throws -> ProcessResult {
        try ProcessRunner.run(chromium!, ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                                          "--user-data-dir=\(profile.path)", "--virtual-time-budget=3000"] + args + [url],
                              environment: ["HOME": profile.path], stdin: nil, timeout: 90)
    }

    @Test("the page shows title, notes with times and summary; a hostile note is text and no script runs; a PNG screenshot is written",
          .enabled(if: chromium != nil, "needs Debian's chromium (apt-get install chromium)"))
    func realBrowser() throws {
        let rig = try SyncRig(devices: 1)
        defer { rig.stop() }
        let profile = TempDirectory()
        try rig.withLogs {
            let a = try rig.rpc(0)
            let sid = try #require(try a.call("sermon.create", ["title": "The Bread of Life", "speaker": "Ann Lee", "date": "2025-11-09"])["id"]?.stringValue)
            try a.call("note.add", ["sermonId": .string(sid), "text": "I am the bread of life (John 6:35)", "timestamp": 95])
            let hostile = "<script>alert(1)</script><img src=x onerror=\"document.body.setAttribute('data-pwned','yes')\">"
            try a.call("note.add", ["sermonId": .string(sid), "text": .string(hostile), "timestamp": 754])
            try a.call("summary.set", ["sermonId": .string(sid), "title": "Key points", "type": "bullet",
                                       "text": "- Jesus satisfies\n- Come and believe"])
            try a.call("sermon.publish", ["id": .string(sid)])
            try rig.syncAll()
            let url = try #require(try a.call("sermon.get", ["id": .string(sid)])["publication"]?["url"]?.stringValue)

            let dom = try Self.chromium(["--dump-dom"], url, profile: profile)
            #expect(dom.status == 0, "\(dom.stderr.suffix(2000))")
            let html = dom.stdout
            #expect(html.contains("<title>The Bread of Life</title>"), "\(html)")
            #expect(html.contains("Ann Lee") && html.contains("9 November 2025"))
            #expect(html.contains("01:35") && html.contains("I am the bread of life (John 6:35)"))
            #expect(html.contains("12:34"))
            #expect(html.contains("Jesus satisfies") && html.contains("Come and believe"))
            // The hostile note is shown as its text; no element of it exists and its handler never ran.
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror="), "\(html)")
            #expect(!html.contains("<img") && !html.contains("data-pwned=\"yes\"") && !html.contains("<script>alert"))
            #expect(!html.contains("<script"), "the page has no script of its own either")

            let png = "\(Self.artifacts)/publish-page-\(UUID().uuidString.prefix(8)).png"
            let shot = try Self.chromium(["--screenshot=\(png)", "--window-size=412,1400", "--hide-scrollbars"], url, profile: profile)
            #expect(shot.status == 0, "\(shot.stderr.suffix(2000))")
            let bytes = try #require(FileManager.default.contents(atPath: png))
            #expect(bytes.count > 1000 && Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
            print("screenshot of the public page: \(png)")
        }
    }
}
