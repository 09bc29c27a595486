// SWORD's C "flat API" (Debian's libsword1.9.0), loaded on first use.
//
// Why not linked: libsword brings CLucene, ICU and a second libcurl (GnuTLS) into every tnotesd start: 3.9 MiB
// of their pages resident in the idle daemon, plus their relocations, where Bible text is read only when
// someone asks for it. `tn_sword_load` dlopen()s it on first use; each function below calls
// the flat API function of the same name through a pointer dlsym() found, typed by the real prototype
// (see loader.c). A handle is the flat API's SWHANDLE: a C++ object's address as an intptr_t, 0 for none.
#ifndef TN_CSWORD_H
#define TN_CSWORD_H

#include <stdint.h>

/// Indexes into the strings of tn_sword_module_key_children (the flat API's VERSEKEY_* constants).
enum { TN_SWORD_VERSEKEY_VERSEMAX = 5, TN_SWORD_VERSEKEY_OSISREF = 7 };

/// Loads libsword once (thread-safe). 1: every function below is usable; 0: see tn_sword_load_error.
int tn_sword_load(void);
/// Why the load failed (dlerror's text), or NULL after a successful load.
const char *tn_sword_load_error(void);

void tn_sword_set_log_level(int level);
intptr_t tn_sword_mgr_new(void);
intptr_t tn_sword_mgr_new_with_path(const char *path);
void tn_sword_mgr_delete(intptr_t manager);
intptr_t tn_sword_mgr_module(intptr_t manager, const char *name);
const char *tn_sword_mgr_filter_text(intptr_t manager, const char *filter, const char *text);
void tn_sword_module_set_key_text(intptr_t module, const char *key);
char tn_sword_module_pop_error(intptr_t module);
const char **tn_sword_module_key_children(intptr_t module);
const char *tn_sword_module_raw_entry(intptr_t module);

#endif
