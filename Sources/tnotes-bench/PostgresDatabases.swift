import TNotesTestSupport

/// Where the bench's PostgreSQL runs keep their data.
///
/// With `--postgres auto`, each run gets a database of its own on the bench's throwaway cluster, dropped once
/// the run's server has stopped. That matches the SQLite runs, which each start a fresh server directory.
/// Before this, one database held every run's users: the 1× full sync ran on top of the realtime phase's
/// rows and statistics, and the 16× one on top of the 1× and 4× syncs (600 k changes and their records).
///
/// With `--postgres URL`, every run uses the one database given (it may be shared; the bench never drops it).
struct PostgresDatabases {
    let given: String?
    let cluster: PostgresServer?

    /// No PostgreSQL runs (neither option given).
    var isEmpty: Bool { given == nil && cluster == nil }

    /// A database for one run: a new one on the bench's cluster, or the given one.
    func fresh() throws -> String {
        if let given { return given }
        guard let cluster else { throw BenchError("no PostgreSQL: pass --postgres URL or --postgres auto") }
        return try cluster.makeDatabase()
    }

    /// Done with a run's database: dropped if the bench made it (its servers must have stopped).
    func release(_ url: String) {
        guard given == nil, let cluster else { return }
        try? cluster.dropDatabase(url)
    }
}
