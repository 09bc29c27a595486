import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Audio on demand (contract §8.7) with a real server, real daemons and the real CLI: `[sync] audio` and
/// `audio_cache_bytes`, `audio.fetch` / `tnotes audio fetch`, `audio.evict`, and kill -9 in the middle of both.
@Suite("audio on demand (contract §8.7)", .serialized)
struct AudioOnDemandTests {
    static let mebibyte = 1 << 20

    /// A server; device A (`always`) imports `files` sermons of 2 MiB audio each and uploads them; the other
    /// devices (`extras`, each a `[sync]` tail) go through the proxy and are started only when A is done.
    struct Rig {
        let rig: SyncRig
        let ids: [String]
        let shas: [String: String]

        init(files: Int, extras: [String]) throws {
            rig = try SyncRig(devices: 1 + extras.count, proxied: Set(1...extras.count), startDevices: false)
            let url = rig.proxy!.baseURL
            for (i, extra) in extras.enumerated() {
                let d = rig.devices[i + 1]
                let path = try d.dir.write("tnotesd.toml", syncConfigText(serverURL: url, backoffBase: 0.2, backoffMax: 1) + extra)
                d.extraArguments = ["--config", path]
            }
            try rig.a.start()
            let ca = try rig.rpc(0)
            var ids: [String] = [], shas: [String: String] = [:]
            for n in 0..<files {
                let source = rig.a.dir.file("sermon-\(n).ogg")
                try SyncAudioTests.randomFile(source, mebibytes: 2)
                let id = try #require(try ca.call("sermon.create", ["title": .string("Sermon \(n)")])["id"]?.stringValue)
                try ca.call("audio.import", ["sermonId": .string(id), "path": .string(source)])
                ids.append(id)
                shas[id] = try SyncAudioTests.sha256sum(source)
            }
            try ca.call("sync.now", ["wait": true])
            let uploaded = try eventually(timeout: 60, every: 0.2) {
                try ids.allSatisfy { try ca.call("sermon.get", ["id": .string($0)])["audio"]?["uploaded"] == true }
            }
            guard uploaded else { throw HarnessError("A did not upload its audio\n\(rig.logs())") }
            for d in rig.devices.dropFirst() { try d.start() }
            self.ids = ids
            self.shas = shas
        }

        var proxy: FaultProxy { rig.proxy! }
        func downloads() -> Int { proxy.seen(method: "GET", pathPrefix: "/v1/audio/").count }
        func stop() { rig.stop() }
    }

