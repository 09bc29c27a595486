import CSQLite

/// An error from SQLite, with the result code and the message SQLite gave.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public var description: String { "SQLite error \(code): \(message)" }
    public var isCorruption: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }
    /// A plain SQL error (SQLITE_ERROR), such as an FTS5 query with bad syntax: the statement's input was
    /// wrong, not the database.
    public var isQueryError: Bool { code & 0xFF == SQLITE_ERROR }
    /// A constraint broken (a key, a CHECK, NOT NULL): the statement's row was refused, nothing of it written.
    public var isConstraint: Bool { code & 0xFF == SQLITE_CONSTRAINT }
}

// SQLITE_TRANSIENT tells SQLite to copy bound text; the macro does not import into Swift.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not thread-safe: the `Store` confines it to its own serial queue.
public final class SQLiteConnection {
    let handle: OpaquePointer
    private var statements: [String: Statement] = [:]
    /// What the WAL hook of `setCheckpointPolicy` reads; held here so that it lives as long as the connection.
    var walHookState: WALHookState?

    /// `readOnly`: the connection can never write (SQLite refuses); for a store's reader connection.
    public init(path: String, create: Bool, readOnly: Bool = false) throws {
        _ = Self.configured
        var db: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        StatementProfile.attach(db)
    }

    /// Process-wide SQLite settings, made once before the first connection opens. Memory statistics off:
    /// with them every allocation inside SQLite took one global mutex (7 % of a pulling writer's samples
    /// were pthread_mutex_lock/unlock under SQLite, `perf`); the connections are already NOMUTEX.
    private static let configured: Void = { _ = tn_sqlite_disable_memstatus() }()

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that return no rows.
    public func exec(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(err)
            throw SQLiteError(code: rc, message: message)
        }
    }

    /// A prepared statement, cached by its SQL text.
    public func prepare(_ sql: String) throws -> Statement {
        // A cached statement was reset when its last use ended (query and run reset on the way out).
        if let s = statements[sql] { return s }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc) }
        let s = Statement(stmt, connection: self)
        statements[sql] = s
        return s
    }

    /// Runs `sql` with `args`, returning every row.
    @discardableResult
    public func query(_ sql: String, _ args: [SQLValue] = []) throws -> [Row] {
        let s = try prepare(sql)
        defer { s.reset() }
        try s.bind(args)
        var rows = [Row]()
        while try s.step() { rows.append(s.row()) }
        return rows
    }

    public func run(_ sql: String, _ args: [SQLValue] = []) throws {
        let s = try prepare(sql)
        defer { s.reset() }
        try s.bind(args)
        while try s.step() {}
    }

    public func scalar(_ sql: String, _ args: [SQLValue] = []) throws -> SQLValue {
        try query(sql, args).first?.values.first ?? .null
    }

    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowid: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; any error rolls the whole transaction back.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try exec("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try exec("COMMIT")
            return result
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }
}

public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])

    public var string: String? { if case .text(let s) = self { return s } else { return nil } }
    /// An INTEGER as it is; a REAL truncated toward zero and clamped to Int64's range (NaN: nil). Total: a REAL
    /// reaches here from a row written by hand, from SQLite's integer arithmetic overflowing into REAL
    /// (`attempts + 1` at Int64.max), or from json_extract of a large number, and `Int64(d)` traps outside the range.
    public var int: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d):
            if d.isNaN { return nil }
            if d >= 9.223372036854775808e18 { return .max }  // 2^63: the first Double past the range
            if d <= -9.223372036854775808e18 { return .min }
            return Int64(d)
        default: return nil
        }
    }
    public var double: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(_ s: String?) { self = s.map { .text($0) } ?? .null }
    public init(_ i: Int64?) { self = i.map { .int($0) } ?? .null }
}

public struct Row: Sendable {
    public let values: [SQLValue]
    public subscript(i: Int) -> SQLValue { values[i] }
}

public final class Statement {
    let stmt: OpaquePointer
    unowned let connection: SQLiteConnection

    init(_ stmt: OpaquePointer, connection: SQLiteConnection) {
        self.stmt = stmt
        self.connection = connection
    }

    deinit { sqlite3_finalize(stmt) }

    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    func bind(_ args: [SQLValue]) throws {
        for (i, v) in args.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(stmt, idx)
            case .int(let x): rc = sqlite3_bind_int64(stmt, idx, x)
            case .double(let x): rc = sqlite3_bind_double(stmt, idx, x)
            case .text(var s):
                // The string's own UTF-8 bytes and their count: no C-string copy (`utf8CString`, an allocation
                // per bound text, was 2.5 % of a pulling daemon's writer) and no strlen. SQLite copies them.
                rc = s.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_text(stmt, idx, "", 0, transient) }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text(stmt, idx, $0, Int32(bytes.count), transient)
                    }
                }
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(stmt, idx, $0.baseAddress, Int32($0.count), transient) }
            }
            if rc != SQLITE_OK { throw connection.error(rc) }
        }
    }

    /// Advances; true when a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.error(rc)
    }

    func row() -> Row {
        let n = sqlite3_column_count(stmt)
        var values = [SQLValue]()
        values.reserveCapacity(Int(n))
        for i in 0..<n {
            switch sqlite3_column_type(stmt, i) {
            case SQLITE_INTEGER: values.append(.int(sqlite3_column_int64(stmt, i)))
            case SQLITE_FLOAT: values.append(.double(sqlite3_column_double(stmt, i)))
            case SQLITE_TEXT:
                let p = sqlite3_column_text(stmt, i)!
                let len = Int(sqlite3_column_bytes(stmt, i))
                values.append(.text(String(decoding: UnsafeBufferPointer(start: p, count: len), as: UTF8.self)))
            case SQLITE_BLOB:
                let len = Int(sqlite3_column_bytes(stmt, i))
                if len == 0 {
                    values.append(.blob([]))
                } else {
                    let p = sqlite3_column_blob(stmt, i)!.assumingMemoryBound(to: UInt8.self)
                    values.append(.blob(Array(UnsafeBufferPointer(start: p, count: len))))
                }
            default: values.append(.null)
            }
        }
        return Row(values: values)
    }
}
