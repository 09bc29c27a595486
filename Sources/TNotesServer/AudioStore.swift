import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import TNotesCore

/// The audio routes' logic that does not depend on where the bytes live: the declared digest, the size
/// limit, `Range`. The bytes go to an `AudioBlobStore`: files on this server's disk (SQLite), or chunks in
/// PostgreSQL, so that any instance on one database serves any blob.
struct AudioStore: Sendable {
    let maxBytes: Int64
    let blobs: any AudioBlobStore
    let storage: any ServerStorage

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

    func put(user: Int64, sermonId: String, request: Request, declared: String, now: String,
             metrics: ServerMetrics) async throws -> AudioBlobInfo {
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        if let length, length > maxBytes { throw APIError.tooLarge(maxBytes) }
        var upload = AudioUpload(user: user, sermonId: sermonId, declared: declared, maxBytes: maxBytes, now: now)
        // The audio quota (contract §8.6): the room left besides this sermon's own audio (which the upload
        // replaces). Checked before and while the bytes arrive; two uploads of one user at once may both fit the
        // room they saw and pass it together by at most one file.
        if let quota = try await storage.quota(user: user).audioBytes {
            let used = try await storage.audioBytes(user: user, excluding: sermonId)
            let room = max(0, quota - used)
            let refusal = APIError.audioQuota(limit: quota, used: used)
            if let length, length > room {
                metrics.quotaRejected(kind: "audio")
                metrics.refused(status: 413, reason: "audio_quota")
                throw refusal
            }
            if room < upload.maxBytes {
                upload = AudioUpload(user: user, sermonId: sermonId, declared: declared, maxBytes: room, now: now, overLimit: refusal)
            }
        }
        let info = try await blobs.receive(upload, body: request.body)
        try await storage.setAudio(user: user, info)
        return info
    }

    /// Hashes an upload's bytes as they arrive and enforces the size limit; `finish` checks the digest.
    struct Digester {
        let upload: AudioUpload
        private var hasher = SHA256()
        private(set) var total: Int64 = 0

        init(_ upload: AudioUpload) { self.upload = upload }

        mutating func add(_ chunk: ByteBuffer) throws {
            total += Int64(chunk.readableBytes)
            if total > upload.maxBytes { throw upload.overLimit ?? APIError.tooLarge(upload.maxBytes) }
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }

        /// The blob's info when the bytes match the declared digest; a 400 naming both digests otherwise.
        func finish(blobId: String? = nil) throws -> AudioBlobInfo {
            let actual = Hex.encode(hasher.finalize())
            guard actual == upload.declared else {
                throw APIError.badRequest("digest", "the body's sha256 is \(actual), not the declared \(upload.declared)")
            }
            return AudioBlobInfo(sermonId: upload.sermonId, sha256: actual, sizeBytes: total, updatedAt: upload.now, blobId: blobId)
        }
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
