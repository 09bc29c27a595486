/* libcurl's functions as tn_http.c calls them: pointers dlsym() found in libcurl.so.4, loaded on first use.
 *
 * Why not linked: libcurl brings 29 libraries into every tnotesd start (OpenSSL, GnuTLS through LDAP,
 * Kerberos, SSH, RTMP, …): 5.5 MiB of their pages resident in a daemon that may never sync (local-only, the
 * quick start's default), plus their relocations at every start. The sync client's first request loads it
 * (on the transport's queue), and a sync client exists only with a server configured.
 * Every pointer has the exact type of libcurl's own prototype (__typeof__ does not reference the symbol). */
#ifndef TN_CURL_API_H
#define TN_CURL_API_H

#include <curl/curl.h>

struct tn_curl_api {
    __typeof__(&curl_global_init) global_init;
    __typeof__(&curl_easy_init) easy_init;
    __typeof__(&curl_easy_cleanup) easy_cleanup;
    __typeof__(&curl_easy_reset) easy_reset;
    __typeof__(&curl_easy_perform) easy_perform;
    __typeof__(&curl_easy_setopt) easy_setopt;
    __typeof__(&curl_easy_getinfo) easy_getinfo;
    __typeof__(&curl_easy_strerror) easy_strerror;
    __typeof__(&curl_slist_append) slist_append;
    __typeof__(&curl_slist_free_all) slist_free_all;
};

/* Loads libcurl once (thread-safe) and runs curl_global_init: the table, or NULL when libcurl could not be
 * loaded (then tn_curl_load_error says why). */
const struct tn_curl_api *tn_curl_load(void);
const char *tn_curl_load_error(void);

#endif
