#include <sqlite3.h>

/// sqlite3_config is variadic (not callable from Swift). Turns off SQLite's memory statistics, which take a
/// process-wide mutex around every allocation SQLite makes; nothing here reads them (sqlite3_memory_used
/// and the soft heap limit are unused). Must run before the first connection opens (SQLITE_MISUSE after).
static inline int tn_sqlite_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
