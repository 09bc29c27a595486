import Foundation
import TNotesTestSupport

/// The recognizer tests' inputs (issue #52): sherpa-onnx and its models as `tnotes models install` leaves them
/// (scripts/install-models.sh), and the spoken passages of scripts/speech (make-speech.sh), each with the
/// text and the time span of every sentence. scripts/test.sh makes both under .build; the tests that need them
/// are skipped, with the reason, when they are missing.
enum SpeechFixtures {
    static var buildDirectory: String { Binaries.packageBuildDirectory }

    static var modelDirectory: String {
        ProcessInfo.processInfo.environment["TNOTES_TEST_MODELS"] ?? "\(buildDirectory)/models"
    }
    static var speechDirectory: String {
        ProcessInfo.processInfo.environment["TNOTES_TEST_SPEECH"] ?? "\(buildDirectory)/speech"
    }

    static var hasModels: Bool { FileManager.default.fileExists(atPath: "\(modelDirectory)/MANIFEST.sha256") }
    static var hasSpeech: Bool { FileManager.default.fileExists(atPath: "\(speechDirectory)/sower-neural.json") }
    static let missingModels = "needs the sherpa-onnx recognizer in .build/models (scripts/install-models.sh .build/models)"
    static let missingSpeech = "needs the spoken passages in .build/speech (scripts/speech/make-speech.sh)"

    struct Passage: Decodable {
        var text: String
        var voice: String
        var duration: Double
        var sentences: [SpeechScore.Sentence]
        var wav = ""

        enum CodingKeys: String, CodingKey { case text, voice, duration, sentences }

        init(text: String, voice: String, duration: Double, sentences: [SpeechScore.Sentence], wav: String) {
            self.text = text
            self.voice = voice
            self.duration = duration
            self.sentences = sentences
            self.wav = wav
        }
    }

    /// `name` is "sower-neural", "shepherd-espeak", …
    static func passage(_ name: String) throws -> Passage {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(speechDirectory)/\(name).json"))
        var p = try JSONDecoder().decode(Passage.self, from: data)
        p.wav = "\(speechDirectory)/\(name).wav"
        return p
    }
}
