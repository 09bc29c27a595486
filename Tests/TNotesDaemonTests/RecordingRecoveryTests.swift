import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §8.2's recovery at start of a recording the daemon did not stop (`recording.json` left behind), in
/// the cases a kill -9 mid-recording does not reach: a file with nothing recoverable in it (empty, no intact Ogg
/// page, or not there: a power loss before its first pages reached the disk), and a sermon deleted before the
/// crash. No sound server is needed: recovery runs at every start.
@Suite("recording: recovery at start")
struct RecordingRecoveryTests {
    @Test("a marker whose file is empty, garbage or missing: the start says so once, forgets the marker and the file, and keeps the sermon",
          arguments: ["empty", "garbage", "missing"])
    func nothingWritten(file kind: String) throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let sid = try #require(try d.client().call("sermon.create", ["title": "Interrupted at once"])["id"]?.stringValue)
        #expect(d.stop() == 0)

        let audio = "\(d.dataDir)/audio"
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        let file = "\(audio)/\(sid)-1.opus"
        switch kind {
        case "empty": #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        case "garbage": #expect(FileManager.default.createFile(atPath: file, contents: Data(repeating: 0x4f, count: 5000)))
        default: break
        }
        let marker = "\(d.dataDir)/recording.json"
        let body: JSON = ["sermonId": .string(sid), "path": .string(file), "startedAt": "2026-11-30T00:00:00.000Z", "source": .null]
        try body.text.write(toFile: marker, atomically: true, encoding: .utf8)

        try d.start()
        let said = "recording interrupted before any of it was written: nothing to recover"
        #expect(d.log.components(separatedBy: said).count - 1 == 1, "\(d.log)")
        #expect(!d.log.contains("recording could not be recovered"))
        #expect(!FileManager.default.fileExists(atPath: marker), "the marker is still there: every start would try again")
        #expect(!FileManager.default.fileExists(atPath: file), "a file with nothing recorded in it is left behind")
        let c = try d.client()
        let sermon = try c.call("sermon.get", ["id": .string(sid)])
        #expect(sermon["title"] == "Interrupted at once" && sermon["audio"] == .null, "\(sermon.text)")
        #expect(try c.call("recording.status") == ["state": "idle"])

        // The next start (its log begins anew) has nothing left to say about it.
        #expect(d.stop() == 0)
        try d.start()
        // Recovery runs before the socket is bound, "ready" is logged just after: once it is there, the log
        // holds everything this start says about the recording.
        #expect(eventually(timeout: 10, every: 0.02) { d.log.contains("tnotesd ready") }, "\(d.log)")
        #expect(!d.log.contains(said) && !d.log.contains("recording could not be recovered"), "said again at the next start")
    }

    @Test("a live transcript a crash cut short while it caught up (transcribe = false) is marked failed at the next start, its marker gone; a finished one is left as it is")
    func liveTranscriptCutShort() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let c = try d.client()
        let cut = try #require(try c.call("sermon.create", ["title": "Cut short"])["id"]?.stringValue)
        let done = try #require(try c.call("sermon.create", ["title": "Heard to the end"])["id"]?.stringValue)
        try c.call("transcript.set", ["sermonId": .string(cut), "text": "in the beginning", "status": "processing"])
        try c.call("transcript.set", ["sermonId": .string(done), "text": "in the beginning was the word", "status": "complete"])
        #expect(d.stop() == 0)
        // The markers a crash leaves: one per live transcript still catching up (named after the recording's file,
        // holding its sermon's id), one that holds no sermon id, and a temporary file of a write the crash cut.
        let markers = "\(d.dataDir)/live-transcripts"
        try FileManager.default.createDirectory(atPath: markers, withIntermediateDirectories: true)
        for (name, content) in [("\(cut)-1.opus", cut), ("\(done)-2.opus", done), ("x-3.opus", "not-a-sermon"), ("\(cut)-4.opus.tmp", "")] {
            #expect(FileManager.default.createFile(atPath: "\(markers)/\(name)", contents: Data(content.utf8)))
        }
        try d.start()
        let c2 = try d.client()
        let cutShort = try c2.call("sermon.get", ["id": .string(cut)])
        #expect(cutShort["transcript"]?["status"] == "failed" && cutShort["transcriptionStatus"] == "failed", "\(cutShort.text)")
        #expect(cutShort["transcript"]?["text"] == "in the beginning", "its text is kept: \(cutShort.text)")
        let heard = try c2.call("sermon.get", ["id": .string(done)])
        #expect(heard["transcript"]?["status"] == "complete", "\(heard.text)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: markers))?.isEmpty == true, "markers left for the next start")
        // Said once: for the transcript it changed, not for the others.
        #expect(d.log.components(separatedBy: "a live transcript cut short by an unclean stop is marked failed").count - 1 == 1, "\(d.log)")
        #expect(!d.log.contains("still says processing"), "\(d.log)")
    }

    static let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")

    @Test("a recording whose sermon was deleted before the crash: recovery gives its audio to a new sermon, once, even when tried again",
          .enabled(if: hasFFmpeg, "needs ffmpeg (apt-get install ffmpeg) to make the Ogg Opus file"))
    func sermonDeletedBeforeRecovery() throws {
        let d = try DaemonProcess().start()
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Gone before the crash", "speaker": "Pastor Test"])["id"]?.stringValue)
        try c.call("sermon.delete", ["id": .string(sid)])
        #expect(d.stop() == 0)

        // A recording's file as a crash leaves it: Ogg Opus pages, the last one not marked end-of-stream is fine.
        let audio = "\(d.dataDir)/audio"
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        let file = "\(audio)/\(sid)-1.opus"
        let made = try ProcessRunner.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
                                                              "-ac", "1", "-c:a", "libopus", "-b:a", "24k", file])
        #expect(made.status == 0, "\(made.stderr)")
        let marker = "\(d.dataDir)/recording.json"
        let body: JSON = ["sermonId": .string(sid), "path": .string(file), "startedAt": "2026-11-30T00:00:00.000Z", "source": .null]

        func recordings() throws -> [JSON] {
            let items = try d.client().call("sermon.list")["items"]?.arrayValue ?? []
            return items.filter { $0["title"] == "Gone before the crash (recording)" }
        }
        // Once, and again as if the daemon had died after the attach but before the marker went.
        var first: JSON?
        for round in 1...2 {
            try body.text.write(toFile: marker, atomically: true, encoding: .utf8)
            try d.start()
            #expect(d.log.contains("recording recovered after an unclean stop"), "round \(round): \(d.log)")
            #expect(d.log.contains("the recorded sermon was deleted while it recorded"), "round \(round)")
            #expect(!FileManager.default.fileExists(atPath: marker), "round \(round): the marker is still there")
            let kept = try recordings()
            #expect(kept.count == 1, "round \(round): \(kept)")
            let sermon = try d.client().call("sermon.get", ["id": kept.first?["id"] ?? .null])
            #expect(sermon["speaker"] == "Pastor Test" && (sermon["audio"]?["sizeBytes"]?.int64Value ?? 0) > 1000, "\(sermon.text)")
            if round == 1 { first = sermon["audio"] } else { #expect(sermon["audio"] == first, "the audio changed on the second try") }
            #expect(try d.client().call("sermon.get", ["id": .string(sid)])["deletedAt"] != .null, "the deleted sermon came back")
            #expect(d.stop() == 0)
        }
    }
}
