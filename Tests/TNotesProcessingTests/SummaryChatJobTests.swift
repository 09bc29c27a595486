import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §6.1 acceptance 3 and 4, through the daemon: summaries of each type, deterministic, never over a
/// hand-set one unless asked; the assistant's answer quotes the sermon with timestamps and syncs.
@Suite("processing: summaries and the sermon assistant", .serialized)
struct SummaryChatJobTests {
    static let segments: [(Double, Double, String)] = [
        (0, 6, "Good morning church, please open your Bibles to Romans chapter eight."),
        (6, 14, "Paul writes that there is therefore now no condemnation for those who are in Christ Jesus."),
        (14, 25, "This is the heart of the gospel: forgiveness is not earned, it is received."),
        (25, 33, "Some of you carry guilt that Christ already carried to the cross."),
        (33, 44, "Romans 8:28 tells us that all things work together for good to those who love God."),
        (44, 52, "That does not mean all things are good, but that God is at work in all things."),
        (52, 63, "Forgiveness received becomes forgiveness given, as Ephesians 4:32 says, forgive one another."),
        (63, 70, "Let us pray and ask for hearts that forgive freely this week."),
    ]

    static func transcriptParams(_ sid: String) -> JSON {
        let segs = JSON.array(segments.map { ["start": .double($0.0), "end": .double($0.1), "text": .string($0.2)] })
        return ["sermonId": .string(sid), "text": .string(segments.map(\.2).joined(separator: " ")), "segments": segs]
    }

    @Test("each summary type comes out for a known transcript and notes, identical on a second run")
    func summariesOfEachType() throws {
        let d = try ProcessingHarness.daemon(processing: ProcessingHarness.config(autoTranscribe: false))
        defer { d.stop() }
        let c = try d.client()
        let sid = try #require(try c.call("sermon.create", ["title": "No Condemnation", "speaker": "Ann Lee"])["id"]?.stringValue)
        try c.call("transcript.set", Self.transcriptParams(sid))
        try c.call("note.add", ["sermonId": .string(sid), "text": "forgiveness is received, not earned", "timestamp": 16])
        try c.call("note.add", ["sermonId": .string(sid), "text": "Rom 8:28 — God at work in all things", "timestamp": 45])

        var texts: [String: String] = [:]
        for round in 0..<2 {
            for type in ["bullet", "devotional", "theological"] {
                let job = try #require(try c.call("summary.generate", ["sermonId": .string(sid), "type": .string(type)])["jobId"]?.stringValue)
                let done = try ProcessingHarness.waitForJob(c, job)
                #expect(done["state"] == "done", "\(done.text)")
                let summary = try #require(try c.call("sermon.get", ["id": .string(sid)])["summary"])
                #expect(summary["type"]?.stringValue == type)
                #expect(summary["generatedBy"] == "builtin")
                #expect(summary["status"] == "complete")
                let text = try #require(summary["text"]?.stringValue)
                #expect(!text.isEmpty)
                if round == 0 { texts[type] = text } else { #expect(texts[type] == text, "\(type) differs on a second run") }
            }
        }
        let bullet = try #require(texts["bullet"])
        #expect(bullet.split(separator: "\n").contains { $0.hasPrefix("- ") }, "\(bullet)")
        // The sentence the listener noted at 0:16 is among the key points.
        #expect(bullet.contains("forgiveness is not earned"), "\(bullet)")
        let theological = try #require(texts["theological"])
        #expect(theological.contains("Romans 8:28"), "\(theological)")
        #expect(theological.contains("Ephesians 4:32"), "\(theological)")
        let devotional = try #require(texts["devotional"])
        #expect(!devotional.contains("\n- "), "a paragraph, not a list: \(devotional)")
        #expect(try c.call("sermon.get", ["id": .string(sid)])["summaryStatus"] == "complete")
        // Bad params are named.
        #expect(try c.callError("summary.generate", ["sermonId": .string(sid), "type": "haiku"]).field == "type")
        #expect(try c.callError("summary.generate", ["sermonId": .string(Identifier.make()), "type": "bullet"]).code == -32001)
    }

    @Test("auto_summarize follows a finished transcript, but never replaces a summary set by hand")
    func automaticSummaryKeepsHandSetOne() throws {
        let dir = TempDirectory()
        let segs = Self.segments.map { "{\"start\": \($0.0), \"end\": \($0.1), \"text\": \"\($0.2)\"}" }.joined(separator: ", ")
        let engine = try ProcessingHarness.script(dir, "engine.sh", "cat <<'EOF'\n{\"text\": \"\(Self.segments.map(\.2).joined(separator: " "))\", \"segments\": [\(segs)]}\nEOF")
        let config = ProcessingHarness.config(autoTranscribe: true, autoSummarize: true,
                                              extra: ["transcriber = \"command\"", "transcribe_command = [\"\(engine)\"]"])
        let d = try ProcessingHarness.daemon(processing: config)
        defer { d.stop() }
        let c = try d.client()
        let audio = try dir.write("a.wav", "RIFF")

        // Without a summary: the transcript queues one, written by the builtin engine.
        let auto = try #require(try c.call("sermon.create", ["title": "Auto"])["id"]?.stringValue)
        try c.call("audio.import", ["sermonId": .string(auto), "path": .string(audio)])
        #expect(eventually(timeout: 30) {
            (try? c.call("sermon.get", ["id": .string(auto)])["summary"]?["generatedBy"]) == "builtin"
        })
        #expect(try c.call("sermon.get", ["id": .string(auto)])["summaryStatus"] == "complete")

