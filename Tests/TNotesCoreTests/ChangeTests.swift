import Testing
import TNotesCore

@Suite struct ChangeTests {
    func envelope(_ collection: String = "notes", op: String = "upsert", record: JSONObject = Sample.note,
                  id: String = Sample.noteId, updatedAt: String = Sample.t1) -> JSONObject {
        ["opId": "e0000000-0000-4000-8000-000000000001", "collection": .string(collection), "id": .string(id),
         "op": .string(op), "updatedAt": .string(updatedAt), "deviceId": "device-a", "record": .object(record)]
    }

    func error(_ o: JSONObject, requireOpId: Bool = true) -> FieldError? {
        fieldError { try Change(json: .object(o), requireOpId: requireOpId) }
    }

    @Test func roundTripsThroughJSON() throws {
        let c = try Change(json: .object(envelope()))
        #expect(c.collection == .notes && c.op == .upsert && c.id == Sample.noteId && c.deviceId == "device-a")
        #expect(c.record["deletedAt"] == .null)  // normalized: defaults filled
        #expect(try Change(json: c.json) == c)
        #expect(try Change(json: JSON.parse(c.json.text)) == c)
        #expect(c.version == RecordVersion(updatedAt: Sample.t1, deviceId: "device-a"))
    }

    @Test func everyCollectionRoundTrips() throws {
        let cases: [(String, JSONObject, String, String)] = [
            ("sermons", Sample.sermon, Sample.sermonId, Sample.t1),
            ("transcripts", Sample.transcript, Sample.transcript["id"]!.stringValue!, Sample.t1),
            ("summaries", Sample.summary, Sample.summary["id"]!.stringValue!, Sample.t1),
            ("chatMessages", Sample.chat, Sample.chatId, Sample.t0),
        ]
        for (collection, record, id, updatedAt) in cases {
            let c = try Change(json: .object(envelope(collection, record: record, id: id, updatedAt: updatedAt)))
            #expect(try Change(json: c.json) == c, "\(collection)")
        }
    }

    @Test func transcriptSegmentsStayAnArray() throws {
        let c = try Change(json: .object(envelope("transcripts", record: Sample.transcript,
                                                  id: Sample.transcript["id"]!.stringValue!)))
        #expect(c.record["segments"] == Sample.segments)
        #expect(c.json["record"]?["segments"]?.arrayValue?.count == 2)
    }

    @Test func deleteWithoutDeletedAtIsRefused() {
        // Seed: a delete operation that carries no data.
        #expect(error(envelope(op: "delete"))?.field == "record.deletedAt")
        var o = envelope(op: "delete")
        o["record"] = nil
        #expect(error(o)?.field == "record")
        o["record"] = .object([:])
        #expect(error(o) != nil)
        o["record"] = .object(["id": .string(Sample.noteId)])
        #expect(error(o) != nil)
    }

    @Test func deleteCarryingItsTombstoneIsAccepted() throws {
        var r = Sample.note
        r["deletedAt"] = .string(Sample.t1)
        let c = try Change(json: .object(envelope(op: "delete", record: r)))
        #expect(c.op == .delete)
        #expect(c.record["deletedAt"] == .string(Sample.t1))
        #expect(c.record["text"] == "Key point")  // the whole record, not just the id
    }

    @Test func recordIdMismatchIsRefused() {
        #expect(error(envelope(id: "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c99"))?.field == "record.id")
    }

    @Test func idsAreComparedAfterNormalization() throws {
        let c = try Change(json: .object(envelope(id: Sample.noteId.uppercased())))
        #expect(c.id == Sample.noteId)
    }

    @Test func unknownCollectionIsRefused() {
        #expect(error(envelope("sermon"))?.field == "collection")
        #expect(error(envelope("chat_messages"))?.field == "collection")
        var o = envelope()
        o["collection"] = nil
        #expect(error(o)?.field == "collection")
    }

    @Test func envelopeProblemsAreRefused() {
        #expect(error(envelope(updatedAt: Sample.t0))?.field == "record.updatedAt")
        #expect(error(envelope(op: "patch"))?.field == "op")
        var o = envelope()
        o["extra"] = 1
        #expect(error(o)?.field == "extra")
        o = envelope()
        o["deviceId"] = ""
        #expect(error(o)?.field == "deviceId")
        o = envelope()
        o["opId"] = nil
        #expect(error(o)?.field == "opId")
        #expect(error(o, requireOpId: false) == nil)  // pulled changes carry a seq instead
        o["seq"] = 42
        #expect(error(o, requireOpId: false) == nil)
        #expect(fieldError { try Change(json: .array([])) }?.field == "change")
    }

    @Test func recordFailingItsSchemaIsRefusedWithThePath() {
        var r = Sample.transcript
        r["segments"] = .string(Sample.segments.text)
        let e = error(envelope("transcripts", record: r, id: Sample.transcript["id"]!.stringValue!))
        #expect(e?.field == "record.segments")
    }

    @Test func chatMessagesAreAppendOnly() {
        #expect(error(envelope("chatMessages", op: "delete", record: Sample.chat, id: Sample.chatId,
                               updatedAt: Sample.t0))?.field == "op")
    }
}
