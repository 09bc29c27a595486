#ifndef TN_HTTP_H
#define TN_HTTP_H

#include <stddef.h>

/* One blocking HTTP exchange over libcurl, with everything variadic (curl_easy_setopt) kept on the C side. */
typedef struct {
    const char *url;
    const char *method;               /* "GET", "POST", "PUT", "HEAD" */
    const char *const *headers;       /* "Name: value" lines */
    int header_count;
    const unsigned char *body;        /* in-memory request body, or NULL */
    size_t body_len;
    const char *upload_path;          /* stream this file as the body (PUT), or NULL */
    const char *download_path;        /* write the response body to this file, or NULL for memory */
    long long resume_from;            /* with download_path: bytes already in the file (Range: bytes=N-) */
    long connect_timeout_ms;
    long timeout_ms;                  /* whole request; 0 = none (large transfers use low-speed limits) */
    long low_speed_limit;             /* abort when below this many bytes/s ... */
    long low_speed_time_s;            /* ... for this many seconds */
    size_t max_body_bytes;            /* in-memory response bodies larger than this fail */
    struct tn_abort_flag *abort_flag; /* set from another thread (tn_abort_flag_set) to abort the transfer */
    const char *ca_file;              /* PEM file of CAs to trust instead of the system's, or NULL */
} tn_http_request;

/* A flag another thread raises to abort a transfer: checked by libcurl's progress callback (about once a
   second while idle, at every chunk while moving), so a transfer ends within about a second. */
typedef struct tn_abort_flag tn_abort_flag;
tn_abort_flag *tn_abort_flag_new(void);
void tn_abort_flag_set(tn_abort_flag *flag);
void tn_abort_flag_free(tn_abort_flag *flag);

/* A reusable libcurl easy handle: its connection cache (keep-alive connections, TLS sessions, DNS) lives
   across the requests made with it. Use from one thread at a time. */
typedef struct tn_http_handle tn_http_handle;
tn_http_handle *tn_http_handle_new(void);
void tn_http_handle_free(tn_http_handle *handle);

typedef struct {
    long status;                      /* HTTP status, 0 when no response */
    char *body;                       /* malloc'd, NUL-terminated (memory responses) */
    size_t body_len;
    char *headers;                    /* malloc'd raw header block, NUL-terminated */
    size_t headers_len;
    int curl_code;                    /* CURLE_OK (0) on a completed exchange */
    char error[256];
} tn_http_response;

/* One exchange on `handle` (reset first, its connections kept), or on a handle of its own when NULL. */
int tn_http_perform(tn_http_handle *handle, const tn_http_request *req, tn_http_response *resp);
void tn_http_response_free(tn_http_response *resp);

#endif