    /// What device `d` says of a sermon's audio, and what its audio directory holds under that sermon's name.
    static func state(_ d: DaemonProcess, _ id: String) throws -> (local: Bool, path: String?, files: [String]) {
        let c = try d.client()
        let local = try c.call("sermon.get", ["id": .string(id)])["audio"]?["localAvailable"] == true
        let path = try c.call("audio.path", ["sermonId": .string(id)])["path"]?.stringValue
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: "\(d.dataDir)/audio")) ?? [])
            .filter { $0.hasPrefix(id) && !$0.hasSuffix(".download") }
        return (local, path, files)
    }

    /// The store and the disk agree for every sermon: "here" means exactly one file under the sermon's name,
    /// the one `audio.path` gives, byte-exact; "not here" means no such file. Nil when they agree.
    static func disagreement(_ d: DaemonProcess, _ rig: Rig) throws -> String? {
        for id in rig.ids {
            let s = try state(d, id)
            if s.local {
                guard let path = s.path, s.files == [(path as NSString).lastPathComponent] else { return "\(id): local, but \(s)" }
                guard try SyncAudioTests.sha256sum(path) == rig.shas[id] else { return "\(id): the local file is not the audio" }
            } else if s.path != nil || !s.files.isEmpty {
                return "\(id): not local, but \(s)"
            }
        }
        return nil
    }

    static func localBytes(_ d: DaemonProcess) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(d.dataDir)/audio")) ?? [])
            .map { SyncAudioTests.fileSize("\(d.dataDir)/audio/\($0)") }.reduce(0, +)
    }

    static func cli(_ d: DaemonProcess, _ args: [String]) throws -> ProcessResult {
        try ProcessRunner.run(Binaries.path("tnotes"), ["--socket", d.socketPath] + args,
                              environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"], timeout: 120)
    }

    @Test("on-demand downloads nothing until asked, and tnotes audio fetch is byte-exact; never never downloads")
    func onDemandAndNever() throws {
        let rig = try Rig(files: 2, extras: ["audio = \"on-demand\"\n", "audio = \"never\"\n"])
        defer { rig.stop() }
        try rig.rig.withLogs {
            let b = rig.rig.devices[1], c = rig.rig.devices[2]
            try b.client().call("sync.now", ["wait": true])
            try c.client().call("sync.now", ["wait": true])
            // The audio queue's pass follows each sync; give it the time a download would take.
            Thread.sleep(forTimeInterval: 1.5)
            #expect(rig.downloads() == 0, "an on-demand or never device downloaded by itself")
            for d in [b, c] {
                let listed = try d.client().call("sermon.list")["items"]?.arrayValue ?? []
                #expect(listed.count == 2)
                #expect(listed.allSatisfy { $0["audio"]?["localAvailable"] == false }, "\(listed)")
                #expect(try Self.state(d, rig.ids[0]).local == false)
            }

            // B fetches by hand, with the CLI: one download, the exact bytes.
            let fetched = try Self.cli(b, ["audio", "fetch", rig.ids[0]])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(fetched.stdout.hasPrefix("fetched 2.1 MB: "), "\(fetched.stdout)")
            let s = try Self.state(b, rig.ids[0])
            #expect(s.local && s.path != nil)
            #expect(try SyncAudioTests.sha256sum(try #require(s.path)) == rig.shas[rig.ids[0]])
            #expect(rig.downloads() == 1)
            #expect(try Self.disagreement(b, rig) == nil)
            // On a terminal a line shows how far the download is (2 MiB at 1 MiB/s: about two seconds).
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/script") {
                rig.proxy.responseBytesPerSecond = 1 << 20
                let cmd = "'\(Binaries.path("tnotes"))' --socket '\(b.socketPath)' audio fetch \(rig.ids[1])"
                let tty = try ProcessRunner.run("/usr/bin/script", ["-qec", cmd, "/dev/null"],
                                                environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm"], timeout: 120)
                rig.proxy.responseBytesPerSecond = nil
                #expect(tty.stdout.contains("fetching audio: ") && tty.stdout.contains(" of 2.1 MB ("), "\(tty.stdout)")
                #expect(tty.stdout.contains("fetched 2.1 MB: "), "\(tty.stdout)")
                #expect(try Self.state(b, rig.ids[1]).local)
            }
            // Again: already here, nothing downloaded; --json gives the result.
            let again = try Self.cli(b, ["audio", "fetch", rig.ids[0], "--json"])
            let result = try JSON.parse(again.stdout)
            #expect(result["fetched"] == false && result["localAvailable"] == true && result["sizeBytes"]?.int64Value == 2 << 20)
            let fetchedSoFar = rig.downloads()

            // C never downloads: the fetch is refused before any request, and so is a transcription of audio it lacks.
            let refused = try c.client().callError("audio.fetch", ["sermonId": .string(rig.ids[0])])
            #expect(refused.code == -32005 && refused.message.contains("never"), "\(refused)")
            let cliRefused = try Self.cli(c, ["audio", "fetch", rig.ids[0]])
            #expect(cliRefused.status != 0 && cliRefused.stderr.contains("never"), "\(cliRefused.stderr)")
            let transcribe = try c.client().callError("transcript.generate", ["sermonId": .string(rig.ids[0])])
            #expect(transcribe.code == -32005, "\(transcribe)")
            #expect(rig.downloads() == fetchedSoFar)
            // Errors name what is wrong: an unknown sermon, a malformed id.
            #expect(try b.client().callError("audio.fetch", ["sermonId": .string(Identifier.make())]).code == -32001)
            #expect(try b.client().callError("audio.evict", ["sermonId": "nope"]).field == "sermonId")
        }
    }

    @Test("a cache smaller than two files keeps at most its budget; evicted copies come back; the only copy never goes")
    func cacheBudget() throws {
        let rig = try Rig(files: 3, extras: ["audio = \"on-demand\"\naudio_cache_bytes = \"3MiB\"\n"])
        defer { rig.stop() }
        try rig.rig.withLogs {
            let b = rig.rig.devices[1]
            let cb = try b.client()
            try cb.call("sync.now", ["wait": true])
            let events = try b.client()
            try events.call("events.subscribe", ["topics": ["audio.progress"]])
            let budget = 3 * Self.mebibyte

            for id in rig.ids + [rig.ids[0]] {
                let r = try cb.call("audio.fetch", ["sermonId": .string(id)])
                #expect(r["fetched"] == true)
                #expect(Self.localBytes(b) <= budget, "over the budget after fetching \(id)")
                #expect(try Self.state(b, id).local)
                #expect(try Self.disagreement(b, rig) == nil)
            }
            // Each fetch evicted the least recently used copy: only the last one is here.
            #expect(try rig.ids.map { try Self.state(b, $0).local } == [true, false, false])
            #expect(rig.downloads() == 4)
            let cache = try cb.call("sync.status")["audio"]
            #expect(cache?["mode"] == "on-demand" && cache?["cacheBytes"]?.int64Value == 3 << 20, "\(cache?.text ?? "-")")
            #expect(cache?["localFiles"]?.int64Value == 1 && cache?["localBytes"]?.int64Value == 2 << 20, "\(cache?.text ?? "-")")
            let shown = try Self.cli(b, ["sync", "status"])
            #expect(shown.stdout.contains("on-demand: 2.1 MB in 1 file here, cache 3.1 MB"), "\(shown.stdout)")

            // The events told it: fetching and done for each fetch, evicted for each copy that went.
            var seen: [(String, String)] = []
            while let line = try events.readLine(timeout: 2) {
                let p = try JSON.parse(line)["params"]
                if let id = p?["sermonId"]?.stringValue, let state = p?["state"]?.stringValue { seen.append((id, state)) }
            }
            #expect(seen.filter { $0.1 == "done" }.map(\.0) == rig.ids + [rig.ids[0]], "\(seen)")
            #expect(seen.filter { $0.1 == "evicted" }.map(\.0) == [rig.ids[0], rig.ids[1], rig.ids[2]], "\(seen)")

            // By hand: evicted once, then nothing to evict; a fetch brings it back.
            #expect(try cb.call("audio.evict", ["sermonId": .string(rig.ids[0])])["evicted"] == true)
            #expect(try cb.call("audio.evict", ["sermonId": .string(rig.ids[0])])["evicted"] == false)
            #expect(try Self.disagreement(b, rig) == nil)
            #expect(try Self.cli(b, ["audio", "evict", rig.ids[0]]).stdout.contains("was not on this device"))

            // B's own recording, not yet on the server (its uploads fail), is never evicted, and takes the room.
            rig.proxy.setFault(.respond(status: 503), method: "PUT", pathPrefix: "/v1/audio/")
            let mine = try #require(try cb.call("sermon.create", ["title": "B's own"])["id"]?.stringValue)
            let source = b.dir.file("own.ogg")
            try SyncAudioTests.randomFile(source, mebibytes: 2)
            try cb.call("audio.import", ["sermonId": .string(mine), "path": .string(source)])
            try cb.call("sync.now", ["wait": true])
            let onlyCopy = try cb.callError("audio.evict", ["sermonId": .string(mine)])
            #expect(onlyCopy.code == -32002 && onlyCopy.message.contains("only copy"), "\(onlyCopy)")
            let noRoom = try cb.callError("audio.fetch", ["sermonId": .string(rig.ids[1])])
            #expect(noRoom.code == -32005 && noRoom.message.contains("audio_cache_bytes"), "\(noRoom)")
            #expect(try Self.state(b, mine).local)
            #expect(Self.localBytes(b) <= budget)
        }
    }

    @Test("kill -9 during fetches and evictions: after each restart the store and the disk agree, and every file can be fetched")
    func killDuringFetchAndEvict() throws {
        let rig = try Rig(files: 3, extras: ["audio = \"on-demand\"\naudio_cache_bytes = 5000000\n"])
        defer { rig.stop() }
        let b = rig.rig.devices[1]
        try b.client().call("sync.now", ["wait": true])
        var rng = SystemRandomNumberGenerator()
        var killsWithPartial = 0
        try rig.rig.withLogs {
            for round in 0..<6 {
                // Slow downloads in the even rounds (a kill lands inside the transfer), fast in the odd ones (a kill
                // lands among evictions, verifications and renames).
                rig.proxy.responseBytesPerSecond = round % 2 == 0 ? 4 * Self.mebibyte : nil
                let worker = Thread {
                    guard let c = try? b.client() else { return }
                    for i in 0..<60 {
                        let id = rig.ids[i % rig.ids.count]
                        _ = try? c.call(i % 4 == 3 ? "audio.evict" : "audio.fetch", ["sermonId": .string(id)])
                    }
                }
                worker.start()
                usleep(UInt32.random(in: 100_000...900_000, using: &rng))
                let partial = ((try? FileManager.default.contentsOfDirectory(atPath: "\(b.dataDir)/audio")) ?? []).contains { $0.hasSuffix(".download") }
                if partial { killsWithPartial += 1 }
                b.kill9()
                try b.start()
                // The sweep at start settles what the kill cut short.
                var problem: String?
                let agreed = try eventually(timeout: 15, every: 0.2) {
                    problem = try Self.disagreement(b, rig)
                    return problem == nil
                }
                #expect(agreed, "round \(round): \(problem ?? "")")
            }
            rig.proxy.responseBytesPerSecond = nil
            for id in rig.ids {
                let r = try b.client().call("audio.fetch", ["sermonId": .string(id)])
                let path = try #require(r["path"]?.stringValue)
                #expect(try SyncAudioTests.sha256sum(path) == rig.shas[id])
            }
            #expect(try Self.disagreement(b, rig) == nil)
            #expect(killsWithPartial > 0, "no kill landed inside a download; the test proved less than it says")
        }
    }

    @Test("the sweep at start settles each state a kill can leave: a download moved into place but not recorded, an eviction half done, partials and import leftovers")
    func sweepSettlesLeftovers() throws {
        let rig = try Rig(files: 3, extras: ["audio = \"on-demand\"\n"])
        defer { rig.stop() }
        let b = rig.rig.devices[1]
        try rig.rig.withLogs {
            let cb = try b.client()
            try cb.call("sync.now", ["wait": true])
            let fetchedPath = try #require(try cb.call("audio.fetch", ["sermonId": .string(rig.ids[1])])["path"]?.stringValue)
            #expect(try cb.call("audio.evict", ["sermonId": .string(rig.ids[1])])["evicted"] == true)
            try #require(b.stop() == 0)
            let audio = "\(b.dataDir)/audio"
            let source = { (n: Int) in rig.rig.a.dir.file("sermon-\(n).ogg") }
            // ids[0]: the exact file under its name, no row (kill between the rename and the store write): kept.
            try FileManager.default.copyItem(atPath: source(0), toPath: "\(audio)/\(rig.ids[0]).ogg")
            // ids[1]: evicted in the store, the file still there (kill between the store write and the unlink): removed.
            try FileManager.default.copyItem(atPath: source(1), toPath: fetchedPath)
            // ids[2]: not the file the record names under its name: removed; a partial of other audio: removed; a
            // partial of its own audio: kept for the next fetch to resume.
            try SyncAudioTests.randomFile("\(audio)/\(rig.ids[2]).ogg", mebibytes: 1)
            try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: "\(audio)/\(rig.ids[2]).0123456789abcdef.download"))
            let sha2 = try #require(rig.shas[rig.ids[2]])
            let ownPartial = "\(audio)/\(rig.ids[2]).\(sha2.prefix(16)).download"
            let head = try ProcessRunner.run("/bin/sh", ["-c", "head -c 1048576 '\(source(2))' > '\(ownPartial)'"])
            #expect(head.status == 0)
            // An import the last process never finished: removed. Somebody else's file: left alone.
            try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: "\(audio)/\(rig.ids[2]).ogg.part-999999"))
            try Data(repeating: 2, count: 10).write(to: URL(fileURLWithPath: "\(audio)/notes.txt"))

            try b.start()
            // The sweep runs before any fetch: the first call waits for it.
            let resumed = try b.client().call("audio.fetch", ["sermonId": .string(rig.ids[2])])
            #expect(resumed["fetched"] == true)
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: audio))
            #expect(names == ["\(rig.ids[0]).ogg", "\(rig.ids[2]).ogg", "notes.txt"], "\(names.sorted())")
            #expect(try Self.disagreement(b, rig) == nil)
            #expect(try Self.state(b, rig.ids[0]).local, "the recovered download was not kept")
            // The recovered copy is not taken for uploaded until the server confirms it: the upload queue (which
            // takes only copies not uploaded) sends it once.
            try b.client().call("sync.now", ["wait": true])
            #expect(try eventually(timeout: 20, every: 0.2) {
                try b.client().call("sermon.get", ["id": .string(rig.ids[0])])["audio"]?["uploaded"] == true
            })
            #expect(rig.proxy.seen(method: "PUT", pathPrefix: "/v1/audio/\(rig.ids[0])").count == 1)
            // The resumed fetch asked only for the rest of its partial.
            let ranges = rig.proxy.seen(method: "GET", pathPrefix: "/v1/audio/\(rig.ids[2])").compactMap { $0.headers["range"] }
            #expect(ranges == ["bytes=1048576-"], "\(ranges)")
        }
    }

    @Test("the least recently used copy goes first (a copy used again stays); an import replaces a cached copy, and is the only copy")
    func leastRecentlyUsedAndImport() throws {
        let rig = try Rig(files: 3, extras: ["audio = \"on-demand\"\naudio_cache_bytes = 5000000\n"])
        defer { rig.stop() }
        try rig.rig.withLogs {
            let b = rig.rig.devices[1]
            let cb = try b.client()
            try cb.call("sync.now", ["wait": true])
            try cb.call("audio.fetch", ["sermonId": .string(rig.ids[0])])
            try cb.call("audio.fetch", ["sermonId": .string(rig.ids[1])])
            // Used again (already here: nothing downloaded), ids[0] is now the most recently used.
            #expect(try cb.call("audio.fetch", ["sermonId": .string(rig.ids[0])])["fetched"] == false)
            try cb.call("audio.fetch", ["sermonId": .string(rig.ids[2])])
            #expect(try rig.ids.map { try Self.state(b, $0).local } == [true, false, true])
            #expect(try Self.disagreement(b, rig) == nil)
            #expect(rig.downloads() == 3)

            // A new recording imported for ids[0] replaces its cached copy: the old file goes, the new one is the
            // only copy until it is uploaded, and is never evicted meanwhile.
            rig.proxy.setFault(.respond(status: 503), method: "PUT", pathPrefix: "/v1/audio/")
            let source = b.dir.file("new.ogg")
            try SyncAudioTests.randomFile(source, mebibytes: 1)
            let imported = try cb.call("audio.import", ["sermonId": .string(rig.ids[0]), "path": .string(source)])
            #expect(imported["audio"]?["uploaded"] == false && imported["audio"]?["localAvailable"] == true)
            let path = try #require(try cb.call("audio.path", ["sermonId": .string(rig.ids[0])])["path"]?.stringValue)
            #expect(try SyncAudioTests.sha256sum(path) == SyncAudioTests.sha256sum(source))
            let names = try FileManager.default.contentsOfDirectory(atPath: "\(b.dataDir)/audio").filter { $0.hasPrefix(rig.ids[0]) }
            #expect(names == [(path as NSString).lastPathComponent], "the replaced copy is gone: \(names)")
            #expect(try cb.callError("audio.evict", ["sermonId": .string(rig.ids[0])]).code == -32002)
            try cb.call("audio.fetch", ["sermonId": .string(rig.ids[1])])
            #expect(try Self.state(b, rig.ids[0]).local, "the only copy was evicted")
            #expect(try Self.state(b, rig.ids[2]).local == false)
        }
    }

    @Test("a copy a transcription reads is not evicted, by hand or by the cache; once the job ends it may go",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sleep")))
    func transcriptionPinsItsAudio() throws {
        let scratch = TempDirectory()
        let engine = try scratch.write("engine.sh", """
            #!/bin/sh
            sleep 3
            echo '{"text": "grace upon grace", "segments": [{"start": 0, "end": 1.5, "text": "grace upon grace"}]}'
            """)
        chmod(engine, 0o755)
        let processing = "[processing]\nauto_transcribe = false\ntranscriber = \"command\"\ntranscribe_command = [\"\(engine)\"]\n"
        let rig = try Rig(files: 2, extras: ["audio = \"on-demand\"\naudio_cache_bytes = 3000000\n" + processing])
        defer { rig.stop() }
        try rig.rig.withLogs {
            let b = rig.rig.devices[1]
            let cb = try b.client()
            try cb.call("sync.now", ["wait": true])
            // The job fetches ids[0] first, then the engine reads it for 3 s.
            let job = try #require(try cb.call("transcript.generate", ["sermonId": .string(rig.ids[0])])["jobId"]?.stringValue)
            #expect(try eventually(timeout: 20) {
                try cb.call("jobs.get", ["id": .string(job)])["state"] == "running" && Self.state(b, rig.ids[0]).local
            })
            let inUse = try cb.callError("audio.evict", ["sermonId": .string(rig.ids[0])])
            #expect(inUse.code == -32002 && inUse.message.contains("being read"), "\(inUse)")
            // The cache cannot make room for a second file without it: refused, and the copy stays.
            let noRoom = try cb.callError("audio.fetch", ["sermonId": .string(rig.ids[1])])
            #expect(noRoom.code == -32005, "\(noRoom)")
            #expect(try Self.state(b, rig.ids[0]).local)
            #expect(try eventually(timeout: 30) { try cb.call("jobs.get", ["id": .string(job)])["state"] == "done" })
            #expect(try cb.call("sermon.get", ["id": .string(rig.ids[0])])["transcript"]?["text"] == "grace upon grace")
            // Done: the cache may evict it now.
            #expect(try cb.call("audio.fetch", ["sermonId": .string(rig.ids[1])])["fetched"] == true)
            #expect(try Self.state(b, rig.ids[0]).local == false)
            #expect(try Self.disagreement(b, rig) == nil)
        }
    }
}
