import Foundation
import Testing
import TNotesCore
import TNotesSQLite
import TNotesTestSupport

// Devices, pairing codes, quotas and rate limits (contract §8.6, issue #55), on SQLite and PostgreSQL.

extension ServerProcess {
    /// `user pair NAME`: the code on the last line.
    func pairingCode(_ user: String) throws -> String {
        let r = try cli(["user", "pair"], [user])
        guard r.status == 0, let code = r.stdout.split(separator: "\n").last.map(String.init) else {
            throw HarnessError("user pair \(user) failed (\(r.status)): \(r.stderr)")
        }
        return code
    }

    /// Runs one SQL statement on the server's database (to age a pairing code).
    func runSQL(_ backend: Backend, _ statement: String) throws {
        switch backend {
        case .sqlite:
            let db = try SQLiteConnection(path: dataDir + "/tnotes-server.sqlite", create: false)
            try db.exec(statement)
        case .postgres:
            _ = try PostgresServer.shared.get().sql(database, statement)
        }
    }
}

extension HTTPTestClient {
    /// POST /v1/devices/pair.
    func pair(_ code: String, name: String) throws -> HTTPResponse {
        try post("/v1/devices/pair", json: ["code": .string(code), "name": .string(name)])
    }
}

@Suite("tnotes-server devices, quotas and rate limits")
struct DevicesTests {
    @Test("user add prints a code; two devices pair with codes and both sync; reused, expired and unknown codes fail",
          arguments: Backend.allCases)
    func pairing(backend: Backend) throws {
        let server = try backend.makeServer()
        let add = try server.cli(["user", "add"], ["alice"])
        #expect(add.status == 0, "user add: \(add.stderr)")
        let firstCode = try #require(add.stdout.split(separator: "\n").last.map(String.init))
        #expect(firstCode.count == 9 && firstCode.contains("-"), "a short code, typed by a person: \(add.stdout)")
        #expect(try server.cli(["user", "pair"], ["nobody"]).status == 1)
        try server.start()
        defer { server.stop() }
        let anon = server.client()

        // The first device types the code in lower case and without its hyphen.
        let typed = firstCode.lowercased().replacingOccurrences(of: "-", with: "")
        let laptop = try anon.pair(typed, name: "laptop\n")
        #expect(laptop.status == 200, "\(laptop.text)")
        let laptopToken = try #require(laptop.json?["token"]?.stringValue)
        let laptopId = try #require(laptop.json?["deviceId"]?.stringValue)
        #expect(Identifier.isUUID(laptopId))

        // A used code: 400 with a message that says so.
        let again = try anon.pair(firstCode, name: "thief")
        #expect(again.status == 400 && again.json?["error"]?.stringValue == "code_used", "\(again.text)")
        #expect(again.json?["detail"]?.stringValue?.contains("used") == true)
        // An unknown one: 404. A malformed one: 400 naming the field.
        let unknown = try anon.pair("ZZZZ-ZZZZ", name: "x")
        #expect(unknown.status == 404 && unknown.json?["field"]?.stringValue == "code", "\(unknown.text)")
        let malformed = try anon.pair("12", name: "x")
        #expect(malformed.status == 400 && malformed.json?["field"]?.stringValue == "code", "\(malformed.text)")
        let noName = try anon.pair(try server.pairingCode("alice"), name: " \u{7}")
        #expect(noName.status == 400 && noName.json?["field"]?.stringValue == "name", "\(noName.text)")

        // An expired code: 400, its own error.
        let old = try server.pairingCode("alice")
        try server.runSQL(backend, "UPDATE pairing_codes SET expires_at = '2020-01-01T00:00:00.000Z' WHERE used_at IS NULL")
        let expired = try anon.pair(old, name: "late")
        #expect(expired.status == 400 && expired.json?["error"]?.stringValue == "code_expired", "\(expired.text)")

        // The second device pairs with a code of its own.
        let phone = try anon.pair(try server.pairingCode("alice"), name: "phone")
        #expect(phone.status == 200, "\(phone.text)")
        let phoneToken = try #require(phone.json?["token"]?.stringValue)
        #expect(phoneToken != laptopToken)

        // Both sync, as one user.
        let a = server.client(laptopToken), b = server.client(phoneToken)
        let s = Wire.id()
        #expect(try a.push([Wire.change(.sermons, Wire.sermon(s, title: "From the laptop"))], deviceId: "laptop").statuses == ["applied"])
        #expect(try b.pullAll().changes.contains { $0["id"]?.stringValue == s })
        #expect(try b.push([Wire.change(.notes, Wire.note(Wire.id(), sermonId: s, text: "from the phone"))], deviceId: "phone").statuses == ["applied"])
        #expect(try a.pullAll().changes.count == 2)

        // Each lists both devices, marking itself.
        let listed = try a.get("/v1/devices", headers: noCache)
        #expect(listed.status == 200)
        let items = listed.json?["items"]?.arrayValue ?? []
        #expect(Set(items.compactMap { $0["name"]?.stringValue }) == ["laptop", "phone"], "\(listed.text)")
        #expect(items.first { $0["current"]?.boolValue == true }?["id"]?.stringValue == laptopId)
        #expect(items.allSatisfy { $0["lastSeenAt"]?.stringValue != nil && $0["createdAt"]?.stringValue != nil }, "\(listed.text)")
        #expect(!listed.text.contains(laptopToken) && !listed.text.contains(phoneToken))
    }

