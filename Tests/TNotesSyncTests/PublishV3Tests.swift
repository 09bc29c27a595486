import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Contract §8.5, publishing as seed 004 meant it: the publication's details, the audio as a part (Range), a
/// user's index and podcast feed, handles, forks across users, and the page judged by axe-core and the W3C
/// validator.
@Suite("publishing v3 (contract §8.5)", .serialized)
struct PublishV3Tests {
    static func get(_ url: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        try HTTPTestClient(baseURL: "").request("GET", url, headers: headers.merging(noCache) { a, _ in a })
    }

    /// sha256sum's digest of `data` (through a file: binary data does not survive a String).
    static func sha256(_ data: Data) throws -> String {
        let dir = TempDirectory()
        let path = dir.file("blob")
        try data.write(to: URL(fileURLWithPath: path))
        let out = try ProcessRunner.run("/usr/bin/sha256sum", [path])
        return String(out.stdout.prefix(64))
    }

    /// A sermon with notes citing scripture, a Markdown summary, a transcript and (optionally) audio.
    static func makeSermon(_ c: RPCClient, title: String, audio: String? = nil) throws -> String {
        let sid = try #require(try c.call("sermon.create", ["title": .string(title), "speaker": "Ann Lee", "date": "2025-11-09"])["id"]?.stringValue)
        try c.call("note.add", ["sermonId": .string(sid), "timestamp": 754,
                                "text": "Romans 8:1: there is therefore now no condemnation. Grace comes first."])
        try c.call("note.add", ["sermonId": .string(sid), "timestamp": 1300, "text": "Walk after the Spirit <not the flesh> & live."])
        try c.call("summary.set", ["sermonId": .string(sid), "title": "Key points", "type": "bullet",
                                   "text": "- **Grace** comes first\n- *No* condemnation (John 3:16)\n\nA closing paragraph with <b>no tags</b> & an ampersand."])
        try c.call("transcript.set", ["sermonId": .string(sid), "text": "There is therefore now no condemnation.",
                                      "segments": [["start": 0, "end": 4.5, "text": "There is therefore now"], ["start": 4.5, "end": 8, "text": "no condemnation."]]])
        if let audio { try c.call("audio.import", ["sermonId": .string(sid), "path": .string(audio)]) }
        return sid
    }

