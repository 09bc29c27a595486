import Foundation
import Synchronization
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §8.4 against real buses: two private dbus-daemons per test (`DBusFixture`), python-dbusmock's
/// NetworkManager, UPower, logind and notification server on them, a real tnotes-server and daemon.
@Suite("the desktop over D-Bus (contract §8.4)", .serialized,
       .enabled(if: DBusFixture.unavailable == nil, "needs dbus-daemon, busctl and python-dbusmock (scripts/dbusmock/install.sh)"))
struct DesktopBusTests {
    /// A server and one device on `bus`'s buses, `extra` added to its config.
    static func rig(_ bus: DBusFixture, extra: String = "", proxied: Bool = false, interval: Double = 300) throws -> SyncRig {
        let rig = try SyncRig(devices: 1, proxied: proxied ? [0] : [], interval: interval, startDevices: false)
        let d = rig.a
        let url = proxied ? rig.proxy!.baseURL : rig.server.baseURL
        let path = try d.dir.write("tnotesd.toml", syncConfigText(serverURL: url, interval: interval, backoffBase: 0.2, backoffMax: 1) + extra)
        d.extraArguments = ["--config", path]
        for (k, v) in bus.environment { d.environment[k] = v }
        do {
            try d.start()
        } catch {
            rig.stop()
            throw error
        }
        return rig
    }

    /// A local-only daemon on `bus`'s buses with `config`.
    static func daemon(_ bus: DBusFixture, config: String) throws -> DaemonProcess {
        let d = DaemonProcess(environment: bus.environment)
        let path = try d.dir.write("tnotesd.toml", config)
        d.extraArguments = ["--config", path]
        return try d.start()
    }

    static func waitForJob(_ c: RPCClient, _ id: String, timeout: Double = 60) -> String? {
        var state: String?
        eventually(timeout: timeout) {
            state = (try? c.call("jobs.get", ["id": .string(id)]))?["state"]?.stringValue
            return state == "done" || state == "failed"
        }
        return state
    }

    static func status(_ c: RPCClient) throws -> JSON { try c.call("sync.status") }

