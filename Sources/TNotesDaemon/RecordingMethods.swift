import TNotesCore
import TNotesLifecycle
import TNotesRecording
import TNotesRPC

/// `recording.*` and `audio.sources` (contract §8.2).
struct RecordingMethods {
    let controller: RecordingController
    let server: SoundServer

    static let recordingResult: JSON = [
        "type": "object", "required": ["state"],
        "properties": [
            "state": ["enum": ["recording", "paused", "stopped", "idle"]], "sermonId": ["type": "string"],
            "source": ["type": ["string", "null"]], "startedAt": ["type": "string"], "elapsed": ["type": "number"],
            "level": ["type": "number"], "bytes": ["type": "integer"], "reason": ["type": "string"],
            "message": ["type": "string"], "sermon": ["$ref": "#/components/schemas/Sermon"],
        ],
    ]

    func register(into table: inout MethodTable) {
        let controller = self.controller, server = self.server

        table.add(MethodSpec("recording.start", summary: "Record from the sound server into a new or existing sermon.",
                             params: [
                                ParamSpec("sermonId", .uuid, "an existing sermon; default a new one"),
                                ParamSpec("title", .string, "the new sermon's title"),
                                ParamSpec("speaker", .string, nullable: true),
                                ParamSpec("serviceType", .string),
                                ParamSpec("source", .string, "a PulseAudio source name; default the default source"),
                             ], result: Self.recordingResult) { p, _ in
            try await controller.start(sermonId: p.string("sermonId"), title: p.string("title"), speaker: p["speaker"],
                                       serviceType: p.string("serviceType"), source: p.string("source"))
        })
        table.add(MethodSpec("recording.pause", summary: "Pause the recording (its clock stops).", params: [],
                             result: Self.recordingResult) { _, _ in try await controller.pause() })
        table.add(MethodSpec("recording.resume", summary: "Resume a paused recording.", params: [],
                             result: Self.recordingResult) { _, _ in try await controller.resume() })
        table.add(MethodSpec("recording.stop", summary: "Stop, attach the audio to the sermon and queue its transcription.",
                             params: [], result: Self.recordingResult) { _, _ in try await controller.stop() })
        table.add(MethodSpec("recording.status", summary: "The recording, or {state: idle}.", params: [],
                             result: Self.recordingResult, readOnly: true) { _, _ in await controller.status() })
        table.add(MethodSpec("audio.sources", summary: "The sound server's capture sources.", params: [],
                             result: ["type": "object", "properties": ["items": ["type": "array"]]], readOnly: true) { _, _ in
            let sources: [AudioSource]
            do {
                sources = try await BlockingWork.run { try server.sources() }
            } catch let e as SoundServerError {
                throw RPCError.unavailable("\(e)")
            }
            return ["items": .array(sources.map {
                ["name": .string($0.name), "description": .string($0.description), "isDefault": .bool($0.isDefault),
                 "isMonitor": .bool($0.isMonitor)]
            })]
        })
    }
}
