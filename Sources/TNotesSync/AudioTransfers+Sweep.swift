import Logging
import TNotesCore
import TNotesLifecycle
import TNotesStore

#if canImport(Glibc)
import Glibc
#endif

/// The start-up sweep: makes the audio directory and the store agree again after a kill at any point of a
/// download or an eviction. Only names this queue and the importer make are looked at (`<sermonId><.ext>`,
/// `<sermonId>.<sha16>.download`, `<sermonId><.ext>.part-<pid>`); a recording's file and anything else are
/// left alone.
extension AudioTransfers {
    /// Runs the sweep once; every later caller waits for that one.
    func swept() async {
        if sweep == nil { sweep = Task { await self.sweepAudioDirectory() } }
        await sweep?.value
    }

    private func sweepAudioDirectory() async {
        do {
            try await reconcile()
        } catch {
            logger.warning("the audio directory was not checked", metadata: ["error": "\(error)"])
        }
    }

    private func reconcile() async throws {
        let directory = audioDirectory
        let rows = try await store.read { s in try s.audioFiles() }
        // A file written since this process started is not a leftover of a kill: an import may be between
        // moving its file into place and recording it.
        let startedAt = processStartMillis
        let (listing, missing) = try await BlockingWork.run {
            let listing = Self.listDirectory(directory).filter { $0.modifiedMillis < startedAt }.map(\.name)
            // Gone for certain (ENOENT), not merely unreadable now.
            let missing = rows.filter { row in
                guard row.localAvailable, let path = row.path else { return false }
                return access(path, F_OK) != 0 && errno == ENOENT
            }
            return (listing, missing)
        }
        // A row that says "here" about a file that is gone (removed by hand): as if it had never come.
        for row in missing {
            try await store.write { s in try s.forgetAudioFile(sermonId: row.sermonId, path: row.path) }
            logger.warning("audio file missing; the copy is forgotten", metadata: ["sermon": "\(row.sermonId)", "path": "\(row.path ?? "")"])
        }
        // Claimed by name: the data dir may be spelled another way today (a trailing slash, a symlink) than
        // when the row was written.
        let claimed = Set(rows.filter(\.localAvailable).compactMap { $0.path.map(Self.fileName) })
        let rowBySermon = Dictionary(rows.map { ($0.sermonId, $0) }, uniquingKeysWith: { a, _ in a })
        var remove: [String] = []
        for name in listing {
            let path = "\(directory)/\(name)"
            guard !claimed.contains(name), let kind = Self.kind(of: name) else { continue }
            switch kind {
            case .importLeftover, .imported:
                // An import the last process did not finish (its caller never got an answer), or the copy an
                // import replaced, whose removal a kill cut short.
                remove.append(path)
            case .partial(let sermonId, let shaPrefix):
                // Kept while the sermon still wants exactly that file and it is not here: the next fetch resumes it.
                let item = try await store.read { s in try s.audioItem(sermonId: sermonId) }
                let here = rowBySermon[sermonId].map { $0.localAvailable && $0.sha256 == item?.sha256 } ?? false
                if item.map({ !$0.sha256.hasPrefix(shaPrefix) }) ?? true || here { remove.append(path) }
            case .final(let sermonId):
                // A file under a sermon's name that no row claims: an eviction the kill cut short (the row says
                // not here: finish it), or a download moved into place but not yet recorded (no row, and the file
                // is the one the record names: keep it, as not yet uploaded, so that the upload queue confirms
                // the server holds it before the cache may evict it). Anything else is no copy of anything.
                let item = try await store.read { s in try s.audioItem(sermonId: sermonId) }
                guard rowBySermon[sermonId] == nil, let item, try await Self.sha256(of: path) == item.sha256 else {
                    remove.append(path)
                    continue
                }
                let size = try await BlockingWork.run { Self.fileSize(path) } ?? item.sizeBytes
                // Only while there is still no row (nothing has written one since the sweep read them).
                let adopted = try await store.write { s in
                    try s.adoptAudioFile(AudioFileState(sermonId: sermonId, path: path, sha256: item.sha256, sizeBytes: size,
                                                        localAvailable: true, uploaded: false))
                }
                if adopted { logger.info("audio file kept: it was downloaded before the last stop", metadata: ["sermon": "\(sermonId)"]) }
            }
        }
        guard !remove.isEmpty else { return }
        try await BlockingWork.run { [remove] in
            for path in remove { unlink(path) }
            DirectorySync.fsync(directory)
        }
        logger.info("audio directory settled after an interrupted stop", metadata: ["removed": "\(remove.count)"])
    }

    enum SweptName: Equatable {
        /// `<sermonId><.ext>`: a download's.
        case final(sermonId: String)
        /// `<sermonId>.<sha16>.download`: a download under way.
        case partial(sermonId: String, shaPrefix: String)
        /// `<sermonId>.<sha16><.ext>`: an import's.
        case imported(sermonId: String)
        /// `<sermonId><.ext>.part-<pid>`: an import's copy under way.
        case importLeftover
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    /// What a name in the audio directory is, if this queue or the importer made it.
    static func kind(of name: String) -> SweptName? {
        guard name.utf8.count >= 36 else { return nil }
        let sermonId = String(name.prefix(36))
        guard Identifier.isUUID(sermonId) else { return nil }
        let rest = name.dropFirst(36)
        if rest.isEmpty { return .final(sermonId: sermonId) }
        guard rest.first == "." else { return nil }  // `<uuid>-<millis>.opus`: a recording's
        let parts = rest.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        let digest = parts.first.map { $0.count == 16 && $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } } ?? false
        if parts.count == 2, parts[1] == "download", digest {
            return .partial(sermonId: sermonId, shaPrefix: String(parts[0]))
        }
        // This process's own imports are newer than its start, and never looked at (`reconcile`).
        if let last = parts.last, last.hasPrefix("part-"), last.count > 5, last.dropFirst(5).allSatisfy(\.isNumber) {
            return .importLeftover
        }
        // `<uuid>.<sha16>[.<ext>]` (an import) and `<uuid>[.<ext>]` (a download), as `AudioFileName` makes them.
        if digest, parts.count == 1 || (parts.count == 2 && AudioFileName.keepsExtension(parts[1])) { return .imported(sermonId: sermonId) }
        if parts.count == 1, AudioFileName.keepsExtension(parts[0]) { return .final(sermonId: sermonId) }
        return nil
    }

    /// The names in a directory and when each was last written (none when it does not exist). Blocking.
    static func listDirectory(_ path: String) -> [(name: String, modifiedMillis: Int64)] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [(String, Int64)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name != "." && name != ".." else { continue }
            var st = stat()
            guard lstat("\(path)/\(name)", &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            // Any file may be here, with any time (a far-future mtime must not trap).
            let (ms, overflow) = Int64(st.st_mtim.tv_sec).multipliedReportingOverflow(by: 1000)
            names.append((name, overflow ? (st.st_mtim.tv_sec < 0 ? .min : .max) : ms &+ Int64(st.st_mtim.tv_nsec) / 1_000_000))
        }
        return names
    }
}
