// Calls into libopusenc and libogg through dlopen()/dlsym() (why: COggOpus.h). ope_encoder_ctl is variadic,
// one more reason for C here.
#define _GNU_SOURCE
#include "COggOpus.h"

#include "CDynamicLibrary.h"
#include <errno.h>
#include <fcntl.h>
#include <ogg/ogg.h>
#include <opus/opusenc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static __typeof__(&ope_comments_create) f_ope_comments_create;
static __typeof__(&ope_comments_add) f_ope_comments_add;
static __typeof__(&ope_comments_destroy) f_ope_comments_destroy;
static __typeof__(&ope_encoder_create_callbacks) f_ope_encoder_create_callbacks;
static __typeof__(&ope_encoder_ctl) f_ope_encoder_ctl;
static __typeof__(&ope_encoder_flush_header) f_ope_encoder_flush_header;
static __typeof__(&ope_encoder_write) f_ope_encoder_write;
static __typeof__(&ope_encoder_drain) f_ope_encoder_drain;
static __typeof__(&ope_encoder_destroy) f_ope_encoder_destroy;
static __typeof__(&ope_strerror) f_ope_strerror;

static const tn_symbol opusenc_symbols[] = {
    {"ope_comments_create", (void **)&f_ope_comments_create},
    {"ope_comments_add", (void **)&f_ope_comments_add},
    {"ope_comments_destroy", (void **)&f_ope_comments_destroy},
    {"ope_encoder_create_callbacks", (void **)&f_ope_encoder_create_callbacks},
    {"ope_encoder_ctl", (void **)&f_ope_encoder_ctl},
    {"ope_encoder_flush_header", (void **)&f_ope_encoder_flush_header},
    {"ope_encoder_write", (void **)&f_ope_encoder_write},
    {"ope_encoder_drain", (void **)&f_ope_encoder_drain},
    {"ope_encoder_destroy", (void **)&f_ope_encoder_destroy},
    {"ope_strerror", (void **)&f_ope_strerror},
};

static __typeof__(&ogg_sync_init) f_ogg_sync_init;
static __typeof__(&ogg_sync_clear) f_ogg_sync_clear;
static __typeof__(&ogg_sync_buffer) f_ogg_sync_buffer;
static __typeof__(&ogg_sync_wrote) f_ogg_sync_wrote;
static __typeof__(&ogg_sync_pageseek) f_ogg_sync_pageseek;
static __typeof__(&ogg_page_checksum_set) f_ogg_page_checksum_set;
static __typeof__(&ogg_page_granulepos) f_ogg_page_granulepos;

static const tn_symbol ogg_symbols[] = {
    {"ogg_sync_init", (void **)&f_ogg_sync_init},
    {"ogg_sync_clear", (void **)&f_ogg_sync_clear},
    {"ogg_sync_buffer", (void **)&f_ogg_sync_buffer},
    {"ogg_sync_wrote", (void **)&f_ogg_sync_wrote},
    {"ogg_sync_pageseek", (void **)&f_ogg_sync_pageseek},
    {"ogg_page_checksum_set", (void **)&f_ogg_page_checksum_set},
    {"ogg_page_granulepos", (void **)&f_ogg_page_granulepos},
};

static tn_library opusenc_library = TN_LIBRARY("libopusenc.so.0", opusenc_symbols);
static tn_library ogg_library = TN_LIBRARY("libogg.so.0", ogg_symbols);

int tn_oggopus_load(void) { return tn_library_load(&opusenc_library) && tn_library_load(&ogg_library); }

const char *tn_oggopus_load_error(void) {
    const char *e = tn_library_error(&opusenc_library);
    return e ? e : tn_library_error(&ogg_library);
}

struct tn_opus_writer {
    OggOpusEnc *encoder;
    int fd;
    int write_errno;
};

static int write_callback(void *user_data, const unsigned char *ptr, opus_int32 len) {
    tn_opus_writer *w = user_data;
    while (len > 0) {
        ssize_t n = write(w->fd, ptr, (size_t)len);
        if (n < 0) {
            if (errno == EINTR) continue;
            w->write_errno = errno;
            return 1;
        }
        ptr += n;
        len -= (opus_int32)n;
    }
    return 0;
}

static int close_callback(void *user_data) {
    (void)user_data;  // the fd is the caller's
    return 0;
}

static const OpusEncCallbacks callbacks = {write_callback, close_callback};

static int result(tn_opus_writer *w, int code) {
    if (w->write_errno) return -1000 - w->write_errno;
    return code;
}

