#include "tn_http.h"

#include "tn_curl_api.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char *data;
    size_t len;
    size_t cap;
    size_t max;
    int overflow;
} buffer_t;

struct tn_abort_flag { atomic_int raised; };

tn_abort_flag *tn_abort_flag_new(void) {
    tn_abort_flag *f = malloc(sizeof(*f));
    if (f) atomic_init(&f->raised, 0);
    return f;
}
void tn_abort_flag_set(tn_abort_flag *flag) { if (flag) atomic_store(&flag->raised, 1); }
void tn_abort_flag_free(tn_abort_flag *flag) { free(flag); }

struct tn_http_handle { CURL *curl; };

tn_http_handle *tn_http_handle_new(void) {
    const struct tn_curl_api *api = tn_curl_load();
    if (!api) return NULL;
    tn_http_handle *h = malloc(sizeof(*h));
    if (!h) return NULL;
    h->curl = api->easy_init();
    if (!h->curl) { free(h); return NULL; }
    return h;
}
void tn_http_handle_free(tn_http_handle *handle) {
    if (!handle) return;
    /* A handle exists only after a successful load. */
    const struct tn_curl_api *api = tn_curl_load();
    api->easy_cleanup(handle->curl);
    free(handle);
}

typedef struct {
    buffer_t body;
    buffer_t headers;
    FILE *file;
    CURL *curl;
    const struct tn_curl_api *api;
    long long resume_from;
    int file_checked;
    int file_refused;
    tn_abort_flag *abort_flag;
} ctx_t;

static int buffer_append(buffer_t *b, const char *data, size_t len) {
    if (b->max && b->len + len > b->max) { b->overflow = 1; return 0; }
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1) cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) return 0;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = 0;
    return 1;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata) {
    ctx_t *ctx = userdata;
    size_t n = size * nmemb;
    if (ctx->file && !ctx->file_checked) {
        long code = 0;
        ctx->api->easy_getinfo(ctx->curl, CURLINFO_RESPONSE_CODE, &code);
        ctx->file_checked = 1;
        /* Only a successful body belongs in the file; an error body (404, 503…) goes to memory. */
        if (code < 200 || code >= 300) {
            ctx->file_refused = 1;
        } else if (ctx->resume_from > 0 && code == 200) {
            /* A server that ignored our Range answers 200 with the whole file: start the file over. */
            {
                fflush(ctx->file);
                if (ftruncate(fileno(ctx->file), 0) != 0) return 0;
                fseek(ctx->file, 0, SEEK_SET);
            }
        }
    }
    if (ctx->file && !ctx->file_refused) return fwrite(ptr, 1, n, ctx->file);
    return buffer_append(&ctx->body, ptr, n) ? n : 0;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *userdata) {
    ctx_t *ctx = userdata;
    size_t n = size * nmemb;
    /* Each new status line (after a redirect or 100-continue) starts a new header block. */
    if (n >= 5 && strncmp(ptr, "HTTP/", 5) == 0) ctx->headers.len = 0;
    return buffer_append(&ctx->headers, ptr, n) ? n : 0;
}

static int on_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal; (void)dlnow; (void)ultotal; (void)ulnow;
    ctx_t *ctx = userdata;
    return (ctx->abort_flag && atomic_load(&ctx->abort_flag->raised)) ? 1 : 0;
}

