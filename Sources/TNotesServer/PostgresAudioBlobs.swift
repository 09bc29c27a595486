import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import TNotesCore

/// Audio in PostgreSQL as 1 MiB `bytea` chunks, so that any number of server instances on one database
/// serve any blob (contract §6.4: no sticky sessions, no shared disk).
///
/// Chunks rather than large objects: a chunk row is an ordinary row (replicated, dumped and deleted with
/// its user like the rest), a `Range` request reads only the chunks it covers, and no transaction stays
/// open for the length of an upload. An upload writes its chunks under a fresh blob id as they arrive
/// (memory: one chunk); the sermon's audio row is pointed at the blob only after the digest matched, in
/// the transaction that deletes the blob it replaces (`setAudio`). A mismatch or a failed upload deletes
/// its own chunks; chunks left by a crashed instance are deleted by the sermon's next successful upload.
struct PostgresAudioBlobs: AudioBlobStore {
    static let chunkSize = 1 << 20
    let client: PostgresClient
    let logger: Logger

    func receive(_ upload: AudioUpload, body: RequestBody) async throws -> AudioBlobInfo {
        let blobId = Identifier.make()
        var digester = AudioStore.Digester(upload)
        var pending = ByteBuffer()
        var index: Int32 = 0
        do {
            for try await chunk in body {
                try digester.add(chunk)
                var chunk = chunk
                pending.writeBuffer(&chunk)
                while pending.readableBytes >= Self.chunkSize {
                    try await store(pending.readSlice(length: Self.chunkSize)!, index: index, blobId: blobId, upload: upload)
                    index += 1
                    pending.discardReadBytes()
                }
            }
            if pending.readableBytes > 0 {
                try await store(pending, index: index, blobId: blobId, upload: upload)
            }
            return try digester.finish(blobId: blobId)
        } catch {
            _ = try? await client.query("DELETE FROM audio_chunks WHERE blob_id = \(blobId)", logger: logger)
            throw error
        }
    }

    private func store(_ data: ByteBuffer, index: Int32, blobId: String, upload: AudioUpload) async throws {
        try await client.query("""
            INSERT INTO audio_chunks(blob_id, idx, user_id, sermon_id, data)
            VALUES (\(blobId), \(index), \(upload.user), \(upload.sermonId), \(data))
            """, logger: logger)
    }

    func body(user: Int64, _ info: AudioBlobInfo, span: ClosedRange<Int64>, context: ServerRequestContext) async throws -> ResponseBody {
        guard let blobId = info.blobId else {
            // A row from before audio moved into the database (its bytes are on some instance's disk).
            throw APIError.notFound("audio of sermon \(info.sermonId) (stored before this server kept audio in PostgreSQL)")
        }
        let client = self.client, logger = self.logger
        let size = Int64(Self.chunkSize)
        return ResponseBody(contentLength: Int(span.upperBound - span.lowerBound + 1)) { writer in
            var position = span.lowerBound
            while position <= span.upperBound {
                let index = position / size
                var chunk: ByteBuffer?
                for try await data in try await client.query(
                    "SELECT data FROM audio_chunks WHERE blob_id = \(blobId) AND idx = \(Int32(index))", logger: logger
                ).decode(ByteBuffer.self) { chunk = data }
                guard var data = chunk else {
                    throw APIError(status: .internalServerError, error: "storage", detail: "audio chunk \(index) is missing")
                }
                let from = Int(position - index * size)
                let to = Int(min(span.upperBound - index * size + 1, Int64(data.readableBytes)))
                guard from < to, let slice = data.getSlice(at: data.readerIndex + from, length: to - from) else {
                    throw APIError(status: .internalServerError, error: "storage", detail: "audio chunk \(index) is short")
                }
                data = slice
                try await writer.write(data)
                position += Int64(to - from)
            }
            try await writer.finish(nil)
        }
    }
}
