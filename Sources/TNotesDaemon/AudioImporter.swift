import Crypto
import SystemPackage
import TNotesCore
import TNotesLifecycle
import TNotesRPC

#if canImport(Glibc)
import Glibc
#endif

/// Copies an audio file into the data dir: streamed in 1 MiB chunks to a temp file while hashing,
/// fsynced, then renamed into place, so the data dir never holds a half-copied file under its final name.
struct AudioImporter {
    let audioDirectory: String

    struct Imported: Sendable {
        let path: String
        let fileName: String
        let sizeBytes: Int64
        let sha256: String
    }

    /// Runs off the cooperative pool (`BlockingWork`): copying a large file blocks.
    func importFile(from source: String, sermonId: String) async throws -> Imported {
        try await BlockingWork.run { try self.copy(from: source, sermonId: sermonId) }
    }

    func copy(from source: String, sermonId: String) throws -> Imported {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw RPCError.invalidParams(field: "path", reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw RPCError.invalidParams(field: "path", reason: "is not a regular file")
        }
        try DaemonPaths.makeDirectory(audioDirectory)
        let fileName = Self.safeName(source)
        let ext = AudioFileName.storedExtension(of: fileName)
        // The temp file is named for the sermon (the sync engine's start-up sweep removes one a kill left);
        // the final name carries the digest, so an import never replaces, under the same name, a copy a row
        // still claims (an eviction or a download of that copy may be running; a kill before the store has
        // the new row would leave the old row naming new bytes).
        let temp = "\(audioDirectory)/\(sermonId)\(ext).part-\(getpid())"
        let output = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw RPCError.internalError("cannot create \(temp): \(String(cString: strerror(errno)))") }
        var hasher = SHA256()
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        do {
            while true {
                let n: Int
                do {
                    n = try buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: input).read(into: $0) }
                } catch {
                    throw RPCError.invalidParams(field: "path", reason: "read failed: \(error)")
                }
                if n == 0 { break }
                hasher.update(data: buffer[0..<n])
                do {
                    try FileDescriptor(rawValue: output).writeAll(buffer[0..<n])
                } catch {
                    throw RPCError.internalError("write failed: \(error)")
                }
                total += Int64(n)
            }
            guard fsync(output) == 0 else { throw RPCError.internalError("fsync failed: \(String(cString: strerror(errno)))") }
            close(output)
        } catch {
            close(output)
            unlink(temp)
            throw error
        }
        let sha256 = Hex.encode(hasher.finalize())
        let target = "\(audioDirectory)/\(sermonId).\(sha256.prefix(16))\(ext)"
        guard rename(temp, target) == 0 else {
            unlink(temp)
            throw RPCError.internalError("rename failed: \(String(cString: strerror(errno)))")
        }
        DirectorySync.fsync(audioDirectory)
        return Imported(path: target, fileName: fileName, sizeBytes: total, sha256: sha256)
    }

    /// A file already in the data dir (a recording), as an import would have made it: its size and digest,
    /// read in 1 MiB chunks. Blocking: call it off the cooperative pool.
    static func describe(path: String, fileName: String) throws -> Imported {
        let fd = try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
        defer { try? fd.close() }
        var hasher = SHA256()
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
            if n == 0 { break }
            hasher.update(data: buffer[0..<n])
            total += Int64(n)
        }
        return Imported(path: path, fileName: fileName, sizeBytes: total, sha256: Hex.encode(hasher.finalize()))
    }

    /// The last path component, without anything that could climb out of a directory.
    static func safeName(_ path: String) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? "audio"
        let cleaned = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\\" }.map(Character.init))
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "audio" : cleaned
    }
}
