import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.1 acceptance 1 and 2: offline transcription by PocketSphinx of real speech, statuses that
/// follow the job and sync, and command engines that fail, time out, print garbage or get killed.
@Suite("processing: transcription jobs", .serialized)
struct TranscriptionJobTests {
    static let spoken = "Today we read from the book of Romans. There is therefore now no condemnation for those who are in Christ Jesus. "
        + "God is faithful and his love never fails. We should forgive one another as the Lord forgave us."

    static let hasEspeak = FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
    static let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")

    @Test("""
          PocketSphinx transcribes espeak-ng speech into timed segments; statuses go pending → processing → complete; B gets it by \
          sync; B, on demand, fetches the audio for a transcription asked for there
          """, .enabled(if: hasEspeak, "needs espeak-ng (apt-get install espeak-ng)"))
    func pocketSphinxTranscribesAndSyncs() throws {
        let dir = TempDirectory()
        let wav = try #require(try ProcessingHarness.speech(Self.spoken, in: dir))
        // A has auto_transcribe on; B has it on too but no audio, so it must not transcribe anything by itself.
        // B keeps audio on demand (contract §8.7), through a proxy that counts its downloads.
        let rig = try ProcessingHarness.rig(processing: [ProcessingHarness.config(), ProcessingHarness.config()], proxied: [1],
                                            sync: [1: "audio = \"on-demand\"\n"])
        defer { rig.stop() }
        try rig.withLogs {
            let a = try rig.rpc(0), b = try rig.rpc(1)
            let sid = try #require(try a.call("sermon.create", ["title": "Romans 8"])["id"]?.stringValue)
            let imported = try a.call("audio.import", ["sermonId": .string(sid), "path": .string(wav)])
            #expect(imported["transcriptionStatus"] == "pending")
            let job = try #require(try a.call("jobs.list", ["sermonId": .string(sid)]).arrayValue?.first)
            #expect(job["kind"] == "transcribe")
            let done = try ProcessingHarness.waitForJob(a, try #require(job["id"]?.stringValue))
            #expect(done["state"] == "done", "\(done.text)")

            let sermon = try a.call("sermon.get", ["id": .string(sid)])
            #expect(sermon["transcriptionStatus"] == "complete")
            let transcript = try #require(sermon["transcript"])
            let segments = transcript["segments"]?.arrayValue ?? []
            #expect(segments.count >= 2, "\(transcript.text)")
            // Times increase and lie inside the audio (about 12 s of speech; the WAV's length bounds it).
            let duration = try Self.wavDuration(wav)
            var last = -1.0
            for s in segments {
                let start = try #require(s["start"]?.doubleValue), end = try #require(s["end"]?.doubleValue)
                #expect(start >= last && end > start && end <= duration + 0.05, "\(s.text) of \(duration) s")
                last = end
            }
            // Several of the spoken words are recognised (the decoder is not perfect on synthetic speech).
            let heard = Set((transcript["text"]?.stringValue ?? "").lowercased().split { !$0.isLetter }.map(String.init))
            let said = Set(Self.spoken.lowercased().split { !$0.isLetter }.map(String.init))
            let common = heard.intersection(said)
            #expect(common.count >= 5, "recognised \(common.sorted()) of \(said.sorted()) in \(transcript.text)")

            // The statuses the sermon went through, as its history kept them.
            let statuses = try ProcessingHarness.statusHistory(a, sermonId: sid, field: "transcriptionStatus")
            #expect(statuses.suffix(3) == ["pending", "processing", "complete"], "\(statuses)")

            // B gets the transcript by sync and never ran a job.
            try rig.syncAll(order: [0, 1])
            let onB = try b.call("sermon.get", ["id": .string(sid)])
            #expect(onB["transcript"]?["segments"] == transcript["segments"])
            #expect(onB["transcriptionStatus"] == "complete")
            #expect(try b.call("jobs.list").arrayValue?.isEmpty == true)
            #expect(rig.proxy!.seen(method: "GET", pathPrefix: "/v1/audio/").isEmpty, "B downloaded audio nobody asked for")
            #expect(onB["audio"]?["localAvailable"] == false)
            // Asked for on B, the transcription fetches the audio first (one download), then transcribes it.
            let jobOnB = try #require(try b.call("transcript.generate", ["sermonId": .string(sid)])["jobId"]?.stringValue)
            let doneOnB = try ProcessingHarness.waitForJob(b, jobOnB)
            #expect(doneOnB["state"] == "done", "\(doneOnB.text)")
            #expect(rig.proxy!.seen(method: "GET", pathPrefix: "/v1/audio/").count == 1)
            let fetched = try b.call("sermon.get", ["id": .string(sid)])
            #expect(fetched["audio"]?["localAvailable"] == true && fetched["transcriptionStatus"] == "complete")
            #expect(fetched["transcript"]?["segments"]?.arrayValue?.isEmpty == false)
            // A sermon without audio cannot be transcribed: refused with the reason.
            let bare = try #require(try a.call("sermon.create", ["title": "No audio"])["id"]?.stringValue)
            let refused = try a.callError("transcript.generate", ["sermonId": .string(bare)])
            #expect(refused.code == -32005 && refused.message.contains("no audio"), "\(refused)")
        }
    }

    @Test("ffmpeg decodes other formats: an MP3 is transcribed too; a file that is not audio fails with ffmpeg's reason",
          .enabled(if: hasEspeak && hasFFmpeg, "needs espeak-ng and ffmpeg"))
    func mp3GoesThroughFFmpeg() throws {
        let dir = TempDirectory()
        let wav = try #require(try ProcessingHarness.speech("God is faithful and his love never fails.", in: dir))
        let mp3 = dir.file("speech.mp3")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-loglevel", "error", "-y", "-i", wav, "-ar", "44100", "-ac", "2", mp3]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config())
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "MP3"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(mp3)])
        let job = try #require(try c.call("jobs.list").arrayValue?.first?["id"]?.stringValue)
        let done = try ProcessingHarness.waitForJob(c, job)
        #expect(done["state"] == "done", "\(done.text)\n\(d.log.suffix(2000))")
        let text = try c.call("sermon.get", ["id": .string(sid)])["transcript"]?["text"]?.stringValue ?? ""
        #expect(!text.isEmpty)

