// Calls into libsword's flat API through dlopen()/dlsym() (why: CSword.h). The real header gives every pointer
// its exact type (__typeof__ does not reference the symbol, so nothing is linked).
#include "CSword.h"

#include "CDynamicLibrary.h"
#include <flatapi.h>

_Static_assert(TN_SWORD_VERSEKEY_VERSEMAX == 5 && TN_SWORD_VERSEKEY_OSISREF == 7, "flat API constants moved");

static __typeof__(&org_crosswire_sword_SWLog_setLogLevel) f_SWLog_setLogLevel;
static __typeof__(&org_crosswire_sword_SWMgr_new) f_SWMgr_new;
static __typeof__(&org_crosswire_sword_SWMgr_newWithPath) f_SWMgr_newWithPath;
static __typeof__(&org_crosswire_sword_SWMgr_delete) f_SWMgr_delete;
static __typeof__(&org_crosswire_sword_SWMgr_getModuleByName) f_SWMgr_getModuleByName;
static __typeof__(&org_crosswire_sword_SWMgr_filterText) f_SWMgr_filterText;
static __typeof__(&org_crosswire_sword_SWModule_setKeyText) f_SWModule_setKeyText;
static __typeof__(&org_crosswire_sword_SWModule_popError) f_SWModule_popError;
static __typeof__(&org_crosswire_sword_SWModule_getKeyChildren) f_SWModule_getKeyChildren;
static __typeof__(&org_crosswire_sword_SWModule_getRawEntry) f_SWModule_getRawEntry;

static const tn_symbol symbols[] = {
    {"org_crosswire_sword_SWLog_setLogLevel", (void **)&f_SWLog_setLogLevel},
    {"org_crosswire_sword_SWMgr_new", (void **)&f_SWMgr_new},
    {"org_crosswire_sword_SWMgr_newWithPath", (void **)&f_SWMgr_newWithPath},
    {"org_crosswire_sword_SWMgr_delete", (void **)&f_SWMgr_delete},
    {"org_crosswire_sword_SWMgr_getModuleByName", (void **)&f_SWMgr_getModuleByName},
    {"org_crosswire_sword_SWMgr_filterText", (void **)&f_SWMgr_filterText},
    {"org_crosswire_sword_SWModule_setKeyText", (void **)&f_SWModule_setKeyText},
    {"org_crosswire_sword_SWModule_popError", (void **)&f_SWModule_popError},
    {"org_crosswire_sword_SWModule_getKeyChildren", (void **)&f_SWModule_getKeyChildren},
    {"org_crosswire_sword_SWModule_getRawEntry", (void **)&f_SWModule_getRawEntry},
};

static tn_library library = TN_LIBRARY("libsword.so.1.9.0", symbols);

int tn_sword_load(void) { return tn_library_load(&library); }
const char *tn_sword_load_error(void) { return tn_library_error(&library); }

void tn_sword_set_log_level(int level) { f_SWLog_setLogLevel(level); }
intptr_t tn_sword_mgr_new(void) { return f_SWMgr_new(); }
intptr_t tn_sword_mgr_new_with_path(const char *path) { return f_SWMgr_newWithPath(path); }
void tn_sword_mgr_delete(intptr_t manager) { f_SWMgr_delete(manager); }
intptr_t tn_sword_mgr_module(intptr_t manager, const char *name) { return f_SWMgr_getModuleByName(manager, name); }

const char *tn_sword_mgr_filter_text(intptr_t manager, const char *filter, const char *text) {
    return f_SWMgr_filterText(manager, filter, text);
}

void tn_sword_module_set_key_text(intptr_t module, const char *key) { f_SWModule_setKeyText(module, key); }
char tn_sword_module_pop_error(intptr_t module) { return f_SWModule_popError(module); }
const char **tn_sword_module_key_children(intptr_t module) { return f_SWModule_getKeyChildren(module); }
const char *tn_sword_module_raw_entry(intptr_t module) { return f_SWModule_getRawEntry(module); }