    @Test("revoking one device cuts it off with 401 revoked; the other keeps syncing; a user's revoke ends all",
          arguments: Backend.allCases)
    func revoke(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"]) { server, tokens in
            let phone = try server.client().pair(try server.pairingCode("alice"), name: "phone")
            let phoneToken = try #require(phone.json?["token"]?.stringValue)
            let phoneId = try #require(phone.json?["deviceId"]?.stringValue)
            let laptop = server.client(tokens["alice"]), lost = server.client(phoneToken)
            #expect(try lost.pullPage().changes.isEmpty)

            // Bob cannot revoke Alice's device, nor can a malformed id be.
            #expect(try server.client(tokens["bob"]).request("DELETE", "/v1/devices/\(phoneId)").status == 404)
            #expect(try laptop.request("DELETE", "/v1/devices/nope").status == 400)
            #expect(try laptop.request("DELETE", "/v1/devices/\(phoneId)").status == 204)
            #expect(try laptop.request("DELETE", "/v1/devices/\(phoneId)").status == 404, "revoked once")

            let refused = try lost.get("/v1/sync/pull", headers: noCache)
            #expect(refused.status == 401 && refused.json?["error"]?.stringValue == "revoked", "\(refused.text)")
            #expect(refused.header("WWW-Authenticate") == "Bearer")
            let unknown = try server.client("tn_" + String(repeating: "1", count: 64)).get("/v1/sync/pull", headers: noCache)
            #expect(unknown.status == 401 && unknown.json?["error"]?.stringValue == "unauthorized")

            // The other device goes on.
            #expect(try laptop.push([Wire.change(.sermons, Wire.sermon(Wire.id()))]).statuses == ["applied"])
            let left = try laptop.get("/v1/devices", headers: noCache).json?["items"]?.arrayValue ?? []
            #expect(left.count == 1 && left.first?["current"]?.boolValue == true)

            // Revoking the user ends every device of theirs; Bob is untouched.
            #expect(try server.cli(["user", "revoke"], ["alice"]).status == 0)
            #expect(try laptop.get("/v1/sync/pull", headers: noCache).json?["error"]?.stringValue == "revoked")
            #expect(try server.client(tokens["bob"]).pullPage().changes.isEmpty)
            let metrics = try server.client().get("/metrics").text
            #expect(metrics.contains("tnotes_refused_requests_total{status=\"401\",reason=\"revoked\"}"), "\(metrics.suffix(2000))")
        }
    }

    @Test("quotas: records rejected with reason quota, audio 413, deleting frees; GET /v1/account; another user unaffected",
          arguments: Backend.allCases)
    func quotas(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"]) { server, tokens in
            let quota = try server.cli(["user", "quota"], ["alice", "--records", "3", "--audio-bytes", "1000"])
            #expect(quota.status == 0, "\(quota.stderr)")
            #expect(quota.stdout.contains("of 3") && quota.stdout.contains("of 1000"), "\(quota.stdout)")
            #expect(try server.cli(["user", "quota"], ["alice", "--records", "lots"]).status == 2)
            let a = server.client(tokens["alice"]), b = server.client(tokens["bob"])

            // Three live records fit; the fourth and fifth of one batch are refused, each with reason quota.
            let s1 = Wire.id(), s2 = Wire.id()
            let sermon1 = Wire.sermon(s1, title: "One"), sermon2 = Wire.sermon(s2, title: "Two")
            let n = (0..<3).map { _ in Wire.id() }
            let answer = try a.push([
                Wire.change(.sermons, sermon1), Wire.change(.sermons, sermon2),
                Wire.change(.notes, Wire.note(n[0], sermonId: s1, text: "a")),
                Wire.change(.notes, Wire.note(n[1], sermonId: s1, text: "b")),
                Wire.change(.notes, Wire.note(n[2], sermonId: s1, text: "c")),
            ])
            #expect(answer.statuses == ["applied", "applied", "applied", "rejected", "rejected"])
            #expect(answer.results.suffix(2).allSatisfy { $0["reason"]?.stringValue == "quota" }, "\(answer.results)")
            // The legacy API is held to the same quota: a new sermon is 413, and nothing is stored.
            let legacy = try a.post("/api/create-sermon", json: ["localId": .string(Wire.id()), "title": "Over the quota"])
            #expect(legacy.status == 413 && legacy.json?["error"]?.stringValue == "quota_exceeded", "\(legacy.text)")
            // A stale delete (older than the record it names: superseded) frees no room for a new record in its batch.
            let stale = try a.push([
                Wire.change(.notes, Wire.note(n[0], sermonId: s1, text: "a", updatedAt: Wire.time(-10), deletedAt: Wire.time(-10))),
                Wire.change(.notes, Wire.note(Wire.id(), sermonId: s1, text: "rides on a stale delete")),
            ])
            #expect(stale.statuses == ["superseded", "rejected"], "\(stale.results)")
            // An update of a live record is not a new one.
            #expect(try a.push([Wire.change(.sermons, Wire.sermon(s1, title: "One, renamed", updatedAt: Wire.time(5)))]).statuses == ["applied"])

            let account = try a.get("/v1/account", headers: noCache).json
            #expect(account?["usage"]?["records"]?.int64Value == 3)
            #expect(account?["quota"]?["records"]?.int64Value == 3 && account?["quota"]?["audioBytes"]?.int64Value == 1000)

            // Audio: over the quota is 413 quota_exceeded; within it, stored.
            let small = testBytes(600, seed: 1), big = testBytes(1200, seed: 2)
            #expect(try a.putAudio(s1, small, headers: ["X-Content-SHA256": TestSHA256.hex(small)]).status == 201)
            let over = try a.putAudio(s2, small, headers: ["X-Content-SHA256": TestSHA256.hex(small)])
            #expect(over.status == 413 && over.json?["error"]?.stringValue == "quota_exceeded", "\(over.text)")
            // Replacing the sermon's own audio counts its old bytes as freed.
            let replacement = testBytes(900, seed: 3)
            #expect(try a.putAudio(s1, replacement, headers: ["X-Content-SHA256": TestSHA256.hex(replacement)]).status == 201)
            #expect(try a.putAudio(s1, big, headers: ["X-Content-SHA256": TestSHA256.hex(big)]).status == 413)

            // Bob has no quota: neither limit touches him.
            let bs = Wire.id()
            #expect(try b.push((0..<6).map { i in Wire.change(.sermons, i == 0 ? Wire.sermon(bs) : Wire.sermon(Wire.id())) })
                .statuses == Array(repeating: "applied", count: 6))
            #expect(try b.putAudio(bs, big, headers: ["X-Content-SHA256": TestSHA256.hex(big)]).status == 201)

            // Deleting frees: the sermon with the audio goes (with it, its audio's bytes), then the refused note fits.
            #expect(try a.push([Wire.change(.sermons, Wire.sermon(s1, title: "One, renamed", updatedAt: Wire.time(9), deletedAt: Wire.time(9)))])
                .statuses == ["applied"])
            let freed = try a.get("/v1/account", headers: noCache).json
            #expect(freed?["usage"]?["records"]?.int64Value == 2 && freed?["usage"]?["audioBytes"]?.int64Value == 0, "\(String(describing: freed))")
            #expect(try a.putAudio(s2, small, headers: ["X-Content-SHA256": TestSHA256.hex(small)]).status == 201)
            #expect(try a.push([Wire.change(.notes, Wire.note(Wire.id(), sermonId: s2, text: "fits now"))]).statuses == ["applied"])
            // Audio for sermons that have no record counts too: made-up ids cannot carry bytes past the quota.
            let third = testBytes(300, seed: 4)
            #expect(try a.putAudio(Wire.id(), third, headers: ["X-Content-SHA256": TestSHA256.hex(third)]).status == 201)
            #expect(try a.putAudio(Wire.id(), third, headers: ["X-Content-SHA256": TestSHA256.hex(third)]).status == 413)
            let metrics = try server.client().get("/metrics").text
            #expect(metrics.contains("tnotes_quota_rejections_total{kind=\"audio\"}"), "\(metrics.suffix(2000))")
        }
    }

    @Test("rate limit per token (429 with Retry-After), per address without one; another token unaffected",
          arguments: Backend.allCases)
    func rateLimit(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"], configure: { server in
            let config = server.dir.file("server.toml")
            try "rate_burst = 5\n".write(toFile: config, atomically: true, encoding: .utf8)
            server.extraArguments = ["--rate-limit", "1", "--config", config]
        }) { server, tokens in
            let a = server.client(tokens["alice"]), b = server.client(tokens["bob"])
            var statuses = [Int]()
            for _ in 0..<8 { statuses.append(try a.get("/v1/sync/pull", headers: noCache).status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 200 } && statuses.last == 429, "\(statuses)")
            let limited = try a.get("/v1/sync/pull", headers: noCache)
            #expect(limited.status == 429 && limited.json?["error"]?.stringValue == "rate_limited", "\(limited.text)")
            let retry = Int(limited.header("Retry-After") ?? "") ?? 0
            #expect((1...2).contains(retry), "Retry-After \(String(describing: limited.header("Retry-After")))")
            // Another token has its own bucket.
            #expect(try b.get("/v1/sync/pull", headers: noCache).status == 200)
            // Without a token: per address.
            var health = [Int]()
            for _ in 0..<8 { health.append(try server.client().get("/healthz").status) }
            // (Each token's first request, before the server knew it valid, was counted here too: 2 of the 5.)
            #expect(health.prefix(3).allSatisfy { $0 == 200 } && health.last == 429, "\(health)")
            // A made-up token gets no bucket of its own: it is counted by address (pairing guesses included).
            let guess = try server.client("tn_" + String(repeating: "7", count: 64)).pair("ABCD-EFGH", name: "guess")
            #expect(guess.status == 429, "\(guess.status) \(guess.text)")
            // After the wait, the token works again.
            Thread.sleep(forTimeInterval: Double(retry) + 0.2)
            #expect(try a.get("/v1/sync/pull", headers: noCache).status == 200)
            let metrics = try b.get("/metrics").text
            #expect(metrics.contains("tnotes_refused_requests_total{status=\"429\",reason=\"token\"}"), "\(metrics.suffix(2000))")
        }
    }

    @Test("an upgrade keeps each user's token working, as a device named legacy that can be revoked", arguments: Backend.allCases)
    func legacyTokens(backend: Backend) throws {
        let server = try backend.makeServer()
        let token = try server.addUser("alice")
        try server.start()
        _ = server.stop()
        // Back to the schema before devices (SQLite 7, PostgreSQL 14): the token's hash in users, no devices.
        let back = backend == .sqlite
            ? "UPDATE users SET token_hash = (SELECT token_hash FROM devices LIMIT 1); DROP TABLE devices; DROP TABLE pairing_codes; DROP TABLE quotas; PRAGMA user_version = 7;"
            : "UPDATE users SET token_hash = (SELECT token_hash FROM devices LIMIT 1); DROP TABLE devices; DROP TABLE pairing_codes; DROP TABLE quotas; UPDATE schema_version SET version = 14;"
        try server.runSQL(backend, back)
        try server.start()
        defer { server.stop() }
        let http = server.client(token)
        #expect(try http.push([Wire.change(.sermons, Wire.sermon(Wire.id()))]).statuses == ["applied"])
        let items = try http.get("/v1/devices", headers: noCache).json?["items"]?.arrayValue ?? []
        #expect(items.count == 1 && items.first?["name"] == "legacy" && items.first?["current"] == true, "\(items)")
        let id = try #require(items.first?["id"]?.stringValue)
        #expect(try http.request("DELETE", "/v1/devices/\(id)").status == 204)
        #expect(try http.get("/v1/sync/pull", headers: noCache).json?["error"]?.stringValue == "revoked")
    }
}
