import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// Users, tokens and isolation (contract §4 Auth, §7), on SQLite and PostgreSQL.

/// Bits of randomness a token's text can carry: the part after an optional `prefix_`, counted as hex
/// (4 bits a character) when it is hex, else as base64/base64url (6 bits), else nothing.
func tokenBits(_ token: String) -> Int {
    var body = Substring(token)
    if let underscore = body.firstIndex(of: "_"), body[..<underscore].allSatisfy({ $0.isLetter }) {
        body = body[body.index(after: underscore)...]
    }
    let hex = Set("0123456789abcdefABCDEF")
    let b64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=")
    if body.allSatisfy({ hex.contains($0) }) { return body.count * 4 }
    if body.allSatisfy({ b64.contains($0) }) { return body.filter { $0 != "=" }.count * 6 }
    return 0
}

@Suite("tnotes-server users and isolation")
struct ServerAuthTests {
    @Test("two users are isolated: pulls, same record ids, op ids, audio, legacy endpoints", arguments: Backend.allCases)
    func usersAreIsolated(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"]) { server, tokens in
            let a = server.client(tokens["alice"]), b = server.client(tokens["bob"])
            let s = Wire.id(), n = Wire.id(), onlyA = Wire.id()
            let aChanges = [
                Wire.change(.sermons, Wire.sermon(s, title: "Alice's sermon")),
                Wire.change(.notes, Wire.note(n, sermonId: s, text: "Alice's note")),
                Wire.change(.sermons, Wire.sermon(onlyA, title: "Only Alice")),
            ]
            #expect(try a.push(aChanges).statuses == ["applied", "applied", "applied"])
            let aliceAudio = testBytes(600, seed: 11)
            #expect(try a.putAudio(s, aliceAudio, headers: ["X-Content-SHA256": TestSHA256.hex(aliceAudio)]).status == 201)
            let aBefore = try a.pullAll().changes

            // Bob sees nothing of Alice's.
            #expect(try b.pullAll().changes.isEmpty)
            #expect(try b.get("/api/get-sermons?userId=1", headers: noCache).json == .array([]))
            #expect(try b.get("/v1/audio/\(s)", headers: noCache).status == 404)
            #expect(try b.request("HEAD", "/v1/audio/\(s)", headers: noCache).status == 404)
            #expect(try b.get("/v1/audio/\(s)", headers: ["Range": "bytes=0-9"]).status == 404)

            // Bob writes records with Alice's ids, newer, under Alice's very op ids: they are Bob's own.
            let bChanges = [
                Wire.change(.sermons, Wire.sermon(s, title: "Bob's sermon", updatedAt: Wire.time(60)), deviceId: "devB",
                            opId: aChanges[0]["opId"]!.stringValue!),
                Wire.change(.notes, Wire.note(n, sermonId: s, text: "Bob's note", updatedAt: Wire.time(60), deletedAt: Wire.time(60)),
                            deviceId: "devB", opId: aChanges[1]["opId"]!.stringValue!),
            ]
            #expect(try b.push(bChanges).statuses == ["applied", "applied"], "op ids and record ids are per user")
            let aAfter = try a.pullAll().changes
            #expect(JSON.array(aAfter).text == JSON.array(aBefore).text, "Bob's push changed Alice's pull")
            let bPulled = try b.pullAll().changes
            #expect(bPulled.count == 2)
            #expect(seqs(bPulled) == [1, 2], "each user has their own sequence")
            #expect(latestById(bPulled)[s]?["record"]?["title"] == "Bob's sermon")

            // Legacy endpoints answer for the token's user whatever userId says.
            let aLegacy = try a.get("/api/get-sermons?userId=whatever", headers: noCache).json?.arrayValue ?? []
            #expect(Set(aLegacy.compactMap { $0["localId"]?.stringValue }) == [s, onlyA])
            let aSermon = aLegacy.first { $0["localId"]?.stringValue == s }
            #expect(aSermon?["title"] == "Alice's sermon")
            #expect(aSermon?["notes"]?.arrayValue?.map { $0["text"] } == ["Alice's note"])
            let aliceUserId = aSermon?["userId"]?.stringValue ?? "1"
            let bLegacy = try b.get("/api/get-sermons?userId=\(aliceUserId)", headers: noCache).json?.arrayValue ?? []
            #expect(bLegacy.map { $0["title"] } == ["Bob's sermon"], "userId=\(aliceUserId) must not show Alice's sermons")
            #expect(bLegacy.first?["notes"]?.arrayValue?.isEmpty == true)
            // Bob cannot update a sermon only Alice has.
            let upd = try b.post("/api/update-sermon", json: ["remoteId": .string(onlyA), "localId": .string(onlyA), "title": "hijacked"])
            expectJSONError(upd, status: 404, "update-sermon of another user's sermon")
            #expect(try a.get("/api/get-sermons", headers: noCache).json?.arrayValue?
                .first { $0["localId"]?.stringValue == onlyA }?["title"] == "Only Alice")

