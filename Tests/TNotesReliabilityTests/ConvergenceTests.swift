import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Three devices make random creates, edits, deletes and chat through a proxy that injects resets,
/// dropped responses (after the server applied the push), 500/503, 429 with Retry-After, latency and
/// blackholes. Once the faults stop, all three stores and the server hold the same live records
/// (compared by digest) and no acknowledged write is lost. Devices also edit each other's notes, so the same
/// records are edited concurrently (contract §6.3): every word of every acknowledged edit is then in the
/// final records or in some device's history.
///
/// CI: 150 operations. Long mode: `TNOTES_RELIABILITY_OPS=3000 swift test --filter Convergence`.
@Suite("reliability: convergence under faults", .serialized)
struct ConvergenceTests {
    static var operations: Int { Int(ProcessInfo.processInfo.environment["TNOTES_RELIABILITY_OPS"] ?? "") ?? 150 }

    @Test("three devices converge after random operations under injected faults", arguments: Backend.allCases)
    func converge(backend: Backend) throws {
        let rig = try SyncRig(devices: 3, proxied: [0, 1, 2], interval: 1, backoffBase: 0.05, backoffMax: 0.5,
                              server: try backend.makeServer())
        defer { rig.stop() }
        let proxy = try #require(rig.proxy)
        let clients = try (0..<3).map { try rig.rpc($0) }
        var rng = SeededRNG(seed: 0x7e57)
        var sermons = [[String]](repeating: [], count: 3)   // ids each device knows it made
        var notes = [[String]](repeating: [], count: 3)
        var acknowledgedChat = Set<String>()
        var allNotes = [String]()                              // every device's notes: edits cross devices
        var acknowledgedEdits = [(note: String, word: String)]()
        var faultsSeen = Set<String>()
        let faults: [FaultProxy.Fault] = [.reset, .dropResponse, .respond(status: 500), .respond(status: 503),
                                          .respond(status: 429, retryAfter: 1), .blackhole, .passThrough, .passThrough]
        let started = Date()
        for op in 0..<Self.operations {
            if op % 10 == 0 {
                let f = faults[Int(rng.next() % UInt64(faults.count))]
                faultsSeen.insert(f.description)
                proxy.setFault(f)
                proxy.latency = Double(rng.next() % 3) * 0.02
            }
            let d = Int(rng.next() % 3)
            let c = clients[d]
            switch rng.next() % 10 {
            case 0, 1:
                let s = try c.call("sermon.create", ["title": .string("s\(op)")])
                sermons[d].append(s["id"]!.stringValue!)
            case 2, 3, 4:
                guard let sid = sermons[d].last else { continue }
                if let n = try? c.call("note.add", ["sermonId": .string(sid), "text": .string("n\(op)"), "timestamp": .int(Int64(op))]) {
                    notes[d].append(n["id"]!.stringValue!)
                    allNotes.append(n["id"]!.stringValue!)
                }
            case 5, 6:
                // Any device's note (one this device has not pulled yet answers -32001 and is skipped).
                guard !allNotes.isEmpty else { continue }
                let id = allNotes[Int(rng.next() % UInt64(allNotes.count))]
                let word = "edit\(op)"
                if (try? c.call("note.update", ["id": .string(id), "text": .string("\(word) by \(d)")])) != nil {
                    acknowledgedEdits.append((id, word))
                }
            case 7:
                guard let sid = sermons[d].randomElement(using: &rng) else { continue }
                _ = try? c.call("sermon.update", ["id": .string(sid), "title": .string("t\(op)")])
            case 8:
                guard let sid = sermons[d].last,
                      let m = try? c.call("chat.append", ["sermonId": .string(sid), "role": "user", "content": .string("c\(op)")])
                else { continue }
                acknowledgedChat.insert(m["id"]!.stringValue!)
            default:
                if notes[d].count > 3 {
                    let id = notes[d].removeFirst()
                    _ = try? c.call("note.delete", ["id": .string(id)])
                }
            }
            usleep(op % 25 == 0 ? 200_000 : 40_000)
        }
        let injected = proxy.faultsInjected
        proxy.passThrough()
        proxy.latency = 0
        // Let every device push and pull everything: twice round the ring, then a last pull each.
        for _ in 0..<3 {
            for i in 0..<3 { _ = try? clients[i].call("sync.now", ["wait": true], timeout: 40) }
        }
        for i in 0..<3 { #expect(try rig.waitDrained(i, timeout: 30)) }
        try rig.syncAll()
        let converged = Date().timeIntervalSince(started)

        let digests = try (0..<3).map { try Self.digest(clients[$0]) }
        let serverDigest = try Self.serverDigest(rig)
        print("convergence (\(backend)): ops: \(Self.operations), faults injected: \(injected) (\(faultsSeen.sorted().joined(separator: ", "))), "
              + "time to converge: \(String(format: "%.1f", converged)) s, records: \(digests[0].count)")
        #expect(digests[0] == digests[1], "device 0 and 1 differ")
        #expect(digests[1] == digests[2], "device 1 and 2 differ")
        #expect(digests[0] == serverDigest, "devices and server differ")
        #expect(injected >= 5, "too few faults were injected to mean anything")
        // No acknowledged chat message is lost anywhere.
        let chatIds = Set(digests[0].keys.filter { $0.hasPrefix("chatMessages/") }.map { String($0.dropFirst("chatMessages/".count)) })
        #expect(acknowledgedChat.isSubset(of: chatIds))
        // No acknowledged word is lost: each edit's word is in the final note or in some device's history.
        var texts = [String: [String]]()
        for (id, _) in acknowledgedEdits where texts[id] == nil {
            var seen = [String]()
            if let final = digests[0]["notes/\(id)"] { seen.append(final) }
            for c in clients {
                let h = try c.call("history.list", ["collection": "notes", "id": .string(id), "limit": 1000])
                seen += h["items"]?.arrayValue?.compactMap { $0["record"]?["text"]?.stringValue } ?? []
            }
            texts[id] = seen
        }
        // Every device lists the same conflicts.
        let conflictSets = try clients.map { c in Set(try c.call("conflicts.list").arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) }
        #expect(conflictSets[0] == conflictSets[1] && conflictSets[1] == conflictSets[2], "devices list different conflicts")
        let lost = acknowledgedEdits.filter { e in !(texts[e.note] ?? []).contains { $0.contains(e.word) } }
        print("convergence: acknowledged edits: \(acknowledgedEdits.count), open conflicts: "
              + "\(try clients[0].call("conflicts.list", ["state": "open"]).arrayValue?.count ?? 0), words lost: \(lost.count)")
        #expect(lost.isEmpty, "acknowledged edits lost: \(lost.prefix(5))")
        #expect(acknowledgedEdits.count >= 10, "too few edits to mean anything")
    }

    /// collection/id → canonical record text, for every record a device holds (tombstones included).
    static func digest(_ c: RPCClient) throws -> [String: String] {
        var out = [String: String]()
        var after: JSON = .null
        repeat {
            let page = try c.call("sermon.list", ["includeArchived": true, "includeDeleted": true, "limit": 200, "after": after])
            for s in page["items"]?.arrayValue ?? [] {
                let id = s["id"]!.stringValue!
                out["sermons/\(id)"] = Self.strip(s)
                let full = try c.call("sermon.get", ["id": .string(id)])
                for n in full["notes"]?.arrayValue ?? [] { out["notes/\(n["id"]!.stringValue!)"] = Self.strip(n) }
                if let t = full["transcript"], !t.isNull { out["transcripts/\(t["id"]!.stringValue!)"] = Self.strip(t) }
                if let t = full["summary"], !t.isNull { out["summaries/\(t["id"]!.stringValue!)"] = Self.strip(t) }
                for m in try c.call("chat.list", ["sermonId": .string(id)]).arrayValue ?? [] {
                    out["chatMessages/\(m["id"]!.stringValue!)"] = Self.strip(m)
                }
            }
            after = page["next"] ?? .null
        } while !after.isNull
        return out
    }

    /// The same view from the server: the latest version of each record, live notes only (as sermon.get shows).
    static func serverDigest(_ rig: SyncRig) throws -> [String: String] {
        var latest = JSONObject()
        for c in try rig.serverChanges() {
            latest["\(c["collection"]!.stringValue!)/\(c["id"]!.stringValue!)"] = c["record"]
        }
        var out = [String: String]()
        for (key, record) in latest {
            // Conflicts are not part of a sermon's view (they are compared through conflicts.list).
            if key.hasPrefix("conflicts/") { continue }
            if !key.hasPrefix("sermons/") && !(record["deletedAt"]?.isNull ?? true) { continue }
            out[key] = strip(record)
        }
        return out
    }

    static func strip(_ j: JSON) -> String {
        j.removing("syncState", "notes", "transcript", "summary", "audio").text
    }
}
