// Calls into libpulse-simple and libpulse through dlopen()/dlsym() (why: CPulseAudio.h). The real headers give
// every pointer its exact type (__typeof__ does not reference the symbol, so nothing is linked).
#include "CPulseAudio.h"

#include "CDynamicLibrary.h"
#include <pulse/pulseaudio.h>
#include <pulse/simple.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static __typeof__(&pa_simple_new) f_pa_simple_new;
static __typeof__(&pa_simple_read) f_pa_simple_read;
static __typeof__(&pa_simple_flush) f_pa_simple_flush;
static __typeof__(&pa_simple_free) f_pa_simple_free;
static __typeof__(&pa_simple_get_latency) f_pa_simple_get_latency;

static const tn_symbol simple_symbols[] = {
    {"pa_simple_new", (void **)&f_pa_simple_new},
    {"pa_simple_read", (void **)&f_pa_simple_read},
    {"pa_simple_flush", (void **)&f_pa_simple_flush},
    {"pa_simple_free", (void **)&f_pa_simple_free},
    {"pa_simple_get_latency", (void **)&f_pa_simple_get_latency},
};

static __typeof__(&pa_strerror) f_pa_strerror;
static __typeof__(&pa_mainloop_new) f_pa_mainloop_new;
static __typeof__(&pa_mainloop_free) f_pa_mainloop_free;
static __typeof__(&pa_mainloop_get_api) f_pa_mainloop_get_api;
static __typeof__(&pa_mainloop_prepare) f_pa_mainloop_prepare;
static __typeof__(&pa_mainloop_poll) f_pa_mainloop_poll;
static __typeof__(&pa_mainloop_dispatch) f_pa_mainloop_dispatch;
static __typeof__(&pa_context_new) f_pa_context_new;
static __typeof__(&pa_context_unref) f_pa_context_unref;
static __typeof__(&pa_context_connect) f_pa_context_connect;
static __typeof__(&pa_context_disconnect) f_pa_context_disconnect;
static __typeof__(&pa_context_get_state) f_pa_context_get_state;
static __typeof__(&pa_context_errno) f_pa_context_errno;
static __typeof__(&pa_context_get_server_info) f_pa_context_get_server_info;
static __typeof__(&pa_context_get_source_info_list) f_pa_context_get_source_info_list;
static __typeof__(&pa_operation_get_state) f_pa_operation_get_state;
static __typeof__(&pa_operation_unref) f_pa_operation_unref;

static const tn_symbol pulse_symbols[] = {
    {"pa_strerror", (void **)&f_pa_strerror},
    {"pa_mainloop_new", (void **)&f_pa_mainloop_new},
    {"pa_mainloop_free", (void **)&f_pa_mainloop_free},
    {"pa_mainloop_get_api", (void **)&f_pa_mainloop_get_api},
    {"pa_mainloop_prepare", (void **)&f_pa_mainloop_prepare},
    {"pa_mainloop_poll", (void **)&f_pa_mainloop_poll},
    {"pa_mainloop_dispatch", (void **)&f_pa_mainloop_dispatch},
    {"pa_context_new", (void **)&f_pa_context_new},
    {"pa_context_unref", (void **)&f_pa_context_unref},
    {"pa_context_connect", (void **)&f_pa_context_connect},
    {"pa_context_disconnect", (void **)&f_pa_context_disconnect},
    {"pa_context_get_state", (void **)&f_pa_context_get_state},
    {"pa_context_errno", (void **)&f_pa_context_errno},
    {"pa_context_get_server_info", (void **)&f_pa_context_get_server_info},
    {"pa_context_get_source_info_list", (void **)&f_pa_context_get_source_info_list},
    {"pa_operation_get_state", (void **)&f_pa_operation_get_state},
    {"pa_operation_unref", (void **)&f_pa_operation_unref},
};

static tn_library simple_library = TN_LIBRARY("libpulse-simple.so.0", simple_symbols);
static tn_library pulse_library = TN_LIBRARY("libpulse.so.0", pulse_symbols);

int tn_pulse_load(void) { return tn_library_load(&pulse_library) && tn_library_load(&simple_library); }

const char *tn_pulse_load_error(void) {
    const char *e = tn_library_error(&pulse_library);
    return e ? e : tn_library_error(&simple_library);
}

const char *tn_pulse_strerror(int error) { return f_pa_strerror(error); }