        // Not audio at all: the job fails for good with ffmpeg's reason, and the daemon carries on.
        let junk = try dir.write("junk.mp3", String(repeating: "not audio ", count: 100))
        let sid2 = try #require(try c.call("sermon.create", ["title": "Junk"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid2), "path": .string(junk)])
        let job2 = try #require(try c.call("jobs.list", ["sermonId": .string(sid2)]).arrayValue?.first?["id"]?.stringValue)
        let failed = try ProcessingHarness.waitForJob(c, job2)
        #expect(failed["state"] == "failed")
        #expect(failed["lastError"]?.stringValue?.contains("ffmpeg") == true, "\(failed.text)")
        #expect(try c.call("sermon.get", ["id": .string(sid2)])["transcriptionStatus"] == "failed")
        #expect(try c.call("daemon.status")["pid"] != nil)
    }

    @Test("without ffmpeg, a non-WAV recording fails at once with an error naming the package; WAV still works",
          .enabled(if: hasEspeak, "needs espeak-ng"))
    func noFFmpeg() throws {
        let dir = TempDirectory()
        // The daemon finds ffmpeg on its PATH; this one has none.
        let d = DaemonProcess(environment: ["PATH": dir.path])
        let config = try d.dir.write("tnotesd.toml", "[sync]\nbackoff_base = 0.1\nbackoff_max = 0.2\n" + ProcessingHarness.config(maxAttempts: 3))
        d.extraArguments = ["--config", config]
        try d.start()
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "No ffmpeg"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(try dir.write("talk.mp3", "ID3 not really mp3"))])
        let job = try #require(try c.call("jobs.list").arrayValue?.first?["id"]?.stringValue)
        let failed = try ProcessingHarness.waitForJob(c, job, timeout: 30)
        #expect(failed["state"] == "failed" && failed["attempts"] == 1, "a missing program is not retried: \(failed.text)")
        #expect(failed["lastError"]?.stringValue?.contains("apt-get install ffmpeg") == true, "\(failed.text)")
        // A WAV needs no ffmpeg.
        let wav = try #require(try ProcessingHarness.speech("Grace and peace to you.", in: dir))
        let sid2 = try #require(try c.call("sermon.create", ["title": "WAV"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid2), "path": .string(wav)])
        let job2 = try #require(try c.call("jobs.list", ["sermonId": .string(sid2)]).arrayValue?.first?["id"]?.stringValue)
        #expect(try ProcessingHarness.waitForJob(c, job2)["state"] == "done")
    }

    @Test("a command engine that exits 1, times out or prints garbage ends failed with the reason; jobs.retry runs it again")
    func commandEngineFailures() throws {
        let dir = TempDirectory()
        let flag = dir.file("works")
        let engine = try ProcessingHarness.script(dir, "engine.sh", """
            case "$MODE" in esac
            if [ -f "\(flag)" ]; then echo '{"text": "Grace and peace.", "segments": [{"start": 0.5, "end": 2, "text": "Grace and peace."}]}'; exit 0; fi
            mode=$(cat "\(dir.file("mode"))")
            case "$mode" in
              exit1) echo "model file missing: ggml-base.bin" >&2; exit 1 ;;
              slow) sleep 30 ;;
              garbage) printf '\\001\\002\\003\\377\\376binary' ;;
              badjson) echo '{"text": 5}' ;;
            esac
            """)
        let config = ProcessingHarness.config(maxAttempts: 2, timeout: 1,
                                              extra: ["transcriber = \"command\"", "transcribe_command = [\"\(engine)\"]"])
        let d = try ProcessingHarness.daemon(processing: config)
        defer { d.stop() }
        let c = try d.client()
        let audio = try dir.write("a.wav", "RIFF")
        let expectations = ["exit1": "exited with status 1: model file missing", "slow": "timed out after 1 s",
                            "garbage": "binary data", "badjson": "without a string \"text\""]
        var failedJobs: [String] = []
        for mode in ["exit1", "slow", "garbage", "badjson"] {
            _ = try dir.write("mode", mode)
            let sid = try #require(try c.call("sermon.create", ["title": .string(mode)])["id"]?.stringValue)
            try c.call("audio.import", ["sermonId": .string(sid), "path": .string(audio)])
            let id = try #require(try c.call("jobs.list", ["sermonId": .string(sid)]).arrayValue?.first?["id"]?.stringValue)
            let job = try ProcessingHarness.waitForJob(c, id, timeout: 60)
            #expect(job["state"] == "failed", "\(mode): \(job.text)")
            #expect(job["attempts"] == 2, "\(mode): \(job.text)")
            #expect(job["lastError"]?.stringValue?.contains(expectations[mode]!) == true, "\(mode): \(job.text)")
            #expect(try c.call("sermon.get", ["id": .string(sid)])["transcriptionStatus"] == "failed")
            failedJobs.append(id)
        }
        #expect(d.isRunning)
        #expect(!d.log.contains("Fatal error"))

        // Fixed engine: jobs.retry runs each again, to completion.
        _ = FileManager.default.createFile(atPath: flag, contents: Data())
        for id in failedJobs {
            let retried = try c.call("jobs.retry", ["id": .string(id)])
            #expect(retried["attempts"] == 0)
            let job = try ProcessingHarness.waitForJob(c, id)
            #expect(job["state"] == "done", "\(job.text)")
        }
        let any = try #require(try c.call("jobs.get", ["id": .string(failedJobs[0])])["sermonId"]?.stringValue)
        let t = try c.call("sermon.get", ["id": .string(any)])
        #expect(t["transcript"]?["text"] == "Grace and peace.")
        #expect(t["transcript"]?["segments"]?.arrayValue?.first?["start"]?.doubleValue == 0.5)
        #expect(t["transcriptionStatus"] == "complete")
        // Retrying a job that is not failed or done, or an unknown one, is refused by name.
        #expect(try c.callError("jobs.retry", ["id": .string(Identifier.make())]).code == -32001)
        #expect(try c.callError("jobs.retry", ["id": "x"]).field == "id")
        #expect(try c.callError("jobs.list", ["state": "sleeping"]).field == "state")
    }

    @Test("kill -9 during a job loses nothing: after restart the job runs again and completes, once")
    func killDuringJob() throws {
        let dir = TempDirectory()
        let started = dir.file("started")
        let engine = try ProcessingHarness.script(dir, "slow-engine.sh", """
            echo x >> "\(started)"
            sleep 3
            echo "The word became flesh."
            """)
        let config = ProcessingHarness.config(maxAttempts: 3, extra: ["transcriber = \"command\"", "transcribe_command = [\"\(engine)\"]"])
        let d = try ProcessingHarness.daemon(processing: config)
        defer { d.stop() }
        var c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Crash"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(try dir.write("a.wav", "RIFF"))])
        let id = try #require(try c.call("jobs.list").arrayValue?.first?["id"]?.stringValue)
        #expect(eventually(timeout: 20) { FileManager.default.fileExists(atPath: started) })
        #expect(try c.call("jobs.get", ["id": .string(id)])["state"] == "running")
        d.kill9()

        try d.start()
        c = try d.client()
        let job = try ProcessingHarness.waitForJob(c, id, timeout: 30)
        #expect(job["state"] == "done", "\(job.text)\n\(d.log.suffix(3000))")
        let sermon = try c.call("sermon.get", ["id": .string(sid)])
        #expect(sermon["transcript"]?["text"] == "The word became flesh.")
        #expect(sermon["transcriptionStatus"] == "complete")
        // One transcript version was written: the interrupted attempt left none.
        let tid = try #require(sermon["transcript"]?["id"]?.stringValue)
        #expect(try c.call("history.list", ["collection": "transcripts", "id": .string(tid)])["items"]?.arrayValue?.isEmpty == true)
        #expect(d.log.contains("jobs resumed after an unclean stop"))
    }

    @Test("SIGTERM during a transcription stops the daemon at once with status 0; the job resumes at the next start")
    func gracefulStopInterruptsJob() throws {
        let dir = TempDirectory()
        let started = dir.file("started")
        let engine = try ProcessingHarness.script(dir, "slow.sh", """
            echo x >> "\(started)"
            if [ "$(wc -l < "\(started)")" -lt 2 ]; then sleep 60; fi
            echo "Second time lucky."
            """)
        let config = ProcessingHarness.config(maxAttempts: 1, extra: ["transcriber = \"command\"", "transcribe_command = [\"\(engine)\"]"])
        let d = try ProcessingHarness.daemon(processing: config)
        defer { d.stop() }
        var c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "Stop"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(sid), "path": .string(try dir.write("a.wav", "RIFF"))])
        let id = try #require(try c.call("jobs.list").arrayValue?.first?["id"]?.stringValue)
        #expect(eventually(timeout: 20) { FileManager.default.fileExists(atPath: started) })
        let t0 = Date()
        #expect(d.stop(timeout: 15) == 0)
        #expect(Date().timeIntervalSince(t0) < 8, "the stop waited for the engine")
        try d.start()
        c = try d.client()
        // max_attempts = 1, yet it completes: the interrupted attempt was not counted.
        let job = try ProcessingHarness.waitForJob(c, id, timeout: 30)
        #expect(job["state"] == "done", "\(job.text)\n\(d.log.suffix(3000))")
        #expect(try c.call("sermon.get", ["id": .string(sid)])["transcript"]?["text"] == "Second time lucky.")
    }

    static func wavDuration(_ path: String) throws -> Double {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let bytes = [UInt8](data)
        func le32(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24 }
        let rate = le32(24), blockAlign = Int(bytes[32]) | Int(bytes[33]) << 8
        return Double(bytes.count - 44) / Double(blockAlign) / Double(rate)
    }
}