tn_opus_writer *tn_opus_writer_open(int fd, int32_t rate, int32_t bitrate, int max_page_ms, const char *title,
                                    const char *artist, int *error) {
    tn_opus_writer *w = calloc(1, sizeof *w);
    if (!w) {
        *error = OPE_ALLOC_FAIL;
        return NULL;
    }
    w->fd = fd;
    OggOpusComments *comments = f_ope_comments_create();
    if (!comments) {
        free(w);
        *error = OPE_ALLOC_FAIL;
        return NULL;
    }
    if (title && *title) f_ope_comments_add(comments, "TITLE", title);
    if (artist && *artist) f_ope_comments_add(comments, "ARTIST", artist);
    w->encoder = f_ope_encoder_create_callbacks(&callbacks, w, comments, rate, 1, 0, error);
    f_ope_comments_destroy(comments);
    if (!w->encoder) {
        free(w);
        return NULL;
    }
    int delay = max_page_ms * 48;  // libopusenc counts delays in samples at 48 kHz
    // The muxing delay bounds how long encoded audio may wait for its page; the decision delay (2 s by
    // default, for chaining) would hold that much PCM unencoded, all of it lost in a crash.
    int rc = f_ope_encoder_ctl(w->encoder, OPE_SET_MUXING_DELAY(delay));
    if (rc == OPE_OK) rc = f_ope_encoder_ctl(w->encoder, OPE_SET_DECISION_DELAY(delay));
    if (rc == OPE_OK) rc = f_ope_encoder_ctl(w->encoder, OPUS_SET_BITRATE(bitrate));
    if (rc == OPE_OK) rc = f_ope_encoder_ctl(w->encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
    if (rc == OPE_OK) rc = f_ope_encoder_flush_header(w->encoder);
    rc = result(w, rc);
    if (rc != OPE_OK) {
        *error = rc;
        f_ope_encoder_destroy(w->encoder);
        free(w);
        return NULL;
    }
    return w;
}

int tn_opus_writer_write(tn_opus_writer *w, const int16_t *pcm, int samples) {
    return result(w, f_ope_encoder_write(w->encoder, pcm, samples));
}

int tn_opus_writer_finish(tn_opus_writer *w) { return result(w, f_ope_encoder_drain(w->encoder)); }

void tn_opus_writer_free(tn_opus_writer *w) {
    if (!w) return;
    f_ope_encoder_destroy(w->encoder);
    free(w);
}

const char *tn_opus_strerror(int error) {
    if (error <= -1000) return strerror(-1000 - error);
    return f_ope_strerror(error);
}

int tn_ogg_close_truncated(const char *path, long long *kept, long long *granule, char *error, size_t error_size) {
    *kept = 0;
    *granule = -1;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        snprintf(error, error_size, "cannot open: %s", strerror(err));
        return err == ENOENT ? -2 : -1;
    }
    ogg_sync_state sync;
    f_ogg_sync_init(&sync);
    long long offset = 0, last_page = -1;
    long last_page_length = 0;
    int done = 0;
    while (!done) {
        char *buffer = f_ogg_sync_buffer(&sync, 65536);
        ssize_t n = read(fd, buffer, 65536);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {  // not the end of the file: what follows may be intact, so nothing is cut or given up
            int err = errno;
            f_ogg_sync_clear(&sync);
            close(fd);
            snprintf(error, error_size, "cannot read: %s", strerror(err));
            return -1;
        }
        if (n == 0) break;
        f_ogg_sync_wrote(&sync, n);
        for (;;) {
            ogg_page page;
            long r = f_ogg_sync_pageseek(&sync, &page);
            if (r == 0) break;  // needs more bytes
            if (r < 0) {        // bytes that are not an intact page: the stream is cut here
                done = 1;
                break;
            }
            last_page = offset;
            last_page_length = r;
            *granule = f_ogg_page_granulepos(&page);
            offset += r;
        }
    }
    f_ogg_sync_clear(&sync);
    if (last_page < 0) {
        close(fd);
        snprintf(error, error_size, "no intact Ogg page");
        return -3;
    }
    // The last intact page: its header type gets the end-of-stream flag (bit 2), then a new CRC.
    unsigned char *page_bytes = malloc((size_t)last_page_length);
    int rc = -1;
    if (page_bytes && pread(fd, page_bytes, (size_t)last_page_length, last_page) == last_page_length) {
        long header_length = 27 + page_bytes[26];
        page_bytes[5] |= 0x04;
        ogg_page page = {page_bytes, header_length, page_bytes + header_length, last_page_length - header_length};
        f_ogg_page_checksum_set(&page);
        if (pwrite(fd, page_bytes, (size_t)last_page_length, last_page) == last_page_length && ftruncate(fd, offset) == 0 &&
            fsync(fd) == 0) {
            *kept = offset;
            rc = 0;
        } else {
            snprintf(error, error_size, "cannot rewrite: %s", strerror(errno));
        }
    } else {
        snprintf(error, error_size, "cannot read the last page: %s", strerror(errno));
    }
    free(page_bytes);
    close(fd);
    return rc;
}
