import Crypto
import TNotesCore

#if canImport(Glibc)
import Glibc
#endif

/// The recognizer `tnotes models install` (scripts/install-models.sh) puts into a model directory: sherpa-onnx's
/// C API with the ONNX Runtime it was built with, Moonshine base English, the Silero voice activity detector,
/// and `MANIFEST.sha256`, the digest of every file.
public struct RecognizerInstallation: Sendable, Equatable {
    /// What `jobs.get` and the logs call the engine and the model.
    public static let engineName = "sherpa-onnx"
    public static let libraryVersion = "2.0.1"
    public static let modelName = "moonshine-base-en"

    public let directory: String

    public var library: String { "\(directory)/sherpa-onnx-\(Self.libraryVersion)/lib/libsherpa-onnx-c-api.so" }
    public var encoder: String { "\(directory)/\(Self.modelName)/encoder_model.ort" }
    public var decoder: String { "\(directory)/\(Self.modelName)/decoder_model_merged.ort" }
    public var tokens: String { "\(directory)/\(Self.modelName)/tokens.txt" }
    public var voiceActivityModel: String { "\(directory)/silero-vad/silero_vad.onnx" }
    public var manifest: String { "\(directory)/MANIFEST.sha256" }

    /// Every file the recognizer opens, the manifest first.
    var files: [String] { [manifest, library, "\(directory)/sherpa-onnx-\(Self.libraryVersion)/lib/libonnxruntime.so",
                           encoder, decoder, tokens, voiceActivityModel] }

    /// The installation in `directory`, or nil when any of its files is missing or unreadable (nothing is
    /// read: this is what the daemon checks when it picks an engine).
    public static func find(in directory: String) -> RecognizerInstallation? {
        let candidate = RecognizerInstallation(directory: directory)
        return candidate.files.allSatisfy { access($0, R_OK) == 0 } ? candidate : nil
    }

    public init(directory: String) { self.directory = directory }

    public struct Damaged: Error, CustomStringConvertible {
        public let description: String
    }

    /// Checks every file named in the manifest against its digest: a truncated or corrupt model would end the
    /// process inside sherpa-onnx (std::terminate from a constructor, `_Exit` on a bad tokens line), with no error
    /// to report. About 0.3 s for the 95 MB, paid once per worker.
    public func verify() throws(Damaged) {
        guard let text = Self.readAll(manifest).map({ String(decoding: $0, as: UTF8.self) }) else {
            throw Damaged(description: "cannot read \(manifest)")
        }
        var listed = Set<String>()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { throw Damaged(description: "\(manifest): malformed line \"\(line)\"") }
            let digest = String(parts[0]), name = parts[1].drop(while: { $0 == " " })
            guard !name.contains(".."), !name.hasPrefix("/") else { throw Damaged(description: "\(manifest): bad path \(name)") }
            let path = "\(directory)/\(name)"
            guard let actual = Self.sha256(path) else { throw Damaged(description: "cannot read \(path)") }
            guard actual == digest else {
                throw Damaged(description: "\(path) is damaged (sha256 \(actual), expected \(digest)); reinstall it: tnotes models install")
            }
            listed.insert(path)
        }
        for file in files.dropFirst() where !listed.contains(file) {
            throw Damaged(description: "\(manifest) does not list \(file); reinstall: tnotes models install")
        }
    }

    /// A file's sha256 in lowercase hex, read in 1 MiB blocks; nil when it cannot be read.
    static func sha256(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue } else { return nil } }
            if n == 0 { break }
            hasher.update(data: buffer[0..<n])
        }
        return Hex.encode(hasher.finalize())
    }

    static func readAll(_ path: String) -> [UInt8]? { FileBytes.read(path) }
}