    @Test("details, audio with Range, a handle's index and feed list exactly the published sermons, newest first; unpublished leave at once",
          arguments: Backend.allCases)
    func indexFeedAndAudio(backend: Backend) throws {
        let rig = try SyncRig(devices: 1, server: try backend.makeServer())
        defer { rig.stop() }
        try rig.withLogs {
            let c = try rig.rpc(0)
            let audio = rig.a.dir.file("sermon.ogg")
            let bytes = Data((0..<(300 << 10)).map { _ in UInt8.random(in: 0...255) })
            try bytes.write(to: URL(fileURLWithPath: audio))
            let first = try Self.makeSermon(c, title: "No Condemnation", audio: audio)
            let second = try Self.makeSermon(c, title: "Bread of Life")
            let hidden = try Self.makeSermon(c, title: "Not for now")

            let p = try c.call("sermon.publish", ["id": .string(first), "parts": ["notes", "summary", "transcript", "audio"],
                                                  "description": "Paul on life in the Spirit", "tags": ["grace", "romans"],
                                                  "language": "pt-BR", "canFork": true])
            #expect(p["tags"] == ["grace", "romans"] && p["language"] == "pt-BR" && p["canFork"] == true
                    && p["description"] == "Paul on life in the Spirit", "\(p.text)")
            try c.call("sermon.publish", ["id": .string(second)])
            try c.call("sermon.publish", ["id": .string(hidden)])
            // Bad details are named.
            #expect(try c.callError("sermon.publish", ["id": .string(second), "language": "not a tag!"]).field == "language")
            #expect(try c.callError("sermon.publish", ["id": .string(second), "tags": .array((0..<21).map { .string("t\($0)") })]).field == "tags")
            #expect(try c.callError("sermon.publish", ["id": .string(second), "tags": [""]]).field == "tags[0]")
            try c.call("sync.now", ["wait": true])
            #expect(try eventually(timeout: 30) { try c.call("sermon.get", ["id": .string(first)])["audio"]?["uploaded"] == true })
            try c.call("sermon.unpublish", ["id": .string(hidden)])
            try c.call("sync.now", ["wait": true])

            // The handle: taken by another user first is 409 over HTTP, -32002 on the socket.
            let bob = try rig.server.addUser("bob")
            let patch = try HTTPTestClient(baseURL: rig.server.baseURL, token: bob)
                .request("PATCH", "/v1/account", body: Data(#"{"handle": "Taken-Name"}"#.utf8), headers: ["Content-Type": "application/json"])
            #expect(patch.status == 200 && patch.json?["handle"] == "taken-name", "\(patch.status) \(patch.text)")
            #expect(try c.callError("account.update", ["handle": "taken-name"]).code == -32002)
            #expect(try c.callError("account.update", ["handle": "x"]).field == "handle")
            let account = try c.call("account.update", ["handle": "Grace-Chapel"])
            #expect(account["handle"] == "grace-chapel" && account["url"]?.stringValue == rig.server.baseURL + "/u/grace-chapel")

            let publication = try #require(try c.call("sermon.get", ["id": .string(first)])["publication"])
            let url = try #require(publication["url"]?.stringValue)
            let json = try #require(try Self.get(url + ".json").json)
            #expect(json["description"] == "Paul on life in the Spirit" && json["tags"] == ["grace", "romans"] && json["language"] == "pt-BR"
                    && json["canFork"] == true, "\(json.text)")
            #expect(json["audio"]?["sizeBytes"]?.int64Value == Int64(bytes.count) && json["audio"]?["type"] == "audio/ogg")
            let page = try Self.get(url)
            #expect(page.text.contains("<html lang=\"pt-BR\">") && page.text.contains("<main>"))
            #expect(page.text.contains("<strong>Grace</strong> comes first") && page.text.contains("&lt;b&gt;no tags&lt;/b&gt; &amp; an ampersand"),
                    "the summary's Markdown rendered, its HTML escaped")
            #expect(page.text.contains("There is therefore now no condemnation to them which are in Christ Jesus"), "the cited verse's KJV text")
            #expect(page.text.contains("Romans 8:1 (KJV)") && page.text.contains("John 3:16 (KJV)"))
            #expect(page.text.contains("<audio controls") && !page.text.contains("<script"))

            // The audio: the same bytes, whole and by Range, without a token.
            let whole = try Self.get(url + "/audio")
            #expect(whole.status == 200 && whole.body == bytes && whole.headers.first { $0.key.lowercased() == "content-type" }?.value == "audio/ogg")
            let wholeDigest = try Self.sha256(whole.body), bytesDigest = try Self.sha256(bytes)
            #expect(wholeDigest == bytesDigest)
            let part = try Self.get(url + "/audio", headers: ["Range": "bytes=1000-1999"])
            #expect(part.status == 206 && part.body == bytes[1000..<2000])

            // The index and the feed: exactly the two published, newest first.
            let index = try Self.get(rig.server.baseURL + "/u/grace-chapel")
            #expect(index.status == 200 && index.text.contains("No Condemnation") && index.text.contains("Bread of Life"))
            #expect(!index.text.contains("Not for now"))
            let secondURL = try #require(try c.call("sermon.get", ["id": .string(second)])["publication"]?["url"]?.stringValue)
            #expect(index.text.range(of: "/p/" + (secondURL.components(separatedBy: "/p/").last ?? ""))!.lowerBound
                    < index.text.range(of: "/p/" + (url.components(separatedBy: "/p/").last ?? ""))!.lowerBound, "newest first")
            #expect(try Self.get(rig.server.baseURL + "/u/nobody-here").status == 404)
            let feedURL = rig.server.baseURL + "/u/grace-chapel/feed.xml"
            let feedResponse = try Self.get(feedURL)
            #expect(feedResponse.status == 200 && feedResponse.headers.first { $0.key.lowercased() == "content-type" }?.value.hasPrefix("application/rss+xml") == true)
            if PublishTools.feedUnavailable == nil {
                let feed = try #require(try PublishTools.run("check-feed.py", [feedURL]) as? [String: Any])
                #expect(feed["bozo"] as? Bool == false, "\(feed)")
                let entries = feed["entries"] as? [[String: Any]] ?? []
                #expect(entries.map { $0["title"] as? String } == ["Bread of Life", "No Condemnation"])
                let enclosures = entries.last?["enclosures"] as? [[String: Any]] ?? []
                #expect(enclosures.count == 1 && (entries.first?["enclosures"] as? [Any])?.isEmpty == true)
                let href = try #require(enclosures.first?["href"] as? String)
                #expect(enclosures.first?["length"] as? String == String(bytes.count) && enclosures.first?["type"] as? String == "audio/ogg")
                let enclosed = try Self.get(href)
                let digest = try Self.sha256(enclosed.body), expected = try Self.sha256(bytes)
                #expect(enclosed.status == 200 && digest == expected)
            } else {
                #expect(feedResponse.text.contains("<enclosure url=\"\(url)/audio\" length=\"\(bytes.count)\" type=\"audio/ogg\"/>"))
                print("feed checked without feedparser: \(PublishTools.feedUnavailable ?? "")")
            }

