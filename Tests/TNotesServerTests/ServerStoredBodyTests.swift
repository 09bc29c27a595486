import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// A pushed record is stored, and pulled, as its canonical text (`JSON.text`) whatever form the push body
/// wrote it in. The server keeps a record's text as it came when that text is already canonical and valid as
/// given (`JSON.parseChanges`); these pushes send one that is, one written otherwise, and one that normalizing
/// completes.
@Suite("tnotes-server: stored bodies are canonical")
struct ServerStoredBodyTests {
    @Test("a record pushed canonically, spaced and unordered, or incomplete is pulled as its canonical text",
          arguments: Backend.allCases)
    func storedBodiesAreCanonical(backend: Backend) throws {
        try withServer(backend) { server, tokens in
            let http = server.client(tokens["alice"])
            let sermon = Wire.id()
            let asIs = Wire.note(Wire.id(), sermonId: sermon, text: "as it came \"quoted\"\n", timestamp: 120.25)
            let spaced = Wire.note(Wire.id(), sermonId: sermon, text: "spaced", timestamp: 7.5)
            var incomplete = Wire.note(Wire.id(), sermonId: sermon, text: "incomplete", timestamp: 3)
            incomplete["deletedAt"] = nil  // normalizing adds "deletedAt": null

            // The change envelopes as the writer writes them, each with its record's text spliced in as given.
            func change(_ record: JSONObject, recordText: String) -> String {
                var envelope = Wire.change(.notes, record).objectValue!
                envelope["record"] = .raw(recordText)
                return JSON.object(envelope).text
            }
            let unordered = "{ \"updatedAt\" : \"\(spaced["updatedAt"]!.stringValue!)\", \"timestamp\": 7.50, "
                + ((spaced.filter { $0.key != "updatedAt" && $0.key != "timestamp" }).sorted { $0.key > $1.key }
                    .map { "\(JSON.string($0.key).text) : \($0.value.text)" }.joined(separator: " , ")) + " }"
            #expect(try JSON.parse(unordered) == JSON.parse(JSON.object(spaced).text))
            let body = "{\"deviceId\":\"devA\",\"changes\":["
                + [change(asIs, recordText: JSON.object(asIs).text), change(spaced, recordText: unordered),
                   change(incomplete, recordText: JSON.object(incomplete).text)].joined(separator: ",") + "]}"
            let pushed = try http.request("POST", "/v1/sync/push", body: Data(body.utf8), headers: ["Content-Type": "application/json"])
            #expect(pushed.status == 200, "\(pushed.text)")
            #expect(pushed.json?["results"]?.arrayValue?.map { $0["status"]?.stringValue ?? "?" } == ["applied", "applied", "applied"])

            let pulled = try http.get("/v1/sync/pull", headers: noCache)
            #expect(pulled.status == 200)
            var complete = incomplete
            complete["deletedAt"] = .null
            for record in [asIs, spaced, complete] {
                let canonical = JSON.object(Wire.canonical(.object(record)).objectValue!).text
                #expect(pulled.text.contains("\"record\":" + canonical), "\(record["text"]!): \(pulled.text)")
            }
            #expect(!pulled.text.contains(" : "))
        }
    }
}
