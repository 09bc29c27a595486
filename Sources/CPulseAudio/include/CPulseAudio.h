// The PulseAudio client library (Debian's libpulse0; PipeWire's pulse server speaks the same protocol), loaded
// on first use like PocketSphinx and SWORD: a daemon that never records never maps libpulse and the dozen
// libraries it needs (D-Bus, X11's libxcb, libsndfile and its codecs).
//
// Capture uses the simple API (`pa_simple`, a blocking read on the recorder's own thread); listing sources
// and finding the default one needs the asynchronous API, driven here by a private main loop to completion.
#ifndef TN_CPULSEAUDIO_H
#define TN_CPULSEAUDIO_H

#include <stddef.h>
#include <stdint.h>

/// Loads libpulse-simple and libpulse once (thread-safe). 1: everything below is usable.
int tn_pulse_load(void);
/// Why the load failed, or NULL.
const char *tn_pulse_load_error(void);

typedef struct tn_pulse_capture tn_pulse_capture;

/// A record stream of signed 16-bit little-endian mono at `rate` from `device` (NULL: the default source) of
/// `server` (NULL: PULSE_SERVER, else the session's), delivered in fragments of `fragment_bytes`. NULL on
/// failure, with a PulseAudio error code in *error (tn_pulse_strerror).
tn_pulse_capture *tn_pulse_capture_open(const char *server, const char *app_name, const char *device, uint32_t rate,
                                        uint32_t fragment_bytes, int *error);
/// Reads exactly `bytes` (blocking). 0 on success; -1 with *error set (a source that went away, a server that died).
int tn_pulse_capture_read(tn_pulse_capture *capture, void *buffer, size_t bytes, int *error);
/// Drops what the server buffered (after a pause, so the recording resumes with the present).
int tn_pulse_capture_flush(tn_pulse_capture *capture, int *error);
/// How far behind the source the stream is (audio captured but not yet read), in microseconds; -1 on error.
int64_t tn_pulse_capture_latency_usec(tn_pulse_capture *capture, int *error);
void tn_pulse_capture_free(tn_pulse_capture *capture);
const char *tn_pulse_strerror(int error);

/// Called once per source: its name, description, and whether it is the monitor of a sink.
typedef void (*tn_pulse_source_cb)(void *context, const char *name, const char *description, int is_monitor);

/// Connects to `server` (NULL as above, never autospawning one), calls `cb` for every source and copies the
/// default source's name into `default_source`. Gives up after `timeout_ms`. 0 on success; -1 with a
/// message in `error`.
int tn_pulse_list_sources(const char *server, tn_pulse_source_cb cb, void *context, char *default_source,
                          size_t default_source_size, int timeout_ms, char *error, size_t error_size);

#endif