    @Test("a finished and a failed job each reach the notification server, naming the sermon (escaped); with notifications off, none")
    func jobNotifications() throws {
        let bus = try DBusFixture()
        defer { bus.stop() }
        try bus.startMock("notification_daemon", on: .session, owning: "org.freedesktop.Notifications")
        let d = try Self.daemon(bus, config: "[processing]\nauto_transcribe = false\n")
        defer { d.stop() }
        let c = try d.client()
        let title = "Psalm 23 <The Shepherd> & me"
        let sid = try #require(try c.call("sermon.create", ["title": .string(title)])["id"]?.stringValue)
        try c.call("note.add", ["sermonId": .string(sid), "timestamp": 1,
                                "text": "The Lord is my shepherd; I shall not want. He makes me lie down in green pastures."])
        let done = try #require(try c.call("summary.generate", ["sermonId": .string(sid), "type": "bullet"])["jobId"]?.stringValue)
        #expect(Self.waitForJob(c, done) == "done")
        // Nothing to summarise: fails at once, with its reason.
        let empty = try #require(try c.call("sermon.create", ["title": "Empty evening"])["id"]?.stringValue)
        let failed = try #require(try c.call("summary.generate", ["sermonId": .string(empty), "type": "bullet"])["jobId"]?.stringValue)
        #expect(Self.waitForJob(c, failed) == "failed")

        var sent: [(app: String, summary: String, body: String, urgency: Int?)] = []
        #expect(try eventually(timeout: 10) {
            sent = try bus.notifications()
            return sent.count >= 2
        }, "\(d.log)")
        #expect(sent.count == 2)
        let ready = try #require(sent.first { $0.summary == "Summary ready" }, "\(sent)")
        #expect(ready.app == "tnotes")
        #expect(ready.body.contains("Psalm 23 &lt;The Shepherd&gt; &amp; me"), "\(ready.body)")
        let failure = try #require(sent.first { $0.summary == "Summary failed" }, "\(sent)")
        #expect(failure.body.contains("Empty evening") && failure.body.contains("no transcript or notes"), "\(failure.body)")
        #expect(failure.urgency == 2)
        d.stop()

        // Notifications off: the same jobs, nothing sent.
        try bus.clearNotifications()
        let quiet = try Self.daemon(bus, config: "[desktop]\nnotifications = false\n[processing]\nauto_transcribe = false\n")
        defer { quiet.stop() }
        let q = try quiet.client()
        let s2 = try #require(try q.call("sermon.create", ["title": "Quiet"])["id"]?.stringValue)
        try q.call("note.add", ["sermonId": .string(s2), "timestamp": 1, "text": "Blessed are the meek, for they shall inherit the earth."])
        let j1 = try #require(try q.call("summary.generate", ["sermonId": .string(s2), "type": "bullet"])["jobId"]?.stringValue)
        let e2 = try #require(try q.call("sermon.create", ["title": "Quiet and empty"])["id"]?.stringValue)
        let j2 = try #require(try q.call("summary.generate", ["sermonId": .string(e2), "type": "bullet"])["jobId"]?.stringValue)
        #expect(Self.waitForJob(q, j1) == "done")
        #expect(Self.waitForJob(q, j2) == "failed")
        usleep(1_000_000)
        #expect(try bus.notifications().isEmpty)
    }

    @Test("a conflict opened by a sync and a pull held by the reset guard each notify, naming the sermon and the count")
    func syncNotifications() throws {
        let bus = try DBusFixture()
        defer { bus.stop() }
        try bus.startMock("notification_daemon", on: .session, owning: "org.freedesktop.Notifications")
        // A is on the desktop's buses, B is not.
        let rig = try SyncRig(devices: 2, startDevices: false)
        defer { rig.stop() }
        for (k, v) in bus.environment { rig.a.environment[k] = v }
        try rig.a.start()
        try rig.b.start()
        try rig.withLogs {
            let ca = try rig.rpc(0), cb = try rig.rpc(1)
            let sid = try #require(try ca.call("sermon.create", ["title": "Two devices"])["id"]?.stringValue)
            let nid = try #require(try ca.call("note.add", ["sermonId": .string(sid), "timestamp": 1, "text": "one two three four"])["id"]?.stringValue)
            try rig.syncAll(order: [0, 1])
            try cb.call("note.update", ["id": .string(nid), "text": "one two drei four"])
            try ca.call("note.update", ["id": .string(nid), "text": "one two 3 four"])
            try rig.syncAll(rounds: 2, order: [1, 0])
            #expect(try ca.call("conflicts.list", ["state": "open"]).arrayValue?.count == 1)
            var sent: [(app: String, summary: String, body: String, urgency: Int?)] = []
            #expect(try eventually(timeout: 10) {
                sent = try bus.notifications()
                return sent.contains { $0.summary == "Conflict opened" }
            }, "\(sent)")
            let conflict = try #require(sent.first { $0.summary == "Conflict opened" })
            #expect(conflict.body.contains("Two devices") && conflict.body.contains("text"), "\(conflict.body)")
            // Resolving it is no new conflict.
            let id = try #require(try ca.call("conflicts.list", ["state": "open"]).arrayValue?.first?["id"]?.stringValue)
            try ca.call("conflicts.resolve", ["id": .string(id), "value": "one two three four"])
            try ca.call("sync.now", ["wait": true])

            var ids = [String]()
            for i in 0..<20 { ids.append(try #require(try ca.call("sermon.create", ["title": .string("S\(i)")])["id"]?.stringValue)) }
            try rig.syncAll(order: [0, 1])
            for id in ids.prefix(15) { try cb.call("sermon.delete", ["id": .string(id)]) }
            try cb.call("sync.now", ["wait": true])
            #expect(try ca.call("sync.now", ["wait": true])["held"]?.int64Value == 15)
            #expect(try eventually(timeout: 10) {
                sent = try bus.notifications()
                return sent.contains { $0.summary == "Sync held" }
            }, "\(sent)")
            let held = try #require(sent.first { $0.summary == "Sync held" })
            #expect(held.body.contains("15") && held.body.contains("tnotes sync confirm") && held.urgency == 2, "\(held.body)")
            #expect(sent.filter { $0.summary == "Conflict opened" }.count == 1, "\(sent.map(\.summary))")
        }
    }

    @Test("while metered no audio byte goes to the server and the note still syncs; the audio goes within 30 s once it is not; a fetch by hand runs while metered")
    func meteredHoldsAudio() throws {
        let bus = try DBusFixture()
        defer { bus.stop() }
        try bus.startNetworkManager(metered: 1)
        let rig = try Self.rig(bus, proxied: true)
        defer { rig.stop() }
        try rig.withLogs {
            let proxy = try #require(rig.proxy)
            let c = try rig.rpc(0)
            #expect(try eventually(timeout: 10) { try Self.status(c)["metered"] == true })
            let sid = try #require(try c.call("sermon.create", ["title": "Over a hotspot"])["id"]?.stringValue)
            let note = try #require(try c.call("note.add", ["sermonId": .string(sid), "timestamp": 1, "text": "Notes travel"])["id"]?.stringValue)
            let audio = rig.a.dir.file("sermon.ogg")
            _ = FileManager.default.createFile(atPath: audio, contents: Data((0..<(2 << 20)).map { _ in UInt8.random(in: 0...255) }))
            try c.call("audio.import", ["sermonId": .string(sid), "path": .string(audio)])
            try c.call("sync.now", ["wait": true])
            #expect(try rig.serverRecord(note) != nil, "the note syncs while metered")
            #expect(try rig.serverRecord(sid) != nil)
            // A guess-yes counts as metered too.
            try bus.setMetered(3)
            try c.call("sync.now", ["wait": true])
            usleep(2_000_000)
            #expect(proxy.seen(method: "PUT", pathPrefix: "/v1/audio/").isEmpty, "no audio upload may start while metered")
            #expect(try c.call("sermon.get", ["id": .string(sid)])["audio"]?["uploaded"] == false)

            let lifted = Date()
            try bus.setMetered(2)
            #expect(try eventually(timeout: 30) {
                try c.call("sermon.get", ["id": .string(sid)])["audio"]?["uploaded"] == true
            })
            #expect(Date().timeIntervalSince(lifted) < 30)
            #expect(proxy.seen(method: "PUT", pathPrefix: "/v1/audio/").count >= 1)
            #expect(try Self.status(c)["metered"] == false)

            // Metered again: a fetch asked for by hand still runs (contract §8.7), while the queue waits.
            try bus.setMetered(1)
            #expect(try eventually(timeout: 10) { try Self.status(c)["metered"] == true })
            #expect(try c.call("audio.evict", ["sermonId": .string(sid)])["evicted"] == true)
            let fetched = try c.call("audio.fetch", ["sermonId": .string(sid)])
            #expect(fetched["fetched"] == true && fetched["localAvailable"] == true, "\(fetched.text)")
            #expect(proxy.seen(method: "GET", pathPrefix: "/v1/audio/").count == 1)
        }
    }

    @Test("on battery an automatic transcription waits while one asked for by hand completes, and the interval doubles; on mains it runs")
    func batteryHoldsAutomaticTranscription() throws {
        let bus = try DBusFixture()
        defer { bus.stop() }
        try bus.startMock("upower", on: .system, owning: "org.freedesktop.UPower", parameters: "{\"OnBattery\": true}")
        let scratch = TempDirectory()
        let engine = try scratch.write("engine.sh", "#!/bin/sh\necho '{\"text\": \"grace upon grace\", \"segments\": [{\"start\": 0, \"end\": 1.5, \"text\": \"grace upon grace\"}]}'\n")
        chmod(engine, 0o755)
        let rig = try Self.rig(bus, extra: "[processing]\nauto_transcribe = true\ntranscriber = \"command\"\ntranscribe_command = [\"\(engine)\"]\n")
        defer { rig.stop() }
        try rig.withLogs {
            let c = try rig.rpc(0)
            #expect(try eventually(timeout: 10) { try Self.status(c)["onBattery"] == true })
            #expect(try Self.status(c)["intervalSeconds"]?.doubleValue == 600)
            let audio = try scratch.write("a.wav", "RIFF")

            let automatic = try #require(try c.call("sermon.create", ["title": "Queued on its own"])["id"]?.stringValue)
            try c.call("audio.import", ["sermonId": .string(automatic), "path": .string(audio)])
            let autoJob = try #require(try c.call("jobs.list", ["sermonId": .string(automatic)]).arrayValue?.first?["id"]?.stringValue)
            let asked = try #require(try c.call("sermon.create", ["title": "Asked for"])["id"]?.stringValue)
            try c.call("audio.import", ["sermonId": .string(asked), "path": .string(audio)])
            let handJob = try #require(try c.call("transcript.generate", ["sermonId": .string(asked)])["jobId"]?.stringValue)
            #expect(Self.waitForJob(c, handJob) == "done")
            usleep(1_000_000)
            #expect(try c.call("jobs.get", ["id": .string(autoJob)])["state"] == "queued", "an automatic transcription waits on battery")

            try bus.setOnBattery(false)
            #expect(Self.waitForJob(c, autoJob, timeout: 30) == "done")
            #expect(try Self.status(c)["onBattery"] == false)
            #expect(try Self.status(c)["intervalSeconds"]?.doubleValue == 300)
        }
    }

    @Test("going to sleep, the daemon lets logind's delay lock go once no write is under way, and writes wait; after resume it syncs within 2 s")
    func sleepAndResume() throws {
        let bus = try DBusFixture()
        defer { bus.stop() }
        try bus.startMock("logind", on: .system, owning: "org.freedesktop.login1")
        let rig = try Self.rig(bus)
        defer { rig.stop() }
        try rig.withLogs {
            let c = try rig.rpc(0)
            func holdsLock() throws -> Bool { try bus.sleepInhibitors().contains { $0.who == "tnotes" && $0.mode == "delay" } }
            #expect(try eventually(timeout: 10) { try holdsLock() })
            let sid = try #require(try c.call("sermon.create", ["title": "Before the lid closed"])["id"]?.stringValue)
            try c.call("sync.now", ["wait": true])
            let lastSync = try Self.status(c)["lastSuccessAt"]
            #expect(try Self.status(c)["triggers"]?["resume"] == 0)

            try bus.prepareForSleep(true)
            #expect(try eventually(timeout: 5) { try !holdsLock() }, "the lock goes once the store holds its writes")
            // A write asked for while the machine sleeps waits for the wake-up.
            let written = Mutex(false)
            let socket = rig.a.socketPath
            DispatchQueue.global().async {
                guard let late = try? RPCClient(path: socket) else { return }
                if (try? late.call("note.add", ["sermonId": .string(sid), "timestamp": 2, "text": "written after the wake-up"])) != nil {
                    written.withLock { $0 = true }
                }
            }
            usleep(1_000_000)
            #expect(!written.withLock { $0 }, "no write while asleep")

            try bus.prepareForSleep(false)
            #expect(try eventually(timeout: 2, every: 0.05) {
                let s = try Self.status(c)
                return s["triggers"]?["resume"] == 1 && s["lastSuccessAt"] != lastSync
            }, "a sync within 2 s of the wake-up")
            #expect(eventually(timeout: 5) { written.withLock { $0 } })
            #expect(try eventually(timeout: 5) { try holdsLock() }, "a new lock for the next sleep")
        }
    }

    @Test("with no buses at all the daemon serves and syncs as before, and says so once, at debug level")
    func noBuses() throws {
        // DaemonProcess points both bus addresses at sockets that do not exist.
        let rig = try SyncRig(devices: 1)
        defer { rig.stop() }
        try rig.withLogs {
            let c = try rig.rpc(0)
            let sid = try #require(try c.call("sermon.create", ["title": "No desktop"])["id"]?.stringValue)
            try c.call("sync.now", ["wait": true])
            #expect(try rig.serverRecord(sid) != nil)
            let s = try Self.status(c)
            #expect(s["metered"] == false && s["onBattery"] == false && s["intervalSeconds"]?.doubleValue == 300)
            usleep(1_500_000)  // a few reconnect attempts
            let lines = rig.a.log.split(separator: "\n")
            let system = lines.filter { $0.contains("system bus unavailable") }
            let session = lines.filter { $0.contains("session bus unavailable") }
            #expect(system.count == 1 && system.allSatisfy { $0.contains(" debug ") }, "\(system)")
            #expect(session.count == 1 && session.allSatisfy { $0.contains(" debug ") }, "\(session)")
            #expect(!lines.contains { $0.contains("bus") && ($0.contains(" warning ") || $0.contains(" error ")) })
        }
    }

    @Test("a system bus that restarts is followed again: the new NetworkManager's Metered is seen within seconds")
    func systemBusRestart() throws {
        let bus = try DBusFixture()
        defer { bus.stop() }
        try bus.startNetworkManager(metered: 1)
        let d = try Self.daemon(bus, config: "")
        defer { d.stop() }
        let c = try d.client()
        #expect(try eventually(timeout: 10) { try Self.status(c)["metered"] == true })
        bus.stopBus(.system)
        #expect(try eventually(timeout: 10) { try Self.status(c)["metered"] == false }, "nothing is known without the bus")
        try bus.startBus(.system)
        try bus.startNetworkManager(metered: 1)
        #expect(try eventually(timeout: 10) { try Self.status(c)["metered"] == true }, "\(d.log)")
        #expect(d.log.contains("system bus connection lost; reconnecting"))
    }
}
