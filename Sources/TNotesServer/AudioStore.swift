import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import TNotesCore

/// Audio blobs on disk: `<data>/audio/<user>/<sermonId>`. An upload streams into a temp file while it is
/// hashed, and is renamed into place only when its digest matches the one the client declared; nothing
/// half-written or mismatched is ever kept, and no whole file is held in memory.
struct AudioStore: Sendable {
    let root: String
    let maxBytes: Int64
    let storage: any ServerStorage
    /// Where uploads write and fsync: blocking file calls stay off the event loops and the cooperative pool.
    let fileThreads = ThreadPoolExecutor(threads: 2)

    func path(user: Int64, sermonId: String) -> String { "\(root)/\(user)/\(sermonId)" }

    /// The declared digest: `Digest: sha-256=<base64>` or `X-Content-SHA256: <hex>`, as lowercase hex.
    static func declaredDigest(_ headers: HTTPFields) throws -> String {
        if let hex = headers[HTTPField.Name("X-Content-SHA256")!] {
            let h = hex.lowercased()
            guard Identifier.isSHA256Hex(h) else { throw APIError.badRequest("X-Content-SHA256", "must be 64 hex digits") }
            return h
        }
        if let digest = headers[HTTPField.Name("Digest")!] {
            for part in digest.split(separator: ",") {
                let p = part.trimmingCharacters(in: .whitespaces)
                guard p.lowercased().hasPrefix("sha-256=") else { continue }
                guard let data = Data(base64Encoded: String(p.dropFirst(8))), data.count == 32 else {
                    throw APIError.badRequest("Digest", "sha-256 must be the base64 of 32 bytes")
                }
                return Hex.encode(data)
            }
            throw APIError.badRequest("Digest", "must contain sha-256=<base64>")
        }
        throw APIError.badRequest("Digest", "a Digest: sha-256=… or X-Content-SHA256 header is required")
    }

    func put(user: Int64, sermonId: String, request: Request, declared: String, now: String) async throws -> AudioBlobInfo {
        let info = try await fileThreads.run {
            try await receive(user: user, sermonId: sermonId, request: request, declared: declared, now: now)
        }
        try await storage.setAudio(user: user, info)
        return info
    }

    /// Streams the body into a temp file (hashing it), checks the digest, fsyncs and renames it into place.
    private func receive(user: Int64, sermonId: String, request: Request, declared: String, now: String) async throws -> AudioBlobInfo {
        if let length = request.headers[.contentLength].flatMap({ Int64($0) }), length > maxBytes {
            throw APIError.tooLarge(maxBytes)
        }
        let dir = "\(root)/\(user)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let final = path(user: user, sermonId: sermonId)
        let temp = "\(final).part-\(Identifier.make())"
        guard let fd = Optional(open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)), fd >= 0 else {
            throw APIError(status: .internalServerError, error: "storage", detail: "cannot create a temp file")
        }
        var hasher = SHA256()
        var total: Int64 = 0
        var closed = false
        do {
            for try await chunk in request.body {
                total += Int64(chunk.readableBytes)
                if total > maxBytes { throw APIError.tooLarge(maxBytes) }
                try chunk.withUnsafeReadableBytes { raw in
                    hasher.update(bufferPointer: raw)
                    var off = 0
                    while off < raw.count {
                        let n = write(fd, raw.baseAddress! + off, raw.count - off)
                        if n < 0 {
                            if errno == EINTR { continue }
                            throw APIError(status: .internalServerError, error: "storage", detail: "write failed")
                        }
                        off += n
                    }
                }
            }
            let actual = Hex.encode(hasher.finalize())
            guard actual == declared else {
                throw APIError.badRequest("digest", "the body's sha256 is \(actual), not the declared \(declared)")
            }
            closed = true
            let synced = fsync(fd) == 0
            close(fd)
            guard synced else { throw APIError(status: .internalServerError, error: "storage", detail: "fsync failed") }
            guard rename(temp, final) == 0 else {
                throw APIError(status: .internalServerError, error: "storage", detail: "rename failed")
            }
            let dfd = open(dir, O_RDONLY | O_DIRECTORY)
            if dfd >= 0 { fsync(dfd); close(dfd) }
        } catch {
            if !closed { close(fd) }
            unlink(temp)
            throw error
        }
        return AudioBlobInfo(sermonId: sermonId, sha256: declared, sizeBytes: total, updatedAt: now)
    }

    /// A `Range: bytes=…` header resolved against `size`: nil for the whole file; throws 416 when unsatisfiable.
    static func range(_ header: String?, size: Int64) throws -> ClosedRange<Int64>? {
        guard let header else { return nil }
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }  // multi-range: send it all
        let spec = header.dropFirst(6)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let unsatisfiable = APIError(status: .rangeNotSatisfiable, error: "range_not_satisfiable",
                                     detail: "the file has \(size) bytes")
        var e416 = unsatisfiable
        e416.headers[.contentRange] = "bytes */\(size)"
        if parts[0].isEmpty {
            guard let n = Int64(parts[1]), n > 0 else { throw e416 }
            if size == 0 { throw e416 }
            return max(0, size - n)...(size - 1)
        }
        guard let start = Int64(parts[0]) else { return nil }
        guard start < size else { throw e416 }
        let end = parts[1].isEmpty ? size - 1 : min(Int64(parts[1]) ?? (size - 1), size - 1)
        guard end >= start else { throw e416 }
        return start...end
    }
}
