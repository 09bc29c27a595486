import Testing
import TNotesCore

@Suite struct RecordSchemaTests {
    @Test func fillsDefaults() throws {
        let s = try RecordSchema.sermons.normalize(.object(Sample.sermon))
        #expect(s["serviceType"] == "Sunday Service")
        #expect(s["speaker"] == .null)
        #expect(s["isArchived"] == false)
        #expect(s["transcriptionStatus"] == "pending")
        #expect(s["summaryStatus"] == "pending")
        #expect(s["audio"] == .null)
        #expect(s["deletedAt"] == .null)
        // Every field but the optional ones (absent stays absent: `forkedFrom`) is filled in.
        #expect(Set(s.keys) == Set(RecordSchema.sermons.fields.filter { !$0.optional }.map(\.name)))
        #expect(s["forkedFrom"] == nil)

        let t = try RecordSchema.transcripts.normalize(.object(Sample.transcript.filter { $0.key != "segments" }))
        #expect(t["segments"] == .array([]))
        #expect(t["status"] == "complete")
        #expect(t["deletedAt"] == .null)

        let su = try RecordSchema.summaries.normalize(.object(Sample.summary))
        #expect(su["status"] == "complete")
    }

    @Test func normalizationIsIdempotent() throws {
        for (collection, record) in [(RecordCollection.sermons, Sample.sermon), (.notes, Sample.note),
                                     (.transcripts, Sample.transcript), (.summaries, Sample.summary), (.chatMessages, Sample.chat)] {
            let once = try collection.schema.normalize(.object(record))
            #expect(try collection.schema.normalize(.object(once)) == once, "\(collection)")
        }
    }

    @Test func makesIdsAndTimesCanonical() throws {
        var r = Sample.note
        r["id"] = .string(Sample.noteId.uppercased())
        r["updatedAt"] = "2025-11-06T12:05:00+02:00"
        r["createdAt"] = "2025-11-06"
        let n = try RecordSchema.notes.normalize(.object(r))
        #expect(n["id"] == .string(Sample.noteId))
        #expect(n["updatedAt"] == "2025-11-06T10:05:00.000Z")
        #expect(n["createdAt"] == "2025-11-06T00:00:00.000Z")
    }

