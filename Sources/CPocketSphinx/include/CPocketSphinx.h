// CMU PocketSphinx (Debian's libpocketsphinx3 and libsphinxbase3), loaded on first use.
//
// Why not linked: linking libpocketsphinx (and pkg-config's libsphinxad beside it) put 27 libraries into
// every tnotesd start (PulseAudio, X11, libsndfile and its codecs, LAPACK, gfortran): 2.9 MiB of their pages
// resident in the idle daemon, plus their relocations and start-up allocations, for a feature most days never
// use. With SWORD loaded the same way the idle daemon went from 92 libraries and 45.0 MiB to 56 and 35.8 MiB.
// `tn_pocketsphinx_load` dlopen()s the library the first time a transcription job runs; each function below
// calls through a pointer dlsym() found, with the exact type of the real prototype (see loader.c).
#ifndef TN_CPOCKETSPHINX_H
#define TN_CPOCKETSPHINX_H

#include <stddef.h>
#include <stdint.h>

#include "tn_thread.h"

typedef struct tn_ps_config tn_ps_config;
typedef struct tn_ps_decoder tn_ps_decoder;
typedef struct tn_ps_seg tn_ps_seg;

/// Loads libpocketsphinx once (thread-safe). 1: every function below is usable; 0: see tn_pocketsphinx_load_error.
int tn_pocketsphinx_load(void);
/// Why the load failed (dlerror's text), or NULL after a successful load.
const char *tn_pocketsphinx_load_error(void);

/// sphinxbase's log to nowhere (err_set_logfp(NULL)).
void tn_ps_quiet(void);
/// cmd_ln_parse_r(NULL, ps_args(), argc, argv, 1).
tn_ps_config *tn_ps_config_parse(int argc, char **argv);
void tn_ps_config_free(tn_ps_config *config);
tn_ps_decoder *tn_ps_init(tn_ps_config *config);
void tn_ps_free(tn_ps_decoder *ps);
int tn_ps_start_utt(tn_ps_decoder *ps);
int tn_ps_end_utt(tn_ps_decoder *ps);
int tn_ps_process_raw(tn_ps_decoder *ps, const int16_t *data, size_t samples);
tn_ps_seg *tn_ps_seg_iter(tn_ps_decoder *ps);
tn_ps_seg *tn_ps_seg_next(tn_ps_seg *seg);
const char *tn_ps_seg_word(tn_ps_seg *seg);
void tn_ps_seg_frames(tn_ps_seg *seg, int *start, int *end);

#endif
