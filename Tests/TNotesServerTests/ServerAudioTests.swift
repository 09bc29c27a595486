import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

// Audio blobs (contract §4 `/v1/audio/{sermonId}`, §7 Range) and the body limits, on SQLite and PostgreSQL.

@Suite("tnotes-server audio and limits")
struct ServerAudioTests {
    /// A server whose config file sets small limits: audio 2048 bytes, JSON bodies 4096 bytes.
    static func smallLimits(_ server: ServerProcess) throws {
        let config = try server.dir.write("tnotes-server.toml", "max_audio_bytes = 2048\nmax_body_bytes = 4096\n")
        server.extraArguments = ["--config", config]
    }

    @Test("audio: PUT with either digest header, GET/HEAD, ranges, 416, digest mismatch, 404, 413", arguments: Backend.allCases)
    func audio(backend: Backend) throws {
        try withServer(backend, configure: Self.smallLimits) { server, tokens in
            let http = server.client(tokens["alice"])
            let s1 = Wire.id(), s2 = Wire.id(), s3 = Wire.id()

            // Missing audio.
            expectJSONError(try http.get("/v1/audio/\(s1)", headers: noCache), status: 404, "GET of missing audio")
            #expect(try http.request("HEAD", "/v1/audio/\(s1)", headers: noCache).status == 404)

            // PUT with X-Content-SHA256 (hex).
            let data = testBytes(1000, seed: 1)
            let hex = TestSHA256.hex(data)
            let put = try http.putAudio(s1, data, headers: ["X-Content-SHA256": hex])
            #expect((200...201).contains(put.status), "PUT: \(put.status) \(put.text)")
            #expect(put.json?["sha256"]?.stringValue == hex)
            #expect(put.json?["sizeBytes"]?.int64Value == 1000)

            let whole = try http.get("/v1/audio/\(s1)", headers: noCache)
            #expect(whole.status == 200)
            #expect(whole.body == Data(data))
            #expect(TestSHA256.hex(Array(whole.body)) == hex)
            let etag = whole.header("ETag")
            #expect(etag?.contains(hex) == true, "ETag \(etag ?? "nil")")

            let head = try http.request("HEAD", "/v1/audio/\(s1)", headers: noCache)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "1000")
            #expect(head.header("ETag") == etag)
            #expect(head.body.isEmpty)

            // Ranges.
            let r1 = try http.get("/v1/audio/\(s1)", headers: ["Range": "bytes=10-19"].merging(noCache) { a, _ in a })
            #expect(r1.status == 206)
            #expect(r1.body == Data(data[10..<20]))
            #expect(r1.header("Content-Range") == "bytes 10-19/1000")
            #expect(r1.header("Content-Length") == "10")

            let suffix = try http.get("/v1/audio/\(s1)", headers: ["Range": "bytes=-5"].merging(noCache) { a, _ in a })
            #expect(suffix.status == 206)
            #expect(suffix.body == Data(data[995..<1000]))
            #expect(suffix.header("Content-Range") == "bytes 995-999/1000")

            let open = try http.get("/v1/audio/\(s1)", headers: ["Range": "bytes=990-"].merging(noCache) { a, _ in a })
            #expect(open.status == 206)
            #expect(open.body == Data(data[990..<1000]))
            #expect(open.header("Content-Range") == "bytes 990-999/1000")

            for spec in ["bytes=1000-", "bytes=5000-"] {
                let beyond = try http.get("/v1/audio/\(s1)", headers: ["Range": spec].merging(noCache) { a, _ in a })
                #expect(beyond.status == 416, "\(spec): \(beyond.status)")
                #expect(beyond.header("Content-Range") == "bytes */1000", "\(spec): \(beyond.header("Content-Range") ?? "nil")")
            }

            // PUT with Digest: sha-256=<base64>, on a new sermon and replacing s1.
            let data2 = testBytes(1500, seed: 2)
            let put2 = try http.putAudio(s2, data2, headers: ["Digest": "sha-256=\(TestSHA256.base64(data2))"])
            #expect((200...201).contains(put2.status), "PUT with Digest: \(put2.status) \(put2.text)")
            #expect(try http.get("/v1/audio/\(s2)", headers: noCache).body == Data(data2))

            let data3 = testBytes(700, seed: 3)
            #expect(try http.putAudio(s1, data3, headers: ["Digest": "sha-256=\(TestSHA256.base64(data3))"]).status / 100 == 2)
            #expect(try http.get("/v1/audio/\(s1)", headers: noCache).body == Data(data3))
            let head3 = try http.request("HEAD", "/v1/audio/\(s1)", headers: noCache)
            #expect(head3.header("Content-Length") == "700")
            #expect(head3.header("ETag") != etag)

            // A digest that does not match: 400, and the previous blob stays (or none).
            let data4 = testBytes(800, seed: 4)
            expectJSONError(try http.putAudio(s1, data4, headers: ["X-Content-SHA256": TestSHA256.hex(data3)]), status: 400,
                            "X-Content-SHA256 mismatch")
            expectJSONError(try http.putAudio(s1, data4, headers: ["Digest": "sha-256=\(TestSHA256.base64(data2))"]), status: 400,
                            "Digest mismatch")
            #expect(try http.get("/v1/audio/\(s1)", headers: noCache).body == Data(data3), "a rejected upload replaced the blob")
            expectJSONError(try http.putAudio(s3, data4, headers: ["X-Content-SHA256": TestSHA256.hex(data)]), status: 400,
                            "mismatch on a sermon without audio")
            #expect(try http.get("/v1/audio/\(s3)", headers: noCache).status == 404, "a rejected upload left a blob")
            // No digest header at all.
            #expect(try http.putAudio(s3, data4, headers: [:]).status == 400)

            // Over max_audio_bytes: 413, nothing kept.
            let big = testBytes(4096, seed: 5)
            let tooBig = try http.putAudio(s1, big, headers: ["X-Content-SHA256": TestSHA256.hex(big)])
            #expect(tooBig.status == 413, "audio over the limit: \(tooBig.status) \(tooBig.text)")
            #expect(try http.get("/v1/audio/\(s1)", headers: noCache).body == Data(data3))
            #expect(try http.putAudio(s3, big, headers: ["X-Content-SHA256": TestSHA256.hex(big)]).status == 413)
            #expect(try http.get("/v1/audio/\(s3)", headers: noCache).status == 404)

            // A push body over max_body_bytes: 413 with a JSON body; a small one still works.
            let huge = Wire.change(.sermons, Wire.sermon(Wire.id(), title: String(repeating: "x", count: 5000)))
            expectJSONError(try http.post("/v1/sync/push", json: ["deviceId": "devA", "changes": [huge]]), status: 413,
                            "push over max_body_bytes")
            expectJSONError(try http.post("/api/create-sermon", json: ["localId": .string(Wire.id()),
                                                                        "title": .string(String(repeating: "y", count: 5000))]),
                            status: 413, "legacy body over max_body_bytes")
            #expect(try http.push([Wire.change(.sermons, Wire.sermon(s1))]).statuses == ["applied"])
            #expect(try http.pullAll().changes.count == 1, "nothing of the refused bodies was stored")
        }
    }
}
