import Foundation
import Testing
import TNotesCore
import TNotesTestSupport

/// Seed B9: the seed's update-sermon saved only title/serviceType/statuses/isArchived and dropped the rest
/// (speaker, date) and never bumped updatedAt. Here every field given is saved, and devices see it.
@Suite("tnotes-server legacy update keeps every field")
struct ServerLegacyFieldsTests {
    @Test("update-sermon saves speaker and date, bumps updatedAt, and the change reaches /v1 pull")
    func updateKeepsEveryField() throws {
        let server = ServerProcess()
        let token = try server.addUser("alice")
        try server.start()
        defer { server.stop() }
        let http = HTTPTestClient(baseURL: server.baseURL, token: token)
        let id = Identifier.make()
        let created = try http.post("/api/create-sermon", json: [
            "localId": .string(id), "title": "Sunday Service", "date": "2025-11-06T10:00:00Z", "serviceType": "Sunday Service",
            "speaker": "Pastor John", "transcriptionStatus": "processing", "summaryStatus": "processing", "isArchived": false,
        ])
        #expect(created.status == 201)
        let before = try #require(created.json?["updatedAt"]?.stringValue)

        let updated = try http.post("/api/update-sermon", json: [
            "remoteId": .string(id), "title": "Sunday Service (evening)", "speaker": "Pastor Ann",
            "date": "2025-11-06T18:30:00Z", "serviceType": "Evening Service",
        ])
        #expect(updated.status == 200)
        let sermons = try #require(try http.get("/api/get-sermons?userId=ignored").json?.arrayValue)
        let s = try #require(sermons.first { $0["id"]?.stringValue == id })
        #expect(s["speaker"] == "Pastor Ann")
        #expect(s["date"] == "2025-11-06T18:30:00.000Z")
        #expect(s["serviceType"] == "Evening Service")
        #expect(s["title"] == "Sunday Service (evening)")
        let after = try #require(s["updatedAt"]?.stringValue)
        #expect(after > before, "updatedAt must move on an update (\(before) → \(after))")

        // Devices pull the new version.
        let pulled = try #require(try http.get("/v1/sync/pull").json?["changes"]?.arrayValue)
        let last = try #require(pulled.last { $0["id"]?.stringValue == id })
        #expect(last["record"]?["speaker"] == "Pastor Ann")
        #expect(last["record"]?["date"] == "2025-11-06T18:30:00.000Z")
    }
}
