// Calls into libpocketsphinx through dlopen()/dlsym() (why: CPocketSphinx.h). The real headers give every
// pointer its exact type (__typeof__ does not reference the symbol, so nothing is linked).
#include "CPocketSphinx.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = "not loaded";
static char load_error_text[512];

static __typeof__(&err_set_logfp) f_err_set_logfp;
static __typeof__(&cmd_ln_parse_r) f_cmd_ln_parse_r;
static __typeof__(&cmd_ln_free_r) f_cmd_ln_free_r;
static __typeof__(&ps_args) f_ps_args;
static __typeof__(&ps_init) f_ps_init;
static __typeof__(&ps_free) f_ps_free;
static __typeof__(&ps_start_utt) f_ps_start_utt;
static __typeof__(&ps_end_utt) f_ps_end_utt;
static __typeof__(&ps_process_raw) f_ps_process_raw;
static __typeof__(&ps_seg_iter) f_ps_seg_iter;
static __typeof__(&ps_seg_next) f_ps_seg_next;
static __typeof__(&ps_seg_word) f_ps_seg_word;
static __typeof__(&ps_seg_frames) f_ps_seg_frames;

static void load(void) {
    // libpocketsphinx needs libsphinxbase (its DT_NEEDED); dlsym on its handle searches both.
    void *lib = dlopen("libpocketsphinx.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_error_text, sizeof load_error_text, "%s", dlerror());
        load_error = load_error_text;
        return;
    }
#define FIND(name) \
    if (!(f_##name = (__typeof__(f_##name))dlsym(lib, #name))) { \
        snprintf(load_error_text, sizeof load_error_text, "libpocketsphinx has no %s", #name); \
        load_error = load_error_text; \
        return; \
    }
    FIND(err_set_logfp) FIND(cmd_ln_parse_r) FIND(cmd_ln_free_r) FIND(ps_args) FIND(ps_init) FIND(ps_free)
    FIND(ps_start_utt) FIND(ps_end_utt) FIND(ps_process_raw) FIND(ps_seg_iter) FIND(ps_seg_next)
    FIND(ps_seg_word) FIND(ps_seg_frames)
#undef FIND
    load_error = NULL;
}

int tn_pocketsphinx_load(void) {
    pthread_once(&once, load);
    return load_error == NULL;
}

const char *tn_pocketsphinx_load_error(void) {
    pthread_once(&once, load);
    return load_error;
}

void tn_ps_quiet(void) { f_err_set_logfp(NULL); }

tn_ps_config *tn_ps_config_parse(int argc, char **argv) {
    return (tn_ps_config *)f_cmd_ln_parse_r(NULL, f_ps_args(), argc, argv, 1);
}

void tn_ps_config_free(tn_ps_config *config) { f_cmd_ln_free_r((cmd_ln_t *)config); }
tn_ps_decoder *tn_ps_init(tn_ps_config *config) { return (tn_ps_decoder *)f_ps_init((cmd_ln_t *)config); }
void tn_ps_free(tn_ps_decoder *ps) { f_ps_free((ps_decoder_t *)ps); }
int tn_ps_start_utt(tn_ps_decoder *ps) { return f_ps_start_utt((ps_decoder_t *)ps); }
int tn_ps_end_utt(tn_ps_decoder *ps) { return f_ps_end_utt((ps_decoder_t *)ps); }

int tn_ps_process_raw(tn_ps_decoder *ps, const int16_t *data, size_t samples) {
    return f_ps_process_raw((ps_decoder_t *)ps, data, samples, 0, 0);
}

tn_ps_seg *tn_ps_seg_iter(tn_ps_decoder *ps) { return (tn_ps_seg *)f_ps_seg_iter((ps_decoder_t *)ps); }
tn_ps_seg *tn_ps_seg_next(tn_ps_seg *seg) { return (tn_ps_seg *)f_ps_seg_next((ps_seg_t *)seg); }
const char *tn_ps_seg_word(tn_ps_seg *seg) { return f_ps_seg_word((ps_seg_t *)seg); }

void tn_ps_seg_frames(tn_ps_seg *seg, int *start, int *end) { f_ps_seg_frames((ps_seg_t *)seg, start, end); }