tn_pulse_capture *tn_pulse_capture_open(const char *server, const char *app_name, const char *device, uint32_t rate,
                                        uint32_t fragment_bytes, int *error) {
    pa_sample_spec spec = {.format = PA_SAMPLE_S16LE, .rate = rate, .channels = 1};
    // fragsize: the server sends a fragment this large, so a read returns about every 100 ms; maxlength
    // (the server's default, about 2 s here) is how long the reader may stall before samples are dropped.
    pa_buffer_attr attr = {.maxlength = (uint32_t)-1, .tlength = (uint32_t)-1, .prebuf = (uint32_t)-1,
                           .minreq = (uint32_t)-1, .fragsize = fragment_bytes};
    return (tn_pulse_capture *)f_pa_simple_new(server, app_name, PA_STREAM_RECORD, device, "sermon recording", &spec,
                                                NULL, &attr, error);
}

int tn_pulse_capture_read(tn_pulse_capture *capture, void *buffer, size_t bytes, int *error) {
    return f_pa_simple_read((pa_simple *)capture, buffer, bytes, error) < 0 ? -1 : 0;
}

int tn_pulse_capture_flush(tn_pulse_capture *capture, int *error) {
    return f_pa_simple_flush((pa_simple *)capture, error) < 0 ? -1 : 0;
}

int64_t tn_pulse_capture_latency_usec(tn_pulse_capture *capture, int *error) {
    pa_usec_t usec = f_pa_simple_get_latency((pa_simple *)capture, error);
    return usec == (pa_usec_t)-1 ? -1 : (int64_t)usec;
}

void tn_pulse_capture_free(tn_pulse_capture *capture) { f_pa_simple_free((pa_simple *)capture); }

// --- Listing sources: connect, ask for the server info and the source list, run the loop until both answer.

typedef struct {
    tn_pulse_source_cb cb;
    void *context;
    char *default_source;
    size_t default_source_size;
} list_state;

static void on_server_info(pa_context *c, const pa_server_info *info, void *userdata) {
    (void)c;
    list_state *s = userdata;
    if (info && info->default_source_name) snprintf(s->default_source, s->default_source_size, "%s", info->default_source_name);
}

static void on_source_info(pa_context *c, const pa_source_info *info, int eol, void *userdata) {
    (void)c;
    list_state *s = userdata;
    if (eol || !info) return;
    s->cb(s->context, info->name ? info->name : "", info->description ? info->description : "",
          info->monitor_of_sink != PA_INVALID_INDEX);
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int tn_pulse_list_sources(const char *server, tn_pulse_source_cb cb, void *context, char *default_source,
                          size_t default_source_size, int timeout_ms, char *error, size_t error_size) {
    list_state state = {cb, context, default_source, default_source_size};
    if (default_source_size) default_source[0] = 0;
    pa_mainloop *loop = f_pa_mainloop_new();
    if (!loop) {
        snprintf(error, error_size, "cannot create a PulseAudio main loop");
        return -1;
    }
    pa_context *ctx = f_pa_context_new(f_pa_mainloop_get_api(loop), "tnotesd");
    int result = -1;
    pa_operation *server_op = NULL, *source_op = NULL;
    long long deadline = now_ms() + timeout_ms;
    if (!ctx || f_pa_context_connect(ctx, server, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) {
        snprintf(error, error_size, "%s", ctx ? f_pa_strerror(f_pa_context_errno(ctx)) : "cannot create a context");
        goto done;
    }
    for (;;) {
        if (now_ms() > deadline) {
            snprintf(error, error_size, "no answer within %d ms", timeout_ms);
            goto done;
        }
        pa_context_state_t st = f_pa_context_get_state(ctx);
        if (st == PA_CONTEXT_FAILED || st == PA_CONTEXT_TERMINATED) {
            snprintf(error, error_size, "%s", f_pa_strerror(f_pa_context_errno(ctx)));
            goto done;
        }
        if (st == PA_CONTEXT_READY) {
            if (!server_op) {
                server_op = f_pa_context_get_server_info(ctx, on_server_info, &state);
                source_op = f_pa_context_get_source_info_list(ctx, on_source_info, &state);
                if (!server_op || !source_op) {
                    snprintf(error, error_size, "%s", f_pa_strerror(f_pa_context_errno(ctx)));
                    goto done;
                }
            } else if (f_pa_operation_get_state(server_op) != PA_OPERATION_RUNNING &&
                       f_pa_operation_get_state(source_op) != PA_OPERATION_RUNNING) {
                result = 0;
                goto done;
            }
        }
        // One turn of the loop, waiting at most 100 ms: a server that accepts and never answers meets the deadline.
        if (f_pa_mainloop_prepare(loop, 100000) < 0 || f_pa_mainloop_poll(loop) < 0 || f_pa_mainloop_dispatch(loop) < 0) {
            snprintf(error, error_size, "the PulseAudio main loop failed");
            goto done;
        }
    }
done:
    if (server_op) f_pa_operation_unref(server_op);
    if (source_op) f_pa_operation_unref(source_op);
    if (ctx) {
        f_pa_context_disconnect(ctx);
        f_pa_context_unref(ctx);
    }
    f_pa_mainloop_free(loop);
    return result;
}
