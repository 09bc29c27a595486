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

        table.add(MethodSpec(RecordingStart.self, summary: "Record from the sound server into a new or existing sermon.",
                             notes: [
                                \.sermonId: "an existing sermon; default a new one",
                                \.title: "the new sermon's title",
                                \.source: "a PulseAudio source name; default the default source",
                             ], result: Self.recordingResult) { p, _ in
            try await controller.start(sermonId: p.sermonId, title: p.title, speaker: p.speaker.map { $0.fieldJSON },
                                       serviceType: p.serviceType, source: p.source)
        })
        table.add(MethodSpec(RecordingPause.self, summary: "Pause the recording (its clock stops).",
                             result: Self.recordingResult) { _, _ in try await controller.pause() })
        table.add(MethodSpec(RecordingResume.self, summary: "Resume a paused recording.",
                             result: Self.recordingResult) { _, _ in try await controller.resume() })
        table.add(MethodSpec(RecordingStop.self, summary: "Stop, attach the audio to the sermon and queue its transcription.",
                             result: Self.recordingResult) { _, _ in try await controller.stop() })
        table.add(MethodSpec(RecordingStatusMethod.self, summary: "The recording, or {state: idle}.",
                             result: Self.recordingResult, readOnly: true) { _, _ in await controller.status() })
        table.add(MethodSpec(AudioSources.self, summary: "The sound server's capture sources.",
                             result: ["type": "object", "properties": ["items": ["type": "array"]]], readOnly: true) { _, _ in
            let sources: [AudioSource]
            do {
                sources = try await BlockingWork.run { try server.sources() }
            } catch let e as SoundServerError {
                throw RPCError.unavailable("\(e)")
            }
            var list = AudioSourceList()
            list.items = sources.map {
                var v = AudioSourceView()
                v.name = $0.name
                v.description = $0.description
                v.isDefault = $0.isDefault
                v.isMonitor = $0.isMonitor
                return v
            }
            return list.fieldJSON
        })
    }
}