            // Bob's own audio for his sermon of the same id leaves Alice's blob alone.
            let bobAudio = testBytes(300, seed: 12)
            #expect(try b.putAudio(s, bobAudio, headers: ["X-Content-SHA256": TestSHA256.hex(bobAudio)]).status == 201)
            #expect(try a.get("/v1/audio/\(s)", headers: noCache).body == Data(aliceAudio))
            #expect(try b.get("/v1/audio/\(s)", headers: noCache).body == Data(bobAudio))
        }
    }

    @Test("401: no header, wrong scheme, unknown token, revoked token", arguments: Backend.allCases)
    func unauthorized(backend: Backend) throws {
        try withServer(backend, users: ["alice", "bob"]) { server, tokens in
            let anon = server.client()
            let alice = tokens["alice"]!, bob = tokens["bob"]!
            let s = Wire.id()
            let push: JSON = ["deviceId": "devA", "changes": .array([Wire.change(.sermons, Wire.sermon(s))])]
            func expect401(_ headers: [String: String], _ what: String) throws {
                var h = headers
                h["Content-Type"] = "application/json"
                for (method, path, body) in [("GET", "/v1/sync/pull", nil), ("POST", "/v1/sync/push", Data(push.bytes)),
                                             ("GET", "/v1/audio/\(s)", nil), ("HEAD", "/v1/audio/\(s)", nil),
                                             ("PUT", "/v1/audio/\(s)", Data("x".utf8)), ("GET", "/api/get-sermons?userId=1", nil),
                                             ("POST", "/api/create-sermon", Data("{}".utf8))] as [(String, String, Data?)] {
                    var hh = h
                    if method == "PUT" { hh["X-Content-SHA256"] = TestSHA256.hex(Array("x".utf8)) }
                    let r = try anon.request(method, path, body: body, headers: hh)
                    #expect(r.status == 401, "\(what): \(method) \(path) answered \(r.status) \(r.text)")
                    if method != "HEAD" {
                        #expect(r.json?["error"]?.stringValue?.isEmpty == false, "\(what): \(method) \(path): \(r.text)")
                    }
                }
            }
            try expect401([:], "no Authorization header")
            try expect401(["Authorization": "Basic \(Data("alice:\(alice)".utf8).base64EncodedString())"], "Basic scheme")
            try expect401(["Authorization": "Token \(alice)"], "Token scheme")
            try expect401(["Authorization": alice], "a token without a scheme")
            try expect401(["Authorization": "Bearer"], "Bearer without a token")
            try expect401(["Authorization": "Bearer tn_" + String(repeating: "0", count: 64)], "an unknown token")
            try expect401(["Authorization": "Bearer \(alice)x"], "a token with a character added")

            #expect(try server.client(alice).pullPage().changes.isEmpty)
            #expect(try server.client(alice).push([Wire.change(.sermons, Wire.sermon(s))]).statuses == ["applied"])

            let revoke = try server.cli(["user", "revoke"], ["alice"])
            #expect(revoke.status == 0, "user revoke: \(revoke.stderr)")
            try expect401(["Authorization": "Bearer \(alice)"], "a revoked token")
            #expect(try server.cli(["user", "revoke"], ["alice"]).status != 0, "revoking twice is an error")
            #expect(try server.cli(["user", "revoke"], ["nobody"]).status != 0, "revoking an unknown user is an error")
            // Bob is untouched.
            #expect(try server.client(bob).pullPage().changes.isEmpty)
            #expect(try server.client(bob).push([Wire.change(.sermons, Wire.sermon(Wire.id()))]).statuses == ["applied"])
        }
    }

    @Test("user add --token prints the token alone on the last line; user list lists users; 256-bit tokens",
          arguments: Backend.allCases)
    func userCommands(backend: Backend) throws {
        let server = try backend.makeServer()
        let carol = try server.cli(["user", "add", "--token"], ["carol"])
        #expect(carol.status == 0, "user add: \(carol.stderr)")
        let lines = carol.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "stdout ends with a newline")
        let token = lines.dropLast().last.map(String.init) ?? ""
        #expect(!token.isEmpty && !token.contains(where: { $0.isWhitespace }), "last line is the token alone: \(carol.stdout.debugDescription)")
        #expect(tokenBits(token) >= 256, "token \(token) carries only \(tokenBits(token)) bits")
        #expect(carol.stdout.components(separatedBy: token).count == 2, "the token is printed once")

        let dave = try server.cli(["user", "add", "--token"], ["dave"])
        #expect(dave.status == 0)
        let daveToken = dave.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(tokenBits(daveToken) >= 256)
        #expect(daveToken != token)
        #expect(try server.cli(["user", "add"], ["carol"]).status != 0, "a user name is taken once")

        let list = try server.cli(["user", "list"])
        #expect(list.status == 0, "user list: \(list.stderr)")
        let listed = list.stdout.split(separator: "\n")
        #expect(listed.contains { $0.contains("carol") } && listed.contains { $0.contains("dave") }, "\(list.stdout)")
        #expect(!list.stdout.contains(token) && !list.stdout.contains(daveToken), "user list never shows a token")

        _ = try server.cli(["user", "revoke"], ["dave"])
        let afterRevoke = try server.cli(["user", "list"])
        #expect(afterRevoke.stdout.split(separator: "\n").first { $0.contains("dave") }?.contains("revoked") == true,
                "\(afterRevoke.stdout)")

        // The printed token works against the server, the revoked one does not.
        try server.start()
        defer { server.stop() }
        #expect(try server.client(token).pullPage().changes.isEmpty)
        #expect(try server.client(daveToken).get("/v1/sync/pull", headers: noCache).status == 401)

        if backend == .sqlite {
            // Only the token's hash is stored.
            let files = (try? FileManager.default.contentsOfDirectory(atPath: server.dataDir)) ?? []
            for f in files where f.hasPrefix("tnotes-server.sqlite") {
                let bytes = FileManager.default.contents(atPath: "\(server.dataDir)/\(f)") ?? Data()
                #expect(bytes.range(of: Data(token.utf8)) == nil, "\(f) holds the token in clear")
            }
        }
    }
}