    @Test func unknownFieldIsRefused() {
        var r = Sample.sermon
        r["remoteId"] = "x"
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(r)) } == FieldError(field: "remoteId", reason: "unknown field"))
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(r), path: "record") }?.field == "record.remoteId")
        // Named before any other problem of the record: a bad value, a null where none may be, a missing field.
        var bad = r
        bad["date"] = 5
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(bad)) }?.field == "remoteId")
        bad = r
        bad["title"] = .null
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(bad)) }?.field == "remoteId")
        bad = r
        bad["title"] = nil
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(bad), path: "record") }?.field == "record.remoteId")
        // As many keys as fields, one of them unknown (a field missing): still the unknown key.
        bad = r
        bad["createdAt"] = nil
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(bad)) }?.field == "remoteId")
    }

    @Test func missingFieldIsRefused() {
        var r = Sample.note
        r["text"] = nil
        #expect(fieldError { try RecordSchema.notes.normalize(.object(r)) } == FieldError(field: "text", reason: "is required"))
        var s = Sample.summary
        s["type"] = nil
        #expect(fieldError { try RecordSchema.summaries.normalize(.object(s)) }?.field == "type")
    }

    @Test func nullWhereNotNullableIsRefused() {
        var r = Sample.sermon
        r["title"] = .null
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(r)) } == FieldError(field: "title", reason: "must not be null"))
        var t = Sample.transcript
        t["segments"] = .null  // the seed's `segments: null`: an empty transcript has [], never null
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) }?.field == "segments")
        // A nullable field may be null.
        r = Sample.sermon
        r["speaker"] = .null
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(r)) } == nil)
    }

    /// A segment's explicit null speaker is dropped (the same as none), and only that segment changes; a
    /// transcript whose segments are all as given is reported unchanged (its text may be stored as it came).
    @Test func segmentsAreKeptAsGivenUnlessASpeakerIsNull() throws {
        let plain: JSON = ["start": 0, "end": 4.25, "text": "Grace and peace."]
        let named: JSON = ["start": 4.25, "end": 9.5, "text": "Romans 8.", "speaker": "Pastor John"]
        let unnamed: JSON = ["start": 9.5, "end": 12, "text": "Amen.", "speaker": .null]
        var t = try RecordSchema.transcripts.normalize(.object(Sample.transcript))  // every default filled in
        t["segments"] = [plain, named]
        var unchanged = false
        let kept = try RecordSchema.transcripts.normalize(.object(t), unchanged: &unchanged)
        #expect(unchanged)
        #expect(kept["segments"] == [plain, named])
        t["segments"] = [plain, unnamed, named]
        let dropped = try RecordSchema.transcripts.normalize(.object(t), unchanged: &unchanged)
        #expect(!unchanged)
        #expect(dropped["segments"] == [plain, ["start": 9.5, "end": 12, "text": "Amen."], named])
    }

    @Test func segmentsGivenAsAJSONStringAreRefused() {
        // Seed B4: segments double-encoded into a JSON string.
        var t = Sample.transcript
        t["segments"] = .string(Sample.segments.text)
        let e = fieldError { try RecordSchema.transcripts.normalize(.object(t)) }
        #expect(e?.field == "segments")
        t["segments"] = "[]"
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) }?.field == "segments")
    }

    @Test func segmentsAreKeptExactly() throws {
        let t = try RecordSchema.transcripts.normalize(.object(Sample.transcript))
        #expect(t["segments"] == Sample.segments)
        #expect(t["segments"]?.text == Sample.segments.text)
    }

    @Test func segmentEndBeforeStartIsRefused() {
        var t = Sample.transcript
        t["segments"] = [["start": 10, "end": 9.5, "text": "backwards"]]
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) }?.field == "segments[0].end")
        t["segments"] = [["start": 0, "end": 1, "text": "ok"], ["start": -1, "end": 1, "text": "negative"]]
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) }?.field == "segments[1].start")
        t["segments"] = [["start": 0, "end": 1]]
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) }?.field == "segments[0].text")
        t["segments"] = [["start": 0, "end": 1, "text": "x", "confidence": 0.9]]
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) }?.field == "segments[0].confidence")
        t["segments"] = ["just text"]
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) }?.field == "segments[0]")
        t["segments"] = [["start": 2, "end": 2, "text": "zero length is fine"]]
        #expect(fieldError { try RecordSchema.transcripts.normalize(.object(t)) } == nil)
    }

    @Test func wrongTypesAreRefused() {
        var n = Sample.note
        n["timestamp"] = "120.5"
        #expect(fieldError { try RecordSchema.notes.normalize(.object(n)) }?.field == "timestamp")
        n["timestamp"] = -1
        #expect(fieldError { try RecordSchema.notes.normalize(.object(n)) }?.field == "timestamp")
        n = Sample.note
        n["sermonId"] = "not-a-uuid"
        #expect(fieldError { try RecordSchema.notes.normalize(.object(n)) }?.field == "sermonId")
        var s = Sample.sermon
        s["isArchived"] = 1
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(s)) }?.field == "isArchived")
        s = Sample.sermon
        s["date"] = "2025-02-30"
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(s)) }?.field == "date")
        s = Sample.sermon
        s["transcriptionStatus"] = "done"
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(s)) }?.field == "transcriptionStatus")
        var su = Sample.summary
        su["type"] = "sermon"
        #expect(fieldError { try RecordSchema.summaries.normalize(.object(su)) }?.field == "type")
        var c = Sample.chat
        c["role"] = "system"
        #expect(fieldError { try RecordSchema.chatMessages.normalize(.object(c)) }?.field == "role")
        #expect(fieldError { try RecordSchema.notes.normalize(.array([])) }?.field == "record")
        #expect(fieldError { try RecordSchema.notes.normalize(.string("{}"), path: "record") }?.field == "record")
    }

    @Test func audioMetadata() throws {
        var s = Sample.sermon
        let sha = String(repeating: "ab", count: 32)
        s["audio"] = ["fileName": "a.m4a", "sizeBytes": 1024, "sha256": .string(sha)]
        #expect(try RecordSchema.sermons.normalize(.object(s))["audio"] == ["fileName": "a.m4a", "sizeBytes": 1024, "sha256": .string(sha)])
        s["audio"] = ["fileName": "a.m4a", "sizeBytes": 1024, "sha256": .string(sha.uppercased())]
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(s)) }?.field == "audio.sha256")
        s["audio"] = ["fileName": "a.m4a", "sizeBytes": 1024, "sha256": .string(sha), "url": "https://x"]
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(s)) }?.field == "audio.url")
        s["audio"] = ["fileName": "a.m4a", "sizeBytes": -1, "sha256": .string(sha)]
        #expect(fieldError { try RecordSchema.sermons.normalize(.object(s)) }?.field == "audio.sizeBytes")
    }
}
