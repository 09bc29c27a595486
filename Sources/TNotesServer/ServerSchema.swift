/// The server's schema, one ordered list per backend (`ServerSchema+SQLite`, `ServerSchema+PostgreSQL`),
/// steps only ever appended: a database records how many it has run, and runs the rest at start.
enum ServerSchema {}
