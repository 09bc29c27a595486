import TNotesCLIRender
import TNotesCore

/// The values a scenario holds, gathered once, and the other results the CLI prints (search hits, jobs,
/// history, conflicts, status) made from them, so that every number and text of the records also reaches
/// the renderers of those results (a note's 1e19 as a job's progress, a status's uptime, a hit's time).
struct Fields {
    /// Every number the records hold (note timestamps, segment starts and ends, sizes, chapters), in
    /// document order.
    var numbers: [JSON] = []
    /// Every string value of the sermon, its children and chat, in document order. (Not the snapshot's: it
    /// repeats the sermon's, and only the page shows it.)
    var texts: [String] = []
    let sermon: JSONObject

    init(_ s: Scenario) {
        sermon = s.sermon
        collect(.object(s.sermon))
        for c in s.chats { collect(.object(c)) }
    }

    private mutating func collect(_ v: JSON) {
        switch v {
        case .string(let s): texts.append(s)
        case .array(let a): for x in a { collect(x) }
        case .object(let o): for (_, x) in o { collect(x) }
        case .int, .double: numbers.append(v)
        case .null, .bool, .raw: break
        }
    }

    func text(_ i: Int) -> String { texts.isEmpty ? "" : texts[i % texts.count] }
    func number(_ i: Int) -> JSON { numbers.isEmpty ? .null : numbers[i % numbers.count] }
    /// A text or a number (a field whose type a client got wrong), taking turns.
    func value(_ i: Int) -> JSON { i % 3 == 2 ? number(i) : .string(text(i)) }

    /// The notes the results below are made of: the first three (enough for every row's variations; the
    /// sermon's own views show them all).
    var notes: ArraySlice<JSON> { (sermon[field: \SermonDetail.notes]?.arrayValue ?? []).prefix(3) }

    // The objects below are written with their keys in canonical (byte) order: a JSONObject literal in that
    // order is taken as it is, where any other is sorted (a few per cent of this target's time).

    /// `sermon list`'s rows: the sermon, then one row per note as a sermon of its own (texts as titles).
    var sermonRows: [JSON] {
        [.object(sermon)] + notes.enumerated().map { i, n in
            ["date": value(i), "deletedAt": i % 3 == 0 ? .null : value(i), "id": n[field: \Note.id] ?? .null,
             "isArchived": .bool(i % 2 == 0), "speaker": value(i + 1), "syncState": value(i + 2), "title": n[field: \Note.text] ?? .null]
        }
    }

    var noteCounts: [String] { numbers.prefix(notes.count).map { Format.number($0) } }

    /// A `search.query` result: a hit per note and segment, its snippet the text with match markers.
    var searchResult: JSON {
        var items = [JSON]()
        for (i, n) in notes.enumerated() {
            items.append(["kind": "note", "rank": number(i), "recordId": n[field: \Note.id] ?? .null, "sermonId": sermon[field: \Sermon.id] ?? .null,
                          "snippet": .string("…**" + (n[field: \Note.text]?.stringValue ?? "") + "** and …"),
                          Note.name(\.timestamp): n[field: \Note.timestamp] ?? .null])
        }
        for g in sermon[field: \SermonDetail.transcript]?[field: \Transcript.segments]?.arrayValue ?? [] {
            items.append(["kind": "transcript", "sermonId": sermon[field: \Sermon.id] ?? .null, "snippet": g[field: \Transcript.Segment.text] ?? .null,
                          "start": g[field: \Transcript.Segment.start] ?? .null])
        }
        return ["items": .array(items)]
    }

    /// A `search.byReference` result and the titles it is shown with.
    var referenceResult: JSON {
        ["items": .array(notes.enumerated().map { i, n in
            ["display": value(i), "kind": "note", "sermonId": sermon[field: \Sermon.id] ?? .null, Note.name(\.timestamp): n[field: \Note.timestamp] ?? .null]
        })]
    }

    var titles: [String: String] {
        guard let id = sermon[field: \Sermon.id]?.stringValue else { return [:] }
        return [id: sermon[field: \Sermon.title]?.stringValue ?? text(0)]
    }

    var jobs: JSON {
        .array(numbers.prefix(4).enumerated().map { i, n in
            ["attempts": number(i + 1), "id": .string(text(i)), "kind": "transcribe", "lastError": value(i + 1),
             "progress": n, "sermonId": sermon[field: \Sermon.id] ?? .null, "state": i % 2 == 0 ? "running" : value(i)]
        })
    }

    var history: [JSON] {
        notes.enumerated().map { i, n in
            ["deviceId": value(i + 2), "reason": value(i + 1), "record": n, "replacedAt": value(i),
             "updatedAt": n[field: \Note.updatedAt] ?? .null]
        }
    }

    var conflicts: JSON {
        .array(notes.enumerated().map { i, n in
            ["collection": value(i), "field": "text", "id": n[field: \Note.id] ?? .null, "local": n[field: \Note.text] ?? .null,
             "merged": value(i + 2), "recordId": n[field: \Note.id] ?? .null, "remote": value(i + 1), "state": "open"]
        })
    }

    var daemonStatus: JSON {
        ["dataDir": value(3), "deviceId": value(1), "pid": number(0), "schemaVersion": number(2), "socketPath": value(2),
         "sync": ["failedOps": number(4), "lastSuccessAt": sermon[field: \Sermon.updatedAt] ?? .null, "pendingOps": number(3),
                  "serverUrl": value(5), "state": value(4)],
         "uptimeSeconds": number(1), "version": value(0)]
    }

    var syncStatus: JSON {
        ["attempt": number(2), "failedOps": number(1), "heldDeletes": number(3), "lastError": value(3),
         "lastSuccessAt": sermon[field: \Sermon.createdAt] ?? .null, "nextAttemptAt": value(2), "pendingOps": number(0),
         "serverUrl": value(1), "state": value(0),
         "triggers": .object(JSONObject(texts.prefix(6).enumerated().map { ($1, number($0)) }))]
    }

    var syncResult: JSON {
        ["conflicts": number(2), "durationMs": number(4), "pulled": number(1), "pushed": number(0), "rejected": number(3)]
    }

    var syncProgress: JSON { ["pulled": number(2), "pushed": number(0), "toPush": number(1)] }

    var audioProgress: JSON { ["bytes": number(0), "total": number(1), "sermonId": value(0), "state": value(1)] }

    var event: JSON {
        var o: JSONObject = ["collection": value(2), "id": sermon[field: \Sermon.id] ?? .null, "op": value(1), "origin": value(3),
                             "seq": number(0), "topic": numbers.count % 2 == 0 ? "record.changed" : value(0)]
        for (i, t) in texts.prefix(4).enumerated() { o[t] = number(i) }
        return .object(o)
    }

    var passage: JSON {
        ["reference": value(0), "translation": value(1),
         "verses": .array(numbers.prefix(6).enumerated().map { i, n in ["chapter": n, "text": value(i), "verse": number(i + 1)] })]
    }
}
