import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Shared pieces of the processing tests: `[processing]` configs, engine scripts, speech made by espeak-ng.
enum ProcessingHarness {
    /// A `[processing]` table; `extra` lines are added as written.
    static func config(autoTranscribe: Bool = true, autoSummarize: Bool = false, maxAttempts: Int = 2, timeout: Double = 60,
                       extra: [String] = []) -> String {
        (["[processing]", "auto_transcribe = \(autoTranscribe)", "auto_summarize = \(autoSummarize)",
          "max_attempts = \(maxAttempts)", "timeout = \(timeout)"] + extra).joined(separator: "\n") + "\n"
    }

    /// A SyncRig whose devices also get `processing` in their config (each device its own, or the same).
    /// `sync`: lines added to a device's `[sync]` table (by index).
    static func rig(processing: [String], proxied: Set<Int> = [], backoffBase: Double = 0.2, sync: [Int: String] = [:]) throws -> SyncRig {
        let rig = try SyncRig(devices: processing.count, proxied: proxied, backoffBase: backoffBase, startDevices: false)
        for (i, d) in rig.devices.enumerated() {
            let url = proxied.contains(i) ? rig.proxy!.baseURL : rig.server.baseURL
            let path = try d.dir.write("tnotesd.toml", syncConfigText(serverURL: url, backoffBase: backoffBase, backoffMax: 1)
                                       + (sync[i] ?? "") + processing[i])
            d.extraArguments = ["--config", path]
            try d.start()
        }
        return rig
    }

    /// A single daemon (no sync) with a `[processing]` table and backoff `base` for retries.
    static func daemon(processing: String, backoffBase: Double = 0.1) throws -> DaemonProcess {
        let d = DaemonProcess()
        // Job retries use the [sync] backoff settings even when sync is off; the [sync] table without a
        // server_url sets them without enabling sync.
        let path = try d.dir.write("tnotesd.toml", "[sync]\nbackoff_base = \(backoffBase)\nbackoff_max = \(backoffBase * 4)\n" + processing)
        d.extraArguments = ["--config", path]
        return try d.start()
    }

    /// An executable shell script in `dir` (the engine a test configures as its command).
    static func script(_ dir: TempDirectory, _ name: String, _ body: String) throws -> String {
        let path = try dir.write(name, "#!/bin/sh\n" + body + "\n")
        chmod(path, 0o755)
        return path
    }

    /// Speech as a WAV file, made by espeak-ng (Debian); nil when espeak-ng is not installed.
    static func speech(_ text: String, in dir: TempDirectory, name: String = "speech.wav", speed: Int = 150) throws -> String? {
        guard let espeak = ["/usr/bin/espeak-ng", "/usr/local/bin/espeak-ng"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return nil }
        let out = dir.file(name)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: espeak)
        p.arguments = ["-s", String(speed), "-w", out, text]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "espeak-ng failed")
        return out
    }

    /// Polls `jobs.get` until the job is `done` or `failed` (or the timeout passes); the last answer.
    static func waitForJob(_ c: RPCClient, _ id: String, timeout: Double = 120) throws -> JSON {
        var job: JSON = .null
        eventually(timeout: timeout, every: 0.1) {
            job = (try? c.call("jobs.get", ["id": .string(id)])) ?? .null
            let state = job["state"]?.stringValue
            return state == "done" || state == "failed"
        }
        return job
    }

    /// The values a sermon's field took, oldest first, from its history and its current version.
    static func statusHistory(_ c: RPCClient, sermonId: String, field: String) throws -> [String] {
        let h = try c.call("history.list", ["collection": "sermons", "id": .string(sermonId), "limit": 1000])
        var values = (h["items"]?.arrayValue ?? []).reversed().compactMap { $0["record"]?[field]?.stringValue }
        if let now = try c.call("sermon.get", ["id": .string(sermonId)])[field]?.stringValue { values.append(now) }
        // Consecutive repeats are other fields' edits.
        return values.reduce(into: [String]()) { out, v in if out.last != v { out.append(v) } }
    }
}
