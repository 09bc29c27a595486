import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// kill -9 of device B while it downloads a sermon's audio, again and again: every restart resumes the
/// partial file, and what B finally keeps is byte-identical to the original (sha256), never a mix.
@Suite("reliability: crash during audio download", .serialized)
struct CrashDuringDownloadTests {
    @Test("B killed at random moments mid-download ends with the exact file")
    func killDuringDownload() throws {
        let rig = try SyncRig(proxied: [1], backoffBase: 0.1, backoffMax: 0.5)
        defer { rig.stop() }
        let proxy = try #require(rig.proxy)
        let ca = try rig.rpc(0)
        let source = rig.a.dir.file("sermon.m4a")
        let made = try ProcessRunner.run("/bin/sh", ["-c", "head -c 41943040 /dev/urandom > '\(source)'"])
        #expect(made.status == 0)
        let sha = try #require(try ProcessRunner.run("/usr/bin/sha256sum", [source]).stdout.split(separator: " ").first.map(String.init))
        let id = try #require(try ca.call("sermon.create", ["title": "With audio"])["id"]?.stringValue)
        try ca.call("audio.import", ["sermonId": .string(id), "path": .string(source)])
        try ca.call("sync.now", ["wait": true])
        #expect(try eventually(timeout: 60, every: 0.2) {
            try ca.call("sermon.get", ["id": .string(id)])["audio"]?["uploaded"] == true
        })

        // Slow B's downloads down (40 MiB at 16 MiB/s: about 2.5 s each) so that kills land inside them.
        proxy.latency = 0.05
        proxy.responseBytesPerSecond = 16 << 20
        let b = rig.b
        var rng = SystemRandomNumberGenerator()
        var kills = 0, killsWithPartial = 0
        let audioDir = "\(b.dataDir)/audio"
        for _ in 0..<8 {
            _ = try? b.client().call("sync.now", ["wait": false])
            usleep(UInt32.random(in: 50_000...400_000, using: &rng))
            let partial = (try? FileManager.default.contentsOfDirectory(atPath: audioDir))?.contains { $0.hasSuffix(".download") } ?? false
            if partial { killsWithPartial += 1 }
            b.kill9()
            kills += 1
            try b.start()
            // Before B's first pull has landed B does not know the sermon yet (not found): keep going.
            if (try? b.client().call("audio.path", ["sermonId": .string(id)]))?["localAvailable"] == true { break }
        }
        proxy.latency = 0
        proxy.responseBytesPerSecond = nil
        try b.client().call("sync.now", ["wait": true])
        var path: String?
        #expect(try eventually(timeout: 90, every: 0.2) {
            let r = try b.client().call("audio.path", ["sermonId": .string(id)])
            path = r["path"]?.stringValue
            return r["localAvailable"] == true
        }, "\(rig.logs())")
        let local = try #require(path)
        let got = try ProcessRunner.run("/usr/bin/sha256sum", [local]).stdout.split(separator: " ").first.map(String.init)
        #expect(got == sha, "B kept a file that is not the original")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: audioDir))?.filter { $0.hasSuffix(".download") } ?? []
        #expect(leftovers.isEmpty, "partial downloads left behind: \(leftovers)")
        #expect(killsWithPartial > 0, "no kill landed inside a download; the test proved nothing")
        print("crash-during-download: kills: \(kills), kills with a partial file on disk: \(killsWithPartial), final sha256 matches: \(got == sha)")
    }
}
