import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Audio travels apart from the records: uploaded by the device that imported it, downloaded by the
/// others, verified by sha256, and resumed (Range) after an interrupted download.
@Suite("sync audio")
struct SyncAudioTests {
    static func randomFile(_ path: String, mebibytes: Int) throws {
        let r = try ProcessRunner.run("/bin/dd", ["if=/dev/urandom", "of=\(path)", "bs=1M", "count=\(mebibytes)"])
        guard r.status == 0 else { throw HarnessError("dd failed: \(r.stderr)") }
    }

    static func sha256sum(_ path: String) throws -> String {
        let r = try ProcessRunner.run("/usr/bin/sha256sum", [path], timeout: 120)
        guard r.status == 0, let hex = r.stdout.split(separator: " ").first else { throw HarnessError("sha256sum failed: \(r.stderr)") }
        return String(hex)
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test("50 MiB imported on A reaches B intact; a download cut off after 10 MiB resumes with Range")
    func largeAudioWithInterruptedDownload() throws {
        let rig = try SyncRig(proxied: [1], backoffBase: 0.2, backoffMax: 1)
        defer { rig.stop() }
        try rig.withLogs {
            let proxy = try #require(rig.proxy)
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let source = rig.a.dir.file("sermon.m4a")
            try Self.randomFile(source, mebibytes: 50)
            let sha = try Self.sha256sum(source)

            let id = try #require(try ca.call("sermon.create", ["title": "With audio"])["id"]?.stringValue)
            let imported = try ca.call("audio.import", ["sermonId": .string(id), "path": .string(source)])
            #expect(imported["audio"]?["sha256"]?.stringValue == sha)
            #expect(imported["audio"]?["sizeBytes"]?.int64Value == 50 << 20)
            try ca.call("sync.now", ["wait": true])
            #expect(try eventually(timeout: 60, every: 0.2) {
                try ca.call("sermon.get", ["id": .string(id)])["audio"]?["uploaded"] == true
            }, "\(rig.logs())")

            // B's first download is cut off after 10 MiB of the body; the retry must continue from there.
            proxy.setFault(.resetAfterResponseBytes(10 << 20), method: "GET", pathPrefix: "/v1/audio/", times: 1)
            try cb.call("sync.now", ["wait": true])
            #expect(try cb.call("sermon.get", ["id": .string(id)])["audio"]?["sha256"]?.stringValue == sha)
            var path: String?
            #expect(try eventually(timeout: 60, every: 0.2) {
                let r = try cb.call("audio.path", ["sermonId": .string(id)])
                path = r["path"]?.stringValue
                return r["localAvailable"] == true
            }, "\(rig.logs())")
            let local = try #require(path)
            #expect(try Self.sha256sum(local) == sha)
            #expect(Self.fileSize(local) == 50 << 20)

            let gets = proxy.seen(method: "GET", pathPrefix: "/v1/audio/")
            #expect(gets.first?.fault == .resetAfterResponseBytes(10 << 20))
            #expect(gets.count >= 2)
            // The retry asked only for the rest.
            let resumedFrom = gets.dropFirst().compactMap { $0.headers["range"] }.first
                .flatMap { Int($0.dropFirst("bytes=".count).prefix { $0.isNumber }) }
            #expect((resumedFrom ?? 0) > 0 && (resumedFrom ?? 0) <= 10 << 20, "range: \(gets.map { $0.headers["range"] ?? "-" })")
            #expect(gets.filter { $0.upstreamStatus == 200 || $0.upstreamStatus == 206 }.count == 2)
            let sermonOnB = try cb.call("sermon.get", ["id": .string(id)])
            #expect(sermonOnB["audio"]?["localAvailable"] == true)
        }
    }

    @Test("B asks for the audio before A has uploaded it (404s): the error answers do not poison the resumed download")
    func downloadBeforeUpload() throws {
        let rig = try SyncRig(proxied: [0, 1], backoffBase: 0.2, backoffMax: 1)
        defer { rig.stop() }
        try rig.withLogs {
            let proxy = try #require(rig.proxy)
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let source = rig.a.dir.file("early.mp3")
            try Self.randomFile(source, mebibytes: 4)
            let sha = try Self.sha256sum(source)

            proxy.setFault(.respond(status: 503), method: "PUT", pathPrefix: "/v1/audio/")
            let id = try #require(try ca.call("sermon.create", ["title": "Early bird"])["id"]?.stringValue)
            try ca.call("audio.import", ["sermonId": .string(id), "path": .string(source)])
            try ca.call("sync.now", ["wait": true])
            try cb.call("sync.now", ["wait": true])
            // B has tried (and got 404) at least twice before the upload is let through.
            #expect(eventually(timeout: 20, every: 0.1) {
                proxy.seen(method: "GET", pathPrefix: "/v1/audio/").filter { $0.upstreamStatus == 404 }.count >= 2
            })
            proxy.passThrough()
            var path: String?
            #expect(try eventually(timeout: 30, every: 0.2) {
                let r = try cb.call("audio.path", ["sermonId": .string(id)])
                path = r["path"]?.stringValue
                return r["localAvailable"] == true
            }, "\(rig.logs())")
            #expect(try Self.sha256sum(try #require(path)) == sha)
            let ok = proxy.seen(method: "GET", pathPrefix: "/v1/audio/").filter { ($0.upstreamStatus ?? 0) / 100 == 2 }
            // One whole download, from the start: nothing from a 404 body was kept and resumed from.
            #expect(ok.count == 1, "\(ok.map { "\($0.upstreamStatus ?? 0) \($0.headers["range"] ?? "-")" })")
            #expect(ok.first?.headers["range"] == nil)
            #expect(!rig.b.log.contains("expected \(sha)"))
        }
    }
}
