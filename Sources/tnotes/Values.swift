import ArgumentParser
import TNotesCore

/// Why an argument's value was refused; argument-parser prints it after naming the flag.
struct BadValue: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

enum Values {
    /// A record id: a UUID, in any case (sent lowercase).
    static func id(_ text: String) throws -> String {
        guard let id = Identifier.normalize(text) else { throw BadValue("not an id (a UUID such as 3f2504e0-4f89-41d3-9a0c-0305e82c3301)") }
        return id
    }

    /// A date: RFC 3339 (`2025-11-09T10:30:00Z`, any offset) or `YYYY-MM-DD`; sent in canonical form.
    static func date(_ text: String) throws -> String {
        guard let t = Timestamp.canonical(text) else { throw BadValue("expected YYYY-MM-DD or an RFC 3339 time such as 2025-11-09T10:30:00Z") }
        return t
    }

    /// A place in the audio: seconds (`754`, `754.5`), `mm:ss` (`12:34`) or `h:mm:ss` (`1:02:03`), at most
    /// seven days (contract §8.1). A larger value is refused here, as a usage error naming `--at` (exit 2),
    /// rather than sent for the daemon to refuse: `99999999999999999999` is a bad flag value like `xx`.
    static func offset(_ text: String) throws -> Double {
        let seconds = try unboundedOffset(text)
        guard seconds <= ValueBounds.maxSeconds else {
            throw BadValue("must be at most \(ClockTime.format(ValueBounds.maxSeconds)) (\(ClockTime.wholeSeconds(ValueBounds.maxSeconds)) seconds, 7 days)")
        }
        return seconds
    }

    private static func unboundedOffset(_ text: String) throws -> Double {
        let bad = BadValue("expected seconds, mm:ss or h:mm:ss (e.g. 754, 12:34, 1:02:03)")
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(parts.count) else { throw bad }
        func whole(_ s: String) -> Int? {
            guard !s.isEmpty, s.utf8.count <= 9, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return Int(s)
        }
        func seconds(_ s: String) -> Double? {
            guard !s.isEmpty, s.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }),
                  s.utf8.filter({ $0 == 46 }).count <= 1, s.first != ".", s.last != ".", let d = Double(s), d.isFinite
            else { return nil }
            return d
        }
        guard let sec = seconds(parts[parts.count - 1]) else { throw bad }
        switch parts.count {
        case 1:
            return sec
        case 2:
            guard let m = whole(parts[0]), sec < 60 else { throw bad }
            return Double(m * 60) + sec
        default:
            guard let h = whole(parts[0]), let m = whole(parts[1]), m < 60, sec < 60 else { throw bad }
            return Double(h * 3600 + m * 60) + sec
        }
    }
}

enum SummaryType: String, ExpressibleByArgument, CaseIterable {
    case devotional, bullet, theological
}

enum ProcessingStatus: String, ExpressibleByArgument, CaseIterable {
    case pending, processing, complete, failed
}
