import PostgresNIO

/// One statement made of several writes, each a data-modifying `WITH` query, so that a batch's writes cost
/// one round trip. PostgreSQL runs every part on the same snapshot and applies all of them or none; no two
/// parts may touch the same row (a batch's parts write different tables, and `records` once per record).
///
/// In a part, `$1` is the user and each `?` the next of its arrays (bound in order).
struct BatchWrite {
    private var parts: [String] = []
    private var bindings = PostgresBindings()

    init(user: Int64) { bindings.append(user) }

    mutating func add(_ sql: String, _ arrays: any PostgresNonThrowingEncodable...) {
        var text = ""
        var next = arrays.makeIterator()
        for ch in sql {
            guard ch == "?" else {
                text.append(ch)
                continue
            }
            guard let value = next.next() else { preconditionFailure("more ? than values in \(sql)") }
            bindings.append(value)
            text += "$\(bindings.count)"
        }
        precondition(next.next() == nil, "more values than ? in \(sql)")
        parts.append(text)
    }

    /// The statement: every part, then `pg_notify(channel, user)` when `notify` names a channel (delivered
    /// to every listening instance when, and only if, the transaction commits).
    func query(notify channel: String?) -> PostgresQuery {
        var bindings = self.bindings
        let ctes = parts.enumerated().map { "w\($0.offset) AS (\($0.element))" }.joined(separator: ",\n")
        let final: String
        if let channel {
            bindings.append(channel)
            final = "SELECT pg_notify($\(bindings.count), $1::text)"
        } else {
            final = "SELECT 1"
        }
        return PostgresQuery(unsafeSQL: parts.isEmpty ? final : "WITH \(ctes)\n\(final)", binds: bindings)
    }
}
