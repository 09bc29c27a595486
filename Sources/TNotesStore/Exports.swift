// The store's SQLite layer is shared with the server; re-export it so users of the store see one API.
@_exported import TNotesSQLite
