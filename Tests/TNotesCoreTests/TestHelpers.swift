import TNotesCore
import TNotesTestSupport

/// Runs `body` and returns the FieldError it threw, or nil when it succeeded.
func fieldError<T>(_ body: () throws -> T) -> FieldError? {
    do {
        _ = try body()
        return nil
    } catch let error as FieldError {
        return error
    } catch {
        return FieldError(field: "<not a FieldError>", reason: "\(error)")
    }
}

/// All orderings of `items` (Heap's algorithm).
func permutations<T>(_ items: [T]) -> [[T]] {
    var a = items
    var out: [[T]] = []
    func generate(_ k: Int) {
        if k <= 1 { out.append(a); return }
        for i in 0..<k {
            generate(k - 1)
            a.swapAt(k % 2 == 0 ? i : 0, k - 1)
        }
    }
    generate(a.count)
    return out
}

enum Sample {
    static let sermonId = "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c01"
    static let noteId = "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c01"
    static let chatId = "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d01"
    static let t0 = "2025-11-06T10:00:00.000Z"
    static let t1 = "2025-11-06T10:05:00.000Z"

    static var sermon: JSONObject {
        ["id": .string(sermonId), "title": "Sunday Service", "date": .string(t0), "createdAt": .string(t0),
         "updatedAt": .string(t1)]
    }
    static var note: JSONObject {
        ["id": .string(noteId), "sermonId": .string(sermonId), "text": "Key point", "timestamp": 120.5,
         "createdAt": .string(t0), "updatedAt": .string(t1)]
    }
    static var segments: JSON {
        [["start": 0, "end": 4.5, "text": "Good morning.", "speaker": "Pastor John"],
         ["start": 4.5, "end": 12.25, "text": "Turn to Galatians 5."]]
    }
    static var transcript: JSONObject {
        ["id": .string(Identifier.derivedInOrder(from: sermonId, kind: "transcript")), "sermonId": .string(sermonId),
         "text": "Good morning. Turn to Galatians 5.", "segments": segments, "updatedAt": .string(t1)]
    }
    static var summary: JSONObject {
        ["id": .string(Identifier.derivedInOrder(from: sermonId, kind: "summary")), "sermonId": .string(sermonId),
         "title": "Keeping in step", "text": "Walk by the Spirit.", "type": "devotional", "updatedAt": .string(t1)]
    }
    static var chat: JSONObject {
        ["id": .string(chatId), "sermonId": .string(sermonId), "role": "user", "content": "What verse?",
         "createdAt": .string(t0), "deviceId": "device-a"]
    }
}
