import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §8.2's recovery at start, for the recordings there is nothing of: a daemon killed before the first
/// page of its file reached the disk leaves a marker (`recording.json`) whose file is empty, holds no intact
/// Ogg page, or is not there at all. No sound server is needed: recovery runs at every start.
@Suite("recording: an interrupted recording with nothing written")
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
        #expect(d.log.contains("tnotesd ready"), "\(d.log)")
        #expect(!d.log.contains(said) && !d.log.contains("recording could not be recovered"), "said again at the next start")
    }
}