            // Unpublished: gone from both at once, its audio with it.
            try c.call("sermon.unpublish", ["id": .string(first)])
            try c.call("sync.now", ["wait": true])
            #expect(!(try Self.get(rig.server.baseURL + "/u/grace-chapel").text.contains("No Condemnation")))
            #expect(!(try Self.get(feedURL).text.contains("No Condemnation")))
            #expect(try Self.get(url + "/audio").status == 410)
        }
    }

    @Test("a fork across two users copies notes, summary and transcript with forkedFrom; canFork false is -32004")
    func forkAcrossUsers() throws {
        let rig = try SyncRig(devices: 1)
        defer { rig.stop() }
        let bobToken = try rig.server.addUser("bob")
        let bob = DaemonProcess(environment: ["TNOTES_TOKEN": bobToken])
        let config = try bob.dir.write("tnotesd.toml", syncConfigText(serverURL: rig.server.baseURL, backoffBase: 0.2, backoffMax: 1))
        bob.extraArguments = ["--config", config]
        try bob.start()
        defer { bob.stop() }
        try rig.withLogs {
            let a = try rig.rpc(0), b = try bob.client()
            let open = try Self.makeSermon(a, title: "Forkable")
            let closed = try Self.makeSermon(a, title: "Mine alone")
            try a.call("sermon.publish", ["id": .string(open), "parts": ["notes", "summary", "transcript"], "canFork": true])
            try a.call("sermon.publish", ["id": .string(closed), "parts": ["notes", "summary", "transcript"]])
            try a.call("sync.now", ["wait": true])
            let openURL = try #require(try a.call("sermon.get", ["id": .string(open)])["publication"]?["url"]?.stringValue)
            let closedURL = try #require(try a.call("sermon.get", ["id": .string(closed)])["publication"]?["url"]?.stringValue)

            let forked = try b.call("sermon.fork", ["url": .string(openURL)])
            let copy = try #require(forked["id"]?.stringValue)
            #expect(copy != open && forked["title"] == "Forkable" && forked["speaker"] == "Ann Lee")
            #expect(forked["forkedFrom"]?["url"] == .string(openURL) && forked["forkedFrom"]?["publicId"]?.stringValue.map { openURL.hasSuffix($0) } == true)
            let got = try b.call("sermon.get", ["id": .string(copy)])
            #expect(got["notes"]?.arrayValue?.map { $0["text"] } == ["Romans 8:1: there is therefore now no condemnation. Grace comes first.",
                                                                  "Walk after the Spirit <not the flesh> & live."])
            #expect(got["notes"]?.arrayValue?.first?["timestamp"]?.doubleValue == 754)
            #expect(got["summary"]?["text"]?.stringValue?.hasPrefix("- **Grace** comes first") == true && got["summary"]?["type"] == "bullet")
            #expect(got["transcript"]?["segments"]?.arrayValue?.count == 2 && got["transcript"]?["text"] == "There is therefore now no condemnation.")
            // It is bob's own sermon: it syncs to bob's account, not alice's.
            try b.call("sync.now", ["wait": true])
            #expect(try rig.serverRecord(copy) == nil, "the copy is not in alice's log")

            let refused = try b.callError("sermon.fork", ["url": .string(closedURL)])
            #expect(refused.code == -32004, "\(refused)")
            #expect(try b.callError("sermon.fork", ["url": "ftp://example.org/p/x"]).field == "url")
            #expect(try b.callError("sermon.fork", ["url": .string(rig.server.baseURL + "/p/nothing-here-0123456789abcdef")]).code == -32001)
            #expect(try b.call("sermon.list")["items"]?.arrayValue?.count == 1, "nothing half-made by the refused forks")
        }
    }

    @Test("the page with notes, a Markdown summary, a transcript, scripture and audio: zero axe-core violations, zero W3C validator errors",
          .enabled(if: PublishTools.pageUnavailable == nil, "needs chromium, chromium-driver, Java and the tools of scripts/publish-tools/install.sh"))
    func accessibleValidPage() throws {
        let rig = try SyncRig(devices: 1)
        defer { rig.stop() }
        try rig.withLogs {
            let c = try rig.rpc(0)
            let audio = rig.a.dir.file("sermon.ogg")
            try Data((0..<4096).map { UInt8($0 & 0xFF) }).write(to: URL(fileURLWithPath: audio))
            let sid = try Self.makeSermon(c, title: "No Condemnation <Romans 8>", audio: audio)
            try c.call("sermon.publish", ["id": .string(sid), "parts": ["notes", "summary", "transcript", "audio"],
                                          "description": "Paul on life in the Spirit", "tags": ["grace"], "canFork": true])
            try c.call("account.update", ["handle": "grace-chapel"])
            try c.call("sync.now", ["wait": true])
            let url = try #require(try c.call("sermon.get", ["id": .string(sid)])["publication"]?["url"]?.stringValue)
            #expect(try Self.get(url).text.contains("Romans 8:1 (KJV)"), "the page cites scripture with its text")
            let artifacts = ProcessInfo.processInfo.environment["TNOTES_TEST_ARTIFACTS"] ?? "\(Binaries.packageBuildDirectory)/test-artifacts"
            for page in [url, rig.server.baseURL + "/u/grace-chapel"] {
                let verdict = try #require(try PublishTools.run("check-page.py", [page, artifacts]) as? [String: Any])
                let violations = verdict["violations"] as? [[String: Any]] ?? []
                let errors = verdict["validatorErrors"] as? [Any] ?? []
                #expect(violations.isEmpty, "axe-core on \(page): \(violations)")
                #expect(errors.isEmpty, "W3C validator on \(page): \(errors)")
                #expect((verdict["axeVersion"] as? String)?.isEmpty == false)
            }
        }
    }
}