int tn_http_perform(tn_http_handle *handle, const tn_http_request *req, tn_http_response *resp) {
    memset(resp, 0, sizeof(*resp));
    const struct tn_curl_api *api = tn_curl_load();
    if (!api) {
        resp->curl_code = CURLE_FAILED_INIT;
        snprintf(resp->error, sizeof(resp->error), "libcurl could not be loaded (%s); install it: apt-get install libcurl4",
                 tn_curl_load_error());
        return -1;
    }
    ctx_t ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.api = api;
    ctx.body.max = req->max_body_bytes;
    ctx.resume_from = req->resume_from;
    ctx.abort_flag = req->abort_flag;

    /* A kept handle is reset to default options; its connection cache survives the reset. */
    CURL *curl = handle ? handle->curl : api->easy_init();
    if (!curl) { resp->curl_code = CURLE_FAILED_INIT; strcpy(resp->error, "curl_easy_init failed"); return -1; }
    if (handle) api->easy_reset(curl);
    ctx.curl = curl;
    char errbuf[CURL_ERROR_SIZE];
    errbuf[0] = 0;
    struct curl_slist *headers = NULL;
    FILE *upload = NULL;

    api->easy_setopt(curl, CURLOPT_URL, req->url);
    api->easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    api->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    api->easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    api->easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    if (req->ca_file) api->easy_setopt(curl, CURLOPT_CAINFO, req->ca_file);
    api->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    api->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    api->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, req->connect_timeout_ms);
    if (req->timeout_ms > 0) api->easy_setopt(curl, CURLOPT_TIMEOUT_MS, req->timeout_ms);
    if (req->low_speed_time_s > 0) {
        api->easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, req->low_speed_limit > 0 ? req->low_speed_limit : 1L);
        api->easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, req->low_speed_time_s);
    }
    api->easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    api->easy_setopt(curl, CURLOPT_WRITEDATA, &ctx);
    api->easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    api->easy_setopt(curl, CURLOPT_HEADERDATA, &ctx);
    api->easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    api->easy_setopt(curl, CURLOPT_XFERINFODATA, &ctx);
    api->easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);

    for (int i = 0; i < req->header_count; i++) headers = api->slist_append(headers, req->headers[i]);
    headers = api->slist_append(headers, "Expect:");

    if (strcmp(req->method, "HEAD") == 0) {
        api->easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (req->upload_path) {
        upload = fopen(req->upload_path, "rb");
        if (!upload) { resp->curl_code = CURLE_READ_ERROR; snprintf(resp->error, sizeof(resp->error), "cannot open %s", req->upload_path); goto done; }
        fseek(upload, 0, SEEK_END);
        long long size = ftell(upload);
        fseek(upload, 0, SEEK_SET);
        api->easy_setopt(curl, CURLOPT_UPLOAD, 1L);
        api->easy_setopt(curl, CURLOPT_READDATA, upload);
        api->easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)size);
        api->easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req->method);
    } else if (req->body || strcmp(req->method, "POST") == 0) {
        api->easy_setopt(curl, CURLOPT_POST, 1L);
        api->easy_setopt(curl, CURLOPT_POSTFIELDS, req->body ? (const char *)req->body : "");
        api->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        if (strcmp(req->method, "POST") != 0) api->easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req->method);
    } else if (strcmp(req->method, "GET") != 0) {
        api->easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req->method);
    }
    api->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);

    if (req->download_path) {
        ctx.file = fopen(req->download_path, req->resume_from > 0 ? "ab" : "wb");
        if (!ctx.file) { resp->curl_code = CURLE_WRITE_ERROR; snprintf(resp->error, sizeof(resp->error), "cannot open %s", req->download_path); goto done; }
    }

    resp->curl_code = api->easy_perform(curl);
    api->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp->status);
    if (resp->curl_code != CURLE_OK) {
        const char *msg = errbuf[0] ? errbuf : api->easy_strerror(resp->curl_code);
        if (ctx.body.overflow) msg = "response body over the limit";
        snprintf(resp->error, sizeof(resp->error), "%s", msg);
    }

done:
    if (ctx.file) {
        if (fflush(ctx.file) != 0 || fsync(fileno(ctx.file)) != 0) {
            if (resp->curl_code == CURLE_OK) { resp->curl_code = CURLE_WRITE_ERROR; strcpy(resp->error, "cannot write the download"); }
        }
        fclose(ctx.file);
    }
    if (upload) fclose(upload);
    api->slist_free_all(headers);
    if (!handle) api->easy_cleanup(curl);
    resp->body = ctx.body.data;
    resp->body_len = ctx.body.len;
    resp->headers = ctx.headers.data;
    resp->headers_len = ctx.headers.len;
    return resp->curl_code == CURLE_OK ? 0 : -1;
}

void tn_http_response_free(tn_http_response *resp) {
    free(resp->body);
    free(resp->headers);
    resp->body = NULL;
    resp->headers = NULL;
}
