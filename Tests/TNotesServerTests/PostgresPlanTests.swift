import Foundation
import Testing
import TNotesCore
import TNotesServer
import TNotesTestSupport

/// A push looks each change's record up by (user, collection, id), one primary-key probe per change. For a
/// user the statistics still see as empty (a new user's first push, on a server with other users) the
/// planner once probed the sermon index instead, reading all of the user's records of the collection per
/// change: the push went quadratic (4.3 s a batch at 650 k rows). Schema step 7 leads that index with the
/// sermon, so it cannot serve the lookup.
@Suite("tnotes-server: PostgreSQL plans of a push and a pull")
struct PostgresPlanTests {
    /// A server on a fresh PostgreSQL database with `users`, the first of whom has pushed a sermon and 400
    /// notes (its id is returned); the tables are not analyzed.
    static func serverWithNotes(users: [String]) throws -> (pg: PostgresServer, url: String, server: ServerProcess, sermon: String,
                                                            tokens: [String: String])
    {
        let pg = try PostgresServer.shared.get()
        let url = try pg.makeDatabase()
        let server = ServerProcess(database: url)
        var tokens = [String: String]()
        for u in users { tokens[u] = try server.addUser(u) }
        try server.start()
        let http = HTTPTestClient(baseURL: server.baseURL, token: tokens[users[0]])
        let sermon = Wire.id()
        var batch = [Wire.change(.sermons, Wire.sermon(sermon), deviceId: "devA")]
        for i in 0..<400 { batch.append(Wire.change(.notes, Wire.note(Wire.id(), sermonId: sermon, text: "n\(i)"), deviceId: "devA")) }
        #expect(try http.push(batch).statuses.allSatisfy { $0 == "applied" })
        return (pg, url, server, sermon, tokens)
    }

    @Test("a new user's push looks records up by the primary key and a pull probes the seq index, whatever the statistics say")
    func newUserLookupsUseTheirIndexes() throws {
        let (pg, url, server, sermon, _) = try Self.serverWithNotes(users: ["first", "second"])
        defer { _ = server.stop() }
        // The first user has records; the statistics are taken before the second user has any.
        _ = try pg.sql(url, "ANALYZE records")
        #expect(try pg.sql(url, "SELECT indexdef FROM pg_indexes WHERE indexname = 'records_by_sermon'").contains("(sermon_id, user_id, collection)"))

        // The lookup a push makes (PostgresServerStorage.mergeBatch), for the second user.
        let second = try pg.sql(url, "SELECT id FROM users WHERE name = 'second'")
        let plan = try pg.sql(url, """
            EXPLAIN SELECT r.collection, r.id, r.updated_at, r.device_id
            FROM (SELECT DISTINCT * FROM unnest(ARRAY['notes', 'sermons']::text[], ARRAY['\(Wire.id())', '\(sermon)']::text[])) AS k(c, id)
            CROSS JOIN LATERAL (SELECT collection, id, updated_at, device_id FROM records
                                WHERE user_id = \(second) AND collection = k.c AND id = k.id LIMIT 1) AS r
            """)
        #expect(plan.contains("records_pkey"), "\(plan)")
        #expect(!plan.contains("records_by_sermon"), "\(plan)")

        // A pull reads a current version's body from its record (schema step 8): one probe of the records'
        // seq index (schema step 13) per logged change, so a page's probes walk adjacent leaves, for the user
        // with records and for the one the statistics see as empty.
        let firstId = try pg.sql(url, "SELECT id FROM users WHERE name = 'first'")
        for user in [firstId, second] {
            let pull = try pg.sql(url, """
                EXPLAIN SELECT c.seq, \(PostgresServerStorage.loggedBody) FROM changes AS c
                WHERE c.user_id = \(user) AND seq > 0 AND seq <= 2000 ORDER BY c.seq LIMIT 2000
                """)
            #expect(pull.contains("records_by_seq"), "\(pull)")
            #expect(!pull.contains("Seq Scan on records"), "\(pull)")
        }
    }

    @Test("a snapshot page reads the primary key in order from its position, with statistics that see the user as empty")
    func snapshotPageReadsTheKeyInOrder() throws {
        let (pg, url, server, _, tokens) = try Self.serverWithNotes(users: ["alice"])
        defer { _ = server.stop() }
        let http = HTTPTestClient(baseURL: server.baseURL, token: tokens["alice"])
        // Not analyzed: the planner sees the table as (nearly) empty, as during a first push of a new user.
        let user = try pg.sql(url, "SELECT id FROM users WHERE name = 'alice'")
        // The query and setting of PostgresServerStorage.records(user:after:limit:tombstones:).
        let plan = try pg.sql(url, """
            SET enable_sort = off; EXPLAIN SELECT seq, collection, id, deleted_at IS NOT NULL, updated_at, device_id, body FROM records
            WHERE user_id = \(user) AND (collection, id) > ('notes', '0') AND deleted_at IS NULL ORDER BY collection, id LIMIT 100
            """)
        #expect(plan.contains("Index Scan using records_pkey"), "\(plan)")
        #expect(!plan.contains("Sort"), "\(plan)")
        // And the page itself, through the API: 100 records after the first key, in order.
        let first = try http.get("/v1/sync/snapshot?limit=100", headers: noCache)
        #expect(first.status == 200 && first.json?["changes"]?.arrayValue?.count == 100, "\(first.status)")
    }
}
