// Calls into libpocketsphinx through dlopen()/dlsym() (why: CPocketSphinx.h). The real headers give every
// pointer its exact type (__typeof__ does not reference the symbol, so nothing is linked).
#include "CPocketSphinx.h"

#include "CDynamicLibrary.h"
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

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

static const tn_symbol symbols[] = {
    {"err_set_logfp", (void **)&f_err_set_logfp},
    {"cmd_ln_parse_r", (void **)&f_cmd_ln_parse_r},
    {"cmd_ln_free_r", (void **)&f_cmd_ln_free_r},
    {"ps_args", (void **)&f_ps_args},
    {"ps_init", (void **)&f_ps_init},
    {"ps_free", (void **)&f_ps_free},
    {"ps_start_utt", (void **)&f_ps_start_utt},
    {"ps_end_utt", (void **)&f_ps_end_utt},
    {"ps_process_raw", (void **)&f_ps_process_raw},
    {"ps_seg_iter", (void **)&f_ps_seg_iter},
    {"ps_seg_next", (void **)&f_ps_seg_next},
    {"ps_seg_word", (void **)&f_ps_seg_word},
    {"ps_seg_frames", (void **)&f_ps_seg_frames},
};

// libpocketsphinx needs libsphinxbase (its DT_NEEDED), where the cmd_ln_* and err_* functions are.
static tn_library library = TN_LIBRARY("libpocketsphinx.so.3", symbols);

int tn_pocketsphinx_load(void) { return tn_library_load(&library); }
const char *tn_pocketsphinx_load_error(void) { return tn_library_error(&library); }

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
