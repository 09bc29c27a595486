/* Loads libcurl on first use (why: tn_curl_api.h). */
#include "tn_curl_api.h"

#include "CDynamicLibrary.h"
#include <pthread.h>
#include <stdio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct tn_curl_api api;
static const struct tn_curl_api *loaded;
static char load_error[512] = "not loaded";

static const tn_symbol symbols[] = {
    {"curl_global_init", (void **)&api.global_init},
    {"curl_easy_init", (void **)&api.easy_init},
    {"curl_easy_cleanup", (void **)&api.easy_cleanup},
    {"curl_easy_reset", (void **)&api.easy_reset},
    {"curl_easy_perform", (void **)&api.easy_perform},
    {"curl_easy_setopt", (void **)&api.easy_setopt},
    {"curl_easy_getinfo", (void **)&api.easy_getinfo},
    {"curl_easy_strerror", (void **)&api.easy_strerror},
    {"curl_slist_append", (void **)&api.slist_append},
    {"curl_slist_free_all", (void **)&api.slist_free_all},
};

static tn_library library = TN_LIBRARY("libcurl.so.4", symbols);

static void load(void) {
    if (!tn_library_load(&library)) {
        snprintf(load_error, sizeof load_error, "%s", tn_library_error(&library));
        return;
    }
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
