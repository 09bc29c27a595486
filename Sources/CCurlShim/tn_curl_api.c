/* Loads libcurl on first use (why: tn_curl_api.h). */
#include "tn_curl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct tn_curl_api api;
static const struct tn_curl_api *loaded;
static char load_error[512] = "not loaded";

static void load(void) {
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define FIND(field, name) \
    if (!(api.field = (__typeof__(api.field))dlsym(lib, #name))) { \
        snprintf(load_error, sizeof load_error, "libcurl has no %s", #name); \
        return; \
    }
    FIND(global_init, curl_global_init) FIND(easy_init, curl_easy_init) FIND(easy_cleanup, curl_easy_cleanup)
    FIND(easy_reset, curl_easy_reset) FIND(easy_perform, curl_easy_perform) FIND(easy_setopt, curl_easy_setopt)
    FIND(easy_getinfo, curl_easy_getinfo) FIND(easy_strerror, curl_easy_strerror)
    FIND(slist_append, curl_slist_append) FIND(slist_free_all, curl_slist_free_all)
#undef FIND
    /* curl_global_init is not thread-safe: here it runs once, before any other call through the table. */
    CURLcode rc = api.global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed (%d)", (int)rc);
        return;
    }
    loaded = &api;
}

const struct tn_curl_api *tn_curl_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *tn_curl_load_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : load_error;
}
