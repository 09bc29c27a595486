import Crypto
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import SystemPackage
import TNotesCore
import TNotesLifecycle

/// One upload as the audio route hands it to a blob store.
public struct AudioUpload: Sendable {
    let user: Int64
    let sermonId: String
    /// Lowercase hex sha256 the client declared; the bytes must match it or nothing is kept.
    let declared: String
    let maxBytes: Int64
    let now: String
    /// What passing `maxBytes` answers: the server's size limit, or the user's audio quota.
    var overLimit: APIError? = nil
}

/// Where audio bytes live. A store keeps nothing half-written or mismatched: an upload becomes visible
/// only when its digest matched, and replaces the previous blob of that sermon at once.
public protocol AudioBlobStore: Sendable {
    /// Streams `body` in (hashing it, within the size limit) and keeps it if the digest matches.
    func receive(_ upload: AudioUpload, body: RequestBody) async throws -> AudioBlobInfo
    /// `span` of a stored blob as a response body, streamed (never the whole blob in memory).
    func body(user: Int64, _ info: AudioBlobInfo, span: ClosedRange<Int64>, context: ServerRequestContext) async throws -> ResponseBody
}

/// Audio blobs on disk: `<data>/audio/<user>/<sermonId>` (the SQLite backend: one server, one disk). An
/// upload streams into a temp file while it is hashed and is renamed into place only when its digest
/// matches; no whole file is held in memory.
struct FileAudioBlobs: AudioBlobStore {
    let root: String
    /// Where uploads write and fsync: blocking file calls stay off the event loops and the cooperative pool.
    let fileThreads = ThreadPoolExecutor(threads: 2)

    func path(user: Int64, sermonId: String) -> String { "\(root)/\(user)/\(sermonId)" }

    func receive(_ upload: AudioUpload, body: RequestBody) async throws -> AudioBlobInfo {
        try await fileThreads.run { try await receiveOnFileThread(upload, body: body) }
    }

    private func receiveOnFileThread(_ upload: AudioUpload, body: RequestBody) async throws -> AudioBlobInfo {
        let dir = "\(root)/\(upload.user)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let final = path(user: upload.user, sermonId: upload.sermonId)
        let temp = "\(final).part-\(Identifier.make())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw APIError(status: .internalServerError, error: "storage", detail: "cannot create a temp file")
        }
        var digester = AudioStore.Digester(upload)
        var closed = false
        do {
            for try await chunk in body {
                try digester.add(chunk)
                do {
                    _ = try chunk.withUnsafeReadableBytes { try FileDescriptor(rawValue: fd).writeAll($0) }
                } catch {
                    throw APIError(status: .internalServerError, error: "storage", detail: "write failed")
                }
            }
            let info = try digester.finish()
            closed = true
            let synced = fsync(fd) == 0
            close(fd)
            guard synced else { throw APIError(status: .internalServerError, error: "storage", detail: "fsync failed") }
            guard rename(temp, final) == 0 else {
                throw APIError(status: .internalServerError, error: "storage", detail: "rename failed")
            }
            let dfd = open(dir, O_RDONLY | O_DIRECTORY)
            if dfd >= 0 { fsync(dfd); close(dfd) }
            return info
        } catch {
            if !closed { close(fd) }
            unlink(temp)
            throw error
        }
    }

    func body(user: Int64, _ info: AudioBlobInfo, span: ClosedRange<Int64>, context: ServerRequestContext) async throws -> ResponseBody {
        try await FileIO().loadFile(path: path(user: user, sermonId: info.sermonId),
                                    range: Int(span.lowerBound)...Int(span.upperBound), context: context)
    }
}
