import CSQLite

/// Work a schema step's SQL cannot do (such as `editTableDefinition`), run after that SQL in the step's
/// transaction. The device's migrations and the server's SQLite steps both carry one.
public typealias SchemaEdit = @Sendable (SQLiteConnection) throws -> Void

extension SQLiteConnection {
    /// Replaces `text` with `replacement` in `table`'s stored CREATE TABLE statement, in place: SQLite's
    /// documented way to remove or change a CHECK constraint (https://www.sqlite.org/lang_altertable.html,
    /// "Making other kinds of table schema changes", the simpler procedure). A CHECK is not part of the file
    /// format, so no row is copied: a table of millions of rows changes at once, where the 12-step rebuild
    /// (new table, copy, drop, rename) took minutes. Call it inside a transaction; `text` must occur exactly
    /// once, and the statement must still parse afterwards (checked before returning: a failure rolls back
    /// with the caller's transaction). Where `text` is absent and `replacement` present once, the edit was
    /// made before and nothing is done.
    public func editTableDefinition(_ table: String, replacing text: String, with replacement: String) throws {
        let current = try scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)]).string ?? ""
        let found = current.ranges(of: text).count
        // Done already (a step run again on a database that had it): nothing to do.
        if found == 0 && !replacement.isEmpty && current.ranges(of: replacement).count == 1 { return }
        guard found == 1 else {
            throw SQLiteError(code: SQLITE_ERROR, message: "table \(table): \(found) occurrences of \(text), expected one")
        }
        let version = try scalar("PRAGMA schema_version").int ?? 0
        try exec("PRAGMA writable_schema = ON")
        do {
            try run("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [.text(current.replacing(text, with: replacement)), .text(table)])
            // A new schema cookie makes this and every other connection parse the schema again.
            try exec("PRAGMA schema_version = \(version + 1)")
            try exec("PRAGMA writable_schema = OFF")
        } catch {
            try? exec("PRAGMA writable_schema = OFF")
            throw error
        }
        // Parsed again here: a statement that no longer parses fails now, inside the transaction.
        _ = try query("SELECT * FROM \"\(table)\" LIMIT 0")
    }
}
