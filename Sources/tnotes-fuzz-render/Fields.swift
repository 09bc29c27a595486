import TNotesCLIRender
import TNotesCore

/// The values a scenario holds, gathered once, and the other results the CLI prints (search hits, jobs,
/// history, conflicts, status) made from them, so that every number and text of the records also reaches
/// the renderers of those results (a note's 1e19 as a job's progress, a status's uptime, a hit's time).
struct Fields {
    /// Every number the records hold (note timestamps, segment starts and ends, sizes, chapters), in
    /// document order.
    var numbers: [JSON] = []
    /// Every string value of the sermon, its children, chat and snapshot, in document order.
    var texts: [String] = []
    let sermon: JSONObject

    init(_ s: Scenario) {
        sermon = s.sermon
        collect(.object(s.sermon))
        for c in s.chats { collect(.object(c)) }
        collect(.object(s.snapshot))
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

    var notes: [JSON] { sermon["notes"]?.arrayValue ?? [] }

    /// `sermon list`'s rows: the sermon, then one row per note as a sermon of its own (texts as titles).
    var sermonRows: [JSON] {
        [.object(sermon)] + notes.enumerated().map { i, n in
            ["id": n["id"] ?? .null, "title": n["text"] ?? .null, "date": value(i), "speaker": value(i + 1),
             "isArchived": .bool(i % 2 == 0), "deletedAt": i % 3 == 0 ? .null : value(i), "syncState": value(i + 2)]
        }
    }

    var noteCounts: [String] { numbers.prefix(notes.count).map { Format.number($0) } }

    /// A `search.query` result: a hit per note and segment, its snippet the text with match markers.
    var searchResult: JSON {
        var items = [JSON]()
        for (i, n) in notes.enumerated() {
            items.append(["sermonId": sermon["id"] ?? .null, "kind": "note", "recordId": n["id"] ?? .null,
                          "snippet": .string("…**" + (n["text"]?.stringValue ?? "") + "** and …"),
                          "timestamp": n["timestamp"] ?? .null, "rank": number(i)])
        }
        for g in sermon["transcript"]?["segments"]?.arrayValue ?? [] {
            items.append(["sermonId": sermon["id"] ?? .null, "kind": "transcript", "snippet": g["text"] ?? .null,
                          "start": g["start"] ?? .null])
        }
        return ["items": .array(items)]
    }

    /// A `search.byReference` result and the titles it is shown with.
    var referenceResult: JSON {
        ["items": .array(notes.enumerated().map { i, n in
            ["sermonId": sermon["id"] ?? .null, "kind": "note", "display": value(i), "timestamp": n["timestamp"] ?? .null]
        })]
    }

    var titles: [String: String] {
        guard let id = sermon["id"]?.stringValue else { return [:] }
        return [id: sermon["title"]?.stringValue ?? text(0)]
    }

    var jobs: JSON {
        .array(numbers.prefix(8).enumerated().map { i, n in
            ["id": .string(text(i)), "kind": "transcribe", "state": i % 2 == 0 ? "running" : value(i), "progress": n,
             "sermonId": sermon["id"] ?? .null, "attempts": number(i + 1), "lastError": value(i + 1)]
        })
    }

    var history: [JSON] {
        notes.enumerated().map { i, n in
            ["record": n, "replacedAt": value(i), "reason": value(i + 1), "updatedAt": n["updatedAt"] ?? .null,
             "deviceId": value(i + 2)]
        }
    }

    var conflicts: JSON {
        .array(notes.enumerated().map { i, n in
            ["id": n["id"] ?? .null, "state": "open", "collection": value(i), "recordId": n["id"] ?? .null,
             "field": "text", "local": n["text"] ?? .null, "remote": value(i + 1), "merged": value(i + 2)]
        })
    }

    var daemonStatus: JSON {
        ["version": value(0), "pid": number(0), "uptimeSeconds": number(1), "schemaVersion": number(2),
         "deviceId": value(1), "socketPath": value(2), "dataDir": value(3),
         "sync": ["state": value(4), "pendingOps": number(3), "failedOps": number(4), "serverUrl": value(5),
                  "lastSuccessAt": sermon["updatedAt"] ?? .null]]
    }

    var syncStatus: JSON {
        ["state": value(0), "serverUrl": value(1), "pendingOps": number(0), "failedOps": number(1), "attempt": number(2),
         "nextAttemptAt": value(2), "lastSuccessAt": sermon["createdAt"] ?? .null, "lastError": value(3),
         "heldDeletes": number(3),
         "triggers": .object(JSONObject(texts.prefix(6).enumerated().map { ($1, number($0)) }))]
    }

    var syncResult: JSON {
        ["pushed": number(0), "pulled": number(1), "conflicts": number(2), "rejected": number(3), "durationMs": number(4)]
    }

    var syncProgress: JSON { ["pushed": number(0), "toPush": number(1), "pulled": number(2)] }

    var event: JSON {
        var o: JSONObject = ["topic": numbers.count % 2 == 0 ? "record.changed" : value(0), "op": value(1),
                             "collection": value(2), "id": sermon["id"] ?? .null, "origin": value(3), "seq": number(0)]
        for (i, t) in texts.prefix(4).enumerated() { o[t] = number(i) }
        return .object(o)
    }

    var passage: JSON {
        ["reference": value(0), "translation": value(1),
         "verses": .array(numbers.prefix(6).enumerated().map { i, n in ["chapter": n, "verse": number(i + 1), "text": value(i)] })]
    }
}