        // With one set by hand: the transcript completes, the summary stays the person's.
        let hand = try #require(try c.call("sermon.create", ["title": "Hand"])["id"]?.stringValue)
        let mine = try c.call("summary.set", ["sermonId": .string(hand), "title": "Mine", "text": "What I took away.", "type": "devotional"])
        #expect(mine["generatedBy"] == nil, "a summary set by hand has no generatedBy")
        try c.call("audio.import", ["sermonId": .string(hand), "path": .string(audio)])
        let job = try #require(try c.call("jobs.list", ["sermonId": .string(hand)]).arrayValue?.first?["id"]?.stringValue)
        #expect(try ProcessingHarness.waitForJob(c, job)["state"] == "done")
        #expect(try c.call("sermon.get", ["id": .string(hand)])["transcriptionStatus"] == "complete")
        let after = try c.call("sermon.get", ["id": .string(hand)])["summary"]
        #expect(after?["text"] == "What I took away." && after?["updatedAt"] == mine["updatedAt"])
        #expect(try c.call("jobs.list", ["sermonId": .string(hand)]).arrayValue?.contains { $0["kind"] == "summarize" } == false)

        // An explicit summary.generate does replace it.
        let explicit = try #require(try c.call("summary.generate", ["sermonId": .string(hand), "type": "bullet"])["jobId"]?.stringValue)
        #expect(try ProcessingHarness.waitForJob(c, explicit)["state"] == "done")
        #expect(try c.call("sermon.get", ["id": .string(hand)])["summary"]?["generatedBy"] == "builtin")
    }

    @Test("chat.ask answers with quotes that carry mm:ss; the question and the answer reach B")
    func assistantAnswersAndSyncs() throws {
        let rig = try ProcessingHarness.rig(processing: [ProcessingHarness.config(autoTranscribe: false), ""])
        defer { rig.stop() }
        try rig.withLogs {
            let a = try rig.rpc(0), b = try rig.rpc(1)
            let sid = try #require(try a.call("sermon.create", ["title": "No Condemnation"])["id"]?.stringValue)
            try a.call("transcript.set", Self.transcriptParams(sid))
            try a.call("note.add", ["sermonId": .string(sid), "text": "guilt already carried", "timestamp": 26])
            let asked = try a.call("chat.ask", ["sermonId": .string(sid), "question": "What did he say about forgiveness?"])
            let job = try #require(asked["jobId"]?.stringValue)
            #expect(try ProcessingHarness.waitForJob(a, job)["state"] == "done")
            let chat = try a.call("chat.list", ["sermonId": .string(sid)]).arrayValue ?? []
            #expect(chat.map { $0["role"] } == ["user", "assistant"])
            #expect(chat.first?["id"] == asked["questionId"])
            let answer = try #require(chat.last?["content"]?.stringValue)
            // Quotes of the forgiveness passages, each with its time in the audio.
            #expect(answer.contains("[00:14]") || answer.contains("[00:52]"), "\(answer)")
            #expect(answer.contains("forgive"), "\(answer)")
            #expect(answer.range(of: #"\[\d\d:\d\d\]"#, options: .regularExpression) != nil)

            try rig.syncAll(order: [0, 1])
            let onB = try b.call("chat.list", ["sermonId": .string(sid)]).arrayValue ?? []
            #expect(onB.map { $0["content"] } == chat.map { $0["content"] })
            #expect(try b.call("jobs.list").arrayValue?.isEmpty == true)
            // Bad params are named; an empty question is refused.
            #expect(try a.callError("chat.ask", ["sermonId": .string(sid), "question": ""]).field == "question")
            #expect(try a.callError("chat.ask", ["sermonId": .string(sid)]).field == "question")
        }
    }
}
