import Foundation
import Synchronization
import Testing
import TNotesCore
import TNotesTestSupport

// Contract §8.2: recording from a real PulseAudio server of the test's own (a null sink; espeak-ng speech
// played into it with paplay, recorded from its monitor), into a real daemon; the file checked with ffprobe.
@Suite("recording (contract §8.2)", .serialized, .enabled(if: PulseAudioFixture.available, "needs pulseaudio, pulseaudio-utils and espeak-ng (apt-get install pulseaudio pulseaudio-utils espeak-ng)"))
struct RecordingFlowTests {
    static let words = "In the beginning was the Word, and the Word was with God, and the Word was God. "
        + "The same was in the beginning with God. All things were made by him."

    /// ffprobe's codec and duration of a file.
    static func probe(_ path: String) throws -> (codec: String, seconds: Double) {
        let r = try ProcessRunner.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration:stream=codec_name",
                                                           "-of", "json", path])
        let j = try JSON.parse(r.stdout)
        return (j["streams"]?.arrayValue?.first?["codec_name"]?.stringValue ?? "",
                Double(j["format"]?["duration"]?.stringValue ?? "") ?? -1)
    }

    static func daemon(_ pulse: PulseAudioFixture) throws -> DaemonProcess {
        try DaemonProcess(environment: ["PULSE_SERVER": pulse.server]).start()
    }

    @Test("speech is recorded as Ogg Opus as long as elapsed; notes take the clock; pause stops it; live partials, then a transcript that hears the words")
    func recordSpeech() throws {
        let pulse = try PulseAudioFixture()
        let d = try Self.daemon(pulse)
        defer { d.stop() }
        let c = try d.client()
        let watcher = try d.client()
        _ = try watcher.call("events.subscribe", ["topics": ["transcript.partial", "recording.state", "recording.level"]])

        let speech = try pulse.speech(Self.words)
        let started = try c.call("recording.start", ["title": "Recorded sermon", "speaker": "Pastor Test"])
        let t0 = Date()
        #expect(started["state"] == "recording")
        let sid = try #require(started["sermonId"]?.stringValue)
        let player = pulse.playInBackground(speech.path)

        // Notes at about 5 s and 10 s of wall time, without a timestamp: the recording's clock.
        var loudest = -200.0
        var notes: [(wall: Double, stamp: Double)] = []
        for at in [5.0, 10.0] {
            while Date().timeIntervalSince(t0) < at {
                loudest = max(loudest, try c.call("recording.status")["level"]?.doubleValue ?? -200)
                usleep(100_000)
            }
            let note = try c.call("note.add", ["sermonId": .string(sid), "text": .string("note at \(Int(at)) s")])
            notes.append((Date().timeIntervalSince(t0), try #require(note["timestamp"]?.doubleValue)))
        }
        player.cancel()
        // The transcript so far, while it records.
        let sofar = try c.call("sermon.get", ["id": .string(sid)])["transcript"]
        #expect(sofar?["status"] == "processing" && !(sofar?["segments"]?.arrayValue ?? []).isEmpty,
                "sermon.get during the recording: \(sofar?.text ?? "no transcript")")
        #expect(loudest > -60, "the level never rose above -60 dBFS while speech played: \(loudest)")
        for n in notes { #expect(abs(n.stamp - n.wall) <= 1.5, "a note added \(n.wall) s in was stamped \(n.stamp)") }

        // Pause: the clock stops; resume: it goes on.
        let paused = try c.call("recording.pause")
        #expect(paused["state"] == "paused")
        sleep(2)
        let whilePaused = try c.call("recording.status")["elapsed"]?.doubleValue ?? -1
        #expect(abs(whilePaused - (paused["elapsed"]?.doubleValue ?? 0)) < 0.3, "the clock moved while paused")
        #expect(try c.call("recording.resume")["state"] == "recording")
        sleep(1)
        let stopped = try c.call("recording.stop")
        let wall = Date().timeIntervalSince(t0)
        #expect(stopped["state"] == "stopped" && stopped["reason"] == "requested", "\(stopped.text)")
        let elapsed = try #require(stopped["elapsed"]?.doubleValue)
        #expect(abs(elapsed - (wall - 2)) <= 2, "elapsed \(elapsed) s after \(wall) s with a 2 s pause")
        #expect(try c.call("recording.status") == ["state": "idle"])

        // The audio: attached as an import attaches it, Ogg Opus, as long as elapsed.
        let audio = try #require(stopped["sermon"]?["audio"])
        #expect((audio["sizeBytes"]?.int64Value ?? 0) > 1000)
        #expect(audio["sha256"]?.stringValue.map { $0.count == 64 && $0.allSatisfy { "0123456789abcdef".contains($0) } } == true)
        let path = try #require(try c.call("audio.path", ["sermonId": .string(sid)])["path"]?.stringValue)
        let probed = try Self.probe(path)
        #expect(probed.codec == "opus")
        #expect(abs(probed.seconds - elapsed) <= 2, "ffprobe says \(probed.seconds) s, elapsed \(elapsed) s")

        // Live partials arrived while the speech played (before the stop's state event).
        var partials: [JSON] = []
        var levels = 0
        while let line = try watcher.readLine(timeout: 1) {
            let e = try JSON.parse(line)["params"] ?? .null
            if e["topic"] == "transcript.partial" { partials.append(e) }
            if e["topic"] == "recording.level", e["level"]?.doubleValue != nil { levels += 1 }
            if e["topic"] == "recording.state", e["state"] == "stopped" { break }
        }
        #expect(!partials.isEmpty, "no transcript.partial event while speech played")
        // About ten level events a second, paused or not.
        #expect(Double(levels) >= (wall - 1.5) * 7, "\(levels) recording.level events in \(wall) s")
        #expect(partials.allSatisfy { $0["sermonId"]?.stringValue == sid })

        // The transcription queued at stop runs as one asked for by hand (nice 10): the person waits for it,
        // and a busy machine does not starve it as it would a SCHED_IDLE job. It hears the words.
        let job = try #require(try c.call("jobs.list", ["sermonId": .string(sid)]).arrayValue?.first)
        #expect(job["kind"] == "transcribe" && job["params"]?["byHand"] == true, "\(job.text)")
        var text = ""
        eventually(timeout: 90, every: 0.5) {
            let t = (try? c.call("sermon.get", ["id": .string(sid)]))?["transcript"]
            guard t?["status"] == "complete" else { return false }
            text = t?["text"]?.stringValue?.lowercased() ?? ""
            return true
        }
        #expect(text.contains("beginning") || text.contains("word") || text.contains("god"), "the transcript: \(text)")
        let kept = try c.call("sermon.get", ["id": .string(sid)])
        #expect(kept["notes"]?.arrayValue?.count == 2 && kept["speaker"] == "Pastor Test")
    }

    @Test("errors: a second start, stop/pause with nothing recording, an unknown source, no sound server; audio.sources")
    func errors() throws {
        let pulse = try PulseAudioFixture()
        let d = try Self.daemon(pulse)
        defer { d.stop() }
        let c = try d.client()
        let sources = try c.call("audio.sources")["items"]?.arrayValue ?? []
        #expect(sources.contains { $0["name"] == "tn.monitor" && $0["isDefault"] == true }, "\(sources)")
        #expect(try c.call("recording.status") == ["state": "idle"])
        #expect(try c.callError("recording.stop").code == -32001)
        #expect(try c.callError("recording.pause").code == -32001)
        let sermon = try c.call("sermon.create", ["title": "Not recording"])
        let noClock = try c.callError("note.add", ["sermonId": sermon["id"] ?? .null, "text": "no time"])
        #expect(noClock.code == -32602 && noClock.data?["field"] == "timestamp", "\(noClock)")
        let badSource = try c.callError("recording.start", ["source": "no.such.source"])
        #expect(badSource.code == -32602 && badSource.data?["field"] == "source", "\(badSource)")
        #expect(try c.call("recording.status") == ["state": "idle"], "a refused start left a recording")

        // A named source.
        let named = try c.call("recording.start", ["sermonId": sermon["id"] ?? .null, "source": "tn.monitor"])
        #expect(named["source"] == "tn.monitor" && named["state"] == "recording")
        #expect(try c.callError("recording.start").code == -32002)
        #expect(try c.call("recording.stop")["state"] == "stopped")

        // A daemon whose sound server is not there: -32005 naming it.
        let dead = "unix:\(pulse.dir.file("nobody.sock"))"
        let lonely = try DaemonProcess(environment: ["PULSE_SERVER": dead]).start()
        defer { lonely.stop() }
        let l = try lonely.client()
        for method in ["recording.start", "audio.sources"] {
            let e = try l.callError(method)
            #expect(e.code == -32005 && e.message.contains(dead), "\(method): \(e)")
        }
        #expect(try l.call("sermon.list")["items"]?.arrayValue?.isEmpty == true, "a refused start created a sermon")
    }

    @Test("kill -9 mid-recording: the next start attaches the audio up to at most 2.5 s before the kill; with transcribe = false, the live transcript saved before it says failed")
    func crash() throws {
        let pulse = try PulseAudioFixture()
        let d = try Self.daemon(pulse, recording: "transcribe = false")
        defer { d.stop() }
        let c = try d.client()
        let speech = try pulse.speech(Self.words)
        let sid = try #require(try c.call("recording.start", ["title": "Interrupted"])["sermonId"]?.stringValue)
        let player = pulse.playInBackground(speech.path)
        sleep(5)
        // The live transcript's first save (at once, as soon as there is a segment).
        #expect(eventually(timeout: 45, every: 0.2) { (try? c.call("sermon.get", ["id": .string(sid)]))?["transcript"]?["status"] == "processing" },
                "no live transcript was saved while speech played")
        let before = try #require(try c.call("recording.status")["elapsed"]?.doubleValue)
        // The live recogniser, a child of the daemon, must hold none of the daemon's sockets. It used to hold
        // them all (SwiftNIO's are not close-on-exec), and it outlives a kill -9 until it has read its input to
        // the end: meanwhile the restart found the socket "already listening", and a client's call reached the
        // orphan's copy of it and was never answered (a CI run failed so).
        let recogniser = try #require(ProcessTree.recognizerWorker(of: d.pid), "no live recogniser runs beside the recording")
        #expect(ProcessTree.sockets(of: d.pid)?.isEmpty == false, "the daemon's own sockets are not seen: the check below would prove nothing")
        #expect(ProcessTree.sockets(of: recogniser) == [], "the recogniser holds sockets of the daemon that started it")
        d.kill9()
        player.cancel()
        try d.start()
        let c2 = try d.client()
        let sermon = try d.withLog { try c2.call("sermon.get", ["id": .string(sid)]) }
        let audio = try #require(sermon["audio"]?.objectValue, "no audio attached after the restart: \(sermon.text)")
        #expect((audio["sizeBytes"]?.int64Value ?? 0) > 0)
        let path = try #require(try c2.call("audio.path", ["sermonId": .string(sid)])["path"]?.stringValue)
        let probed = try Self.probe(path)
        #expect(probed.codec == "opus")
        #expect(probed.seconds >= before - 2.5, "kept \(probed.seconds) s of the \(before) s recorded before the kill")
        #expect(try c2.call("recording.status") == ["state": "idle"])
        #expect(d.log.contains("recording recovered after an unclean stop"))
        // No job follows (transcribe = false), and the recogniser never heard the end: the transcript it saved
        // says failed, with its text, not processing for ever.
        #expect(sermon["transcript"]?["status"] == "failed" && sermon["transcriptionStatus"] == "failed", "\(sermon.text)")
        #expect((sermon["transcript"]?["text"]?.stringValue ?? "") != "", "\(sermon.text)")
    }

    @Test("with transcribe = false, a daemon stopped while the live transcript still catches up marks it failed, not processing for ever; recorded again, the sermon gets the new live transcript")
    func shutdownCutsTheLiveTranscript() throws {
        let pulse = try PulseAudioFixture()
        let d = try Self.daemon(pulse, recording: "transcribe = false")
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("recording.start", ["title": "Cut short"])["sermonId"]?.stringValue)
        let player = pulse.playInBackground(try pulse.speech(Self.words).path)
        defer { player.cancel() }
        #expect(eventually(timeout: 45, every: 0.2) { (try? c.call("sermon.get", ["id": .string(sid)]))?["transcript"]?["status"] == "processing" },
                "no live transcript was saved while speech played")
        // The recogniser stopped (SIGSTOP): the audio after this waits for it, so at the daemon's stop the live
        // transcript is still behind, as on a slow machine.
        let recogniser = try #require(ProcessTree.recognizerWorker(of: d.pid), "no live recogniser runs beside the recording")
        kill(recogniser, SIGSTOP)
        defer { kill(recogniser, SIGKILL) }
        sleep(1)
        let stopped = try c.call("recording.stop")
        #expect(stopped["error"] == nil, "\(stopped.text)")
        // While it catches up, a marker (named after the recording's file) holds its sermon: a crash now would
        // leave it for the next start to settle.
        let markers = Self.liveMarkers(d)
        #expect(markers.map(\.sermonId) == [sid], "no marker while the live transcript catches up: \(markers)")
        let marker = markers.first?.path ?? "?"
        let t0 = Date()
        #expect(d.stop(timeout: 20) == 0, "\(d.log)")
        #expect(Date().timeIntervalSince(t0) < 10, "the stop waited \(Date().timeIntervalSince(t0)) s")
        let log = d.log
        #expect(log.contains("the daemon stopped before the live transcript had heard the whole recording"), "\(log)")
        kill(recogniser, SIGKILL)
        try d.start()
        let sermon = try d.client().call("sermon.get", ["id": .string(sid)])
        #expect(sermon["transcript"]?["status"] == "failed" && sermon["transcriptionStatus"] == "failed", "\(sermon.text)")
        // The stop settled it: nothing is left for this start.
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(!d.log.contains("cut short by an unclean stop"), "\(d.log)")

        // Recorded again: its audio replaces the old at the stop, and its live transcript replaces the old one
        // (which, being no longer `processing`, used to keep it from saving at all).
        let c3 = try d.client()
        #expect(try c3.call("recording.start", ["sermonId": .string(sid)])["state"] == "recording")
        let again = pulse.playInBackground(try pulse.speech("The Lord is my shepherd; I shall not want.", name: "again.wav").path)
        defer { again.cancel() }
        var now = JSON.null
        #expect(eventually(timeout: 45, every: 0.2) {
            now = (try? c3.call("sermon.get", ["id": .string(sid)])) ?? .null
            return now["transcript"]?["status"] == "processing"
        }, "the new recording's live transcript never replaced the old one: \(now.text)")
        #expect(try c3.call("recording.stop")["error"] == nil)
        #expect(eventually(timeout: 30, every: 0.2) {
            now = (try? c3.call("sermon.get", ["id": .string(sid)])) ?? .null
            return now["transcript"]?["status"] == "complete"
        }, "\(now.text)")
        #expect(now["transcript"]?["text"] != sermon["transcript"]?["text"], "still the first recording's words: \(now.text)")
    }

    @Test("with transcribe = false, a sermon recorded again while its last live transcript still catches up: a start that fails leaves it alone; one that starts takes over, and the old one never writes over the new")
    func recordedAgainWhileCatchingUp() throws {
        let pulse = try PulseAudioFixture()
        let d = try Self.daemon(pulse, recording: "transcribe = false")
        defer { d.stop() }
        let c = try d.client()
        func transcript(_ sid: String) -> JSON { (try? c.call("sermon.get", ["id": .string(sid)]))?["transcript"] ?? .null }
        /// Records `words` until a first live save, stops the recogniser (SIGSTOP) and the recording: its live
        /// transcript is left catching up. Returns the stopped recogniser.
        func recordAndLeaveBehind(_ sid: String?, _ words: String, _ name: String) throws -> (sermonId: String, recogniser: Int32) {
            var params: JSONObject = ["title": "Recorded twice"]
            if let sid { params["sermonId"] = .string(sid) }
            let id = try #require(try c.call("recording.start", .object(params))["sermonId"]?.stringValue)
            let player = pulse.playInBackground(try pulse.speech(words, name: name).path)
            defer { player.cancel() }
            #expect(eventually(timeout: 45, every: 0.2) { transcript(id)["status"] == "processing" }, "no live save")
            let recogniser = try #require(ProcessTree.recognizerWorker(of: d.pid), "no live recogniser")
            kill(recogniser, SIGSTOP)
            sleep(1)
            #expect(try c.call("recording.stop")["error"] == nil)
            #expect(Self.liveMarkers(d).map(\.sermonId) == [id], "\(Self.liveMarkers(d))")
            return (id, recogniser)
        }
        // 1. A start that fails (no such source) leaves the earlier live transcript alone: woken, it finishes, and
        // its last save says complete.
        let (sid, first) = try recordAndLeaveBehind(nil, Self.words, "first.wav")
        defer { kill(first, SIGKILL) }
        #expect(throws: (any Error).self) { try c.call("recording.start", ["sermonId": .string(sid), "source": "no-such-source"]) }
        kill(first, SIGCONT)
        #expect(eventually(timeout: 45, every: 0.2) { transcript(sid)["status"] == "complete" }, "\(transcript(sid).text)")
        #expect(eventually(timeout: 10) { Self.liveMarkers(d).isEmpty }, "\(Self.liveMarkers(d))")

        // 2. A start that succeeds takes over: the earlier live transcript, woken, saves nothing more, and the
        // new recording's transcript is the sermon's.
        let (_, second) = try recordAndLeaveBehind(sid, Self.words, "second.wav")
        defer { kill(second, SIGKILL) }
        let leftBehind = transcript(sid)["text"]
        #expect(try c.call("recording.start", ["sermonId": .string(sid)])["state"] == "recording")
        let player = pulse.playInBackground(try pulse.speech("The Lord is my shepherd; I shall not want.", name: "third.wav").path)
        defer { player.cancel() }
        #expect(eventually(timeout: 45, every: 0.2) { transcript(sid)["status"] == "processing" && transcript(sid)["text"] != leftBehind },
                "the new recording's live transcript did not take over: \(transcript(sid).text)")
        // Woken, the old live transcript ends (its recogniser with it) before the new recording stops: whatever
        // it would save, it would have saved by then.
        kill(second, SIGCONT)
        #expect(eventually(timeout: 45, every: 0.2) {
            let stat = (try? String(contentsOfFile: "/proc/\(second)/stat", encoding: .utf8)) ?? ""
            return stat.isEmpty || stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }, "the old live transcript's recogniser did not end")
        sleep(1)
        #expect(try c.call("recording.stop")["error"] == nil)
        var last = JSON.null
        #expect(eventually(timeout: 45, every: 0.2) { last = transcript(sid); return last["status"] == "complete" }, "\(last.text)")
        // The superseded transcript is cumulative: had it saved again, the sermon's text would begin with what it
        // had saved before.
        let old = leftBehind?.stringValue ?? "", final = last["text"]?.stringValue ?? ""
        #expect(!old.isEmpty && !final.hasPrefix(old), "the superseded live transcript wrote over the new one: \(last.text)")
    }

    @Test("a sermon deleted while it is recorded: notes typed after, the live transcript and the audio go to a sermon made for them, with its title (another if that one is deleted too); nothing is left for the next start")
    func deletedWhileRecording() throws {
        let pulse = try PulseAudioFixture()
        let d = try Self.daemon(pulse)
        defer { d.stop() }
        let c = try d.client()
        let watcher = try d.client()
        _ = try watcher.call("events.subscribe", ["topics": ["transcript.partial"]])
        let speech = try pulse.speech(Self.words)
        let sid = try #require(try c.call("recording.start", ["title": "Deleted meanwhile", "speaker": "Pastor Test"])["sermonId"]?.stringValue)
        let player = pulse.playInBackground(speech.path)
        sleep(2)
        let deletedAt = try c.call("recording.status")["elapsed"]?.doubleValue ?? 0
        try c.call("sermon.delete", ["id": .string(sid)])
        // A note typed after the delete is not refused: it goes to the sermon made for the audio. That sermon,
        // deleted in turn, gives way to another: the next note and the audio go there.
        let first = try c.call("note.add", ["sermonId": .string(sid), "text": "typed after the delete"])
        let madeFirst = try #require(first["sermonId"]?.stringValue)
        #expect(madeFirst != sid, "\(first.text)")
        try c.call("sermon.delete", ["id": .string(madeFirst)])
        let late = try c.call("note.add", ["sermonId": .string(sid), "text": "typed after both deletes"])
        #expect(late["sermonId"]?.stringValue != madeFirst && late["sermonId"]?.stringValue != sid, "\(late.text)")
        sleep(1)
        let stopped = try c.call("recording.stop")
        player.cancel()
        #expect(stopped["error"] == nil, "\(stopped.text)")
        let kept = try #require(stopped["sermonId"]?.stringValue)
        #expect(kept != sid, "\(stopped.text)")
        let sermon = try c.call("sermon.get", ["id": .string(kept)])
        #expect(sermon["title"] == "Deleted meanwhile (recording)" && sermon["speaker"] == "Pastor Test", "\(sermon.text)")
        #expect((sermon["audio"]?["sizeBytes"]?.int64Value ?? 0) > 1000, "\(sermon.text)")
        #expect(late["sermonId"]?.stringValue == kept, "\(late.text)")
        let notes = sermon["notes"]?.arrayValue ?? []
        #expect(notes.count == 1 && notes.first?["text"] == "typed after both deletes", "\(sermon.text)")
        #expect((notes.first?["timestamp"]?.doubleValue ?? 0) >= deletedAt, "the note takes the recording's clock: \(sermon.text)")
        #expect(try c.call("sermon.get", ["id": .string(sid)])["deletedAt"] != .null, "the deleted sermon came back")
        #expect(d.log.contains("the recorded sermon was deleted while it recorded"))
        // A segment of audio heard after the delete (the live recogniser catches up after the stop) makes a save
        // after it, which goes to the new sermon: said once, at info, and no save fails. Whether the recogniser
        // heard anything after the delete depends on the machine's pace, so the line is only required when a
        // segment shows it did.
        var heardAfterDelete = false
        while !heardAfterDelete, let line = try watcher.readLine(timeout: 5) {
            let segments = try JSON.parse(line)["params"]?["segments"]?.arrayValue ?? []
            heardAfterDelete = segments.contains { ($0["end"]?.doubleValue ?? 0) > deletedAt + 0.5 }
        }
        if heardAfterDelete {
            #expect(eventually(timeout: 15) {
                d.log.split(separator: "\n").contains { $0.contains("its live transcript goes to the sermon its audio goes to") && $0.contains(" sermonId=\(kept)") }
            }, "\(d.log)")
        }
        #expect(!d.log.contains("live transcript not saved"), "\(d.log)")
        // Two sermons were made for the recording (the first deleted), and no stray one.
        let listed = try c.call("sermon.list", ["includeDeleted": true])["items"]?.arrayValue ?? []
        #expect(listed.filter { $0["title"] == "Deleted meanwhile (recording)" }.count == 2, "\(listed)")
        #expect(!FileManager.default.fileExists(atPath: "\(d.dataDir)/recording.json"), "the marker is left for the next start")
        #expect(d.stop() == 0)
        try d.start()
        #expect(!d.log.contains("recording could not be recovered") && !d.log.contains("recording recovered"), "\(d.log)")
    }

    @Test("tnotes record in a terminal: the clock advances, Enter adds a note, a resize redraws, q stops and the terminal is as it was")
    func terminalView() throws {
        let pulse = try PulseAudioFixture()
        let d = try Self.daemon(pulse)
        defer { d.stop() }
        var master: Int32 = 0, slave: Int32 = 0
        var size = winsize(ws_row: 20, ws_col: 70, ws_xpixel: 0, ws_ypixel: 0)
        #expect(openpty(&master, &slave, nil, nil, &size) == 0)
        defer { close(master) }
        var before = termios()
        tcgetattr(slave, &before)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in [Int32(0), 1, 2] { posix_spawn_file_actions_adddup2(&actions, slave, fd) }
        posix_spawn_file_actions_addclose(&actions, master)
        let arguments: [String] = [Binaries.path("tnotes"), "--socket", d.socketPath, "record", "--title", "In the pew"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        #expect(posix_spawn(&pid, Binaries.path("tnotes"), &actions, nil, argv, environ) == 0)

        var screen = [UInt8]()
        func pump(_ seconds: Double) {
            let end = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while Date() < end {
                var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 50) > 0 else { continue }
                let n = read(master, &buffer, buffer.count)
                if n <= 0 { return }
                screen += buffer[0..<n]
            }
        }
        pump(2.5)
        _ = "first note\r".utf8.withContiguousStorageIfAvailable { write(master, $0.baseAddress, $0.count) }
        pump(1.5)
        size = winsize(ws_row: 30, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        kill(pid, SIGWINCH)
        pump(0.8)
        _ = "q".utf8.withContiguousStorageIfAvailable { write(master, $0.baseAddress, $0.count) }
        var status: Int32 = 0
        let end = Date().addingTimeInterval(20)
        while waitpid(pid, &status, WNOHANG) == 0 && Date() < end { pump(0.2) }
        pump(0.2)
        var after = termios()
        tcgetattr(slave, &after)
        close(slave)

        let text = String(decoding: screen, as: UTF8.self)
        #expect((status & 0x7f) == 0 && (status >> 8) & 0xff == 0, "tnotes record exited \(status):\n\(text.suffix(800))")
        #expect(text.contains("  00:01  In the pew") || text.contains("  00:02  In the pew"), "the clock did not advance")
        #expect(text.contains("1 note added"), "Enter added no note")
        #expect(text.contains("stopped; sermon"))
        // The alternate screen was left after it was entered, and the line discipline is as before.
        let entered = text.range(of: "\u{1B}[?1049h", options: .backwards), left = text.range(of: "\u{1B}[?1049l", options: .backwards)
        #expect(entered != nil && left != nil && left!.lowerBound > entered!.lowerBound)
        #expect(after.c_lflag == before.c_lflag && after.c_iflag == before.c_iflag, "the terminal was not restored")
        let c = try d.client()
        #expect(try c.call("recording.status") == ["state": "idle"])
        let sermons = try c.call("sermon.list")["items"]?.arrayValue ?? []
        let sermon = try c.call("sermon.get", ["id": sermons.first?["id"] ?? .null])
        #expect(sermon["notes"]?.arrayValue?.first?["text"] == "first note" && sermon["audio"]?.isNull == false)
    }

    /// The markers of live transcripts still catching up (`live-transcripts/` in the data dir): each file's path
    /// and the sermon id it holds.
    static func liveMarkers(_ d: DaemonProcess) -> [(path: String, sermonId: String)] {
        let dir = "\(d.dataDir)/live-transcripts"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.sorted().map { ("\(dir)/\($0)", (try? String(contentsOfFile: "\(dir)/\($0)", encoding: .utf8)) ?? "") }
    }

    /// A daemon with `[recording]` settings of the test's own.
    static func daemon(_ pulse: PulseAudioFixture, recording: String) throws -> DaemonProcess {
        let d = DaemonProcess(environment: ["PULSE_SERVER": pulse.server])
        let config = d.dir.file("tnotesd.toml")
        try Data("[recording]\n\(recording)\n".utf8).write(to: URL(fileURLWithPath: config))
        d.extraArguments = ["--config", config]
        return try d.start()
    }

    /// Waits for the `recording.state` event that says the recording stopped.
    static func stoppedEvent(_ watcher: RPCClient, timeout: Double = 15) throws -> JSON? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end, let line = try watcher.readLine(timeout: max(0.1, end.timeIntervalSinceNow)) {
            let e = try JSON.parse(line)["params"] ?? .null
            if e["topic"] == "recording.state", e["state"] == "stopped" { return e }
        }
        return nil
    }

    @Test("it stops by itself, keeping what it has and saying why: max_duration, min_free_bytes, a source that goes away (with transcribe = false: the live transcript ends complete, no job)",
          arguments: ["max_duration", "min_free_bytes", "source"])
    func stopsByItself(cause: String) throws {
        let pulse = try PulseAudioFixture()
        // A 2-second limit; a free-space floor above any disk's free space; or the sink (and its monitor) unloaded.
        let d = try Self.daemon(pulse, recording: cause == "max_duration" ? "max_duration = 2"
                                              : cause == "min_free_bytes" ? "min_free_bytes = 9000000000000000000" : "transcribe = false")
        defer { d.stop() }
        let c = try d.client()
        let watcher = try d.client()
        _ = try watcher.call("events.subscribe", ["topics": ["recording.state"]])
        let sid = try #require(try c.call("recording.start", ["title": "Stops by itself"])["sermonId"]?.stringValue)
        if cause == "source" {
            // Speech first, until the live transcript has heard some (its first save is at once).
            let player = pulse.playInBackground(try pulse.speech(Self.words).path)
            #expect(eventually(timeout: 45, every: 0.2) { (try? c.call("sermon.get", ["id": .string(sid)]))?["transcript"]?["status"] == "processing" },
                    "no live transcript was saved while speech played")
            let r = try ProcessRunner.run("/usr/bin/pactl", ["unload-module", "module-null-sink"], environment: ["PULSE_SERVER": pulse.server])
            #expect(r.status == 0, "pactl: \(r.stderr)")
            player.cancel()
        }
        let stopped = try #require(try Self.stoppedEvent(watcher), "no recording.state event said it stopped")
        let expected = ["max_duration": "max_duration", "min_free_bytes": "disk_low", "source": "source_lost"][cause]
        #expect(stopped["reason"]?.stringValue == expected, "\(stopped.text)")
        let message = stopped["message"]?.stringValue ?? ""
        #expect(!message.isEmpty, "\(stopped.text)")
        // What it had is attached.
        eventually(timeout: 10, every: 0.1) { (try? c.call("recording.status")) == ["state": "idle"] }
        let sermon = try c.call("sermon.get", ["id": .string(sid)])
        #expect((sermon["audio"]?["sizeBytes"]?.int64Value ?? 0) > 0, "\(sermon.text)")
        if cause == "max_duration" { #expect(abs((stopped["elapsed"]?.doubleValue ?? 0) - 2) < 1.1, "\(stopped.text)") }
        if cause == "source" {
            // transcribe = false: no job follows, so the live transcript, once the recogniser has heard the end, is
            // the transcript, and says so (it used to stay `processing` for ever, and the sermon with it).
            var last = JSON.null
            let settled = eventually(timeout: 30, every: 0.2) {
                last = (try? c.call("sermon.get", ["id": .string(sid)])) ?? .null
                return last["transcript"]?["status"] == "complete"
            }
            #expect(settled, "the live transcript did not end complete: \(last.text)")
            #expect(last["transcriptionStatus"] == "complete", "\(last.text)")
            #expect((last["transcript"]?["text"]?.stringValue ?? "") != "", "\(last.text)")
            #expect(try c.call("jobs.list", ["sermonId": .string(sid)]).arrayValue?.isEmpty == true, "a job was queued with transcribe = false")
            // Its marker (written while it caught up, if it still did at the stop) went with its last save.
            #expect(eventually(timeout: 5) { Self.liveMarkers(d).isEmpty }, "the live transcript's marker is left behind")
        }
    }
}
