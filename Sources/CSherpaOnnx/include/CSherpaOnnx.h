// sherpa-onnx's C API (sherpa-onnx-core 2.0.1 from PyPI, Apache-2.0), loaded on first use from the directory
// `tnotes models install` fills: Moonshine (speech to text) and the Silero voice activity detector (where the
// audio is cut at pauses).
//
// Why loaded, not linked: the library and its ONNX Runtime are 32 MB that most of the daemon's life never
// needs, they are not a Debian package (a user installs them, or not), and they only ever run in the
// recognizer's worker process (SherpaWorker.swift), never in tnotesd itself.
//
// Why a wrapper rather than the header: sherpa-onnx passes its configs as structs by pointer and appends fields
// between versions, so the layout must be exactly 2.0.1's. The vendored header (vendor/, the wheel's own
// c-api.h) is seen by loader.c alone; Swift sees only the few functions below, with plain arguments.
#ifndef TN_CSHERPAONNX_H
#define TN_CSHERPAONNX_H

#include <stdint.h>

typedef struct tn_sherpa_recognizer tn_sherpa_recognizer;
typedef struct tn_sherpa_vad tn_sherpa_vad;

/// dlopen()s libsherpa-onnx-c-api.so at `path` (its RPATH $ORIGIN finds libonnxruntime.so beside it). Once per
/// process: later calls answer the first call's result. 1 when loaded.
int tn_sherpa_load(const char *path);
/// Why the load failed, or NULL once loaded.
const char *tn_sherpa_load_error(void);
/// "2.0.1" (the library's own version string).
const char *tn_sherpa_version(void);

/// Moonshine v2 (encoder_model.ort + decoder_model_merged.ort, and tokens.txt of base64 tokens), greedy search
/// on the CPU with `threads` threads. NULL when sherpa-onnx refuses the config. A corrupt model file ends the
/// process (sherpa-onnx cannot report it): callers check the files' digests first.
tn_sherpa_recognizer *tn_sherpa_recognizer_create(const char *encoder, const char *merged_decoder,
                                                  const char *tokens, int32_t threads);
void tn_sherpa_recognizer_free(tn_sherpa_recognizer *recognizer);
/// Recognises one chunk of 16 kHz mono samples in [-1, 1]: the text (malloc'd; the caller frees it), NULL when
/// out of memory. An empty string when nothing was recognised.
char *tn_sherpa_recognize(tn_sherpa_recognizer *recognizer, const float *samples, int32_t count);

/// The Silero VAD (silero_vad.onnx, 16 kHz, windows of 512 samples; any other rate or window ends the process
/// inside sherpa-onnx, so they are fixed here).
tn_sherpa_vad *tn_sherpa_vad_create(const char *model, float threshold, float min_silence_seconds,
                                    float min_speech_seconds, float max_speech_seconds);
void tn_sherpa_vad_free(tn_sherpa_vad *vad);
void tn_sherpa_vad_accept(tn_sherpa_vad *vad, const float *samples, int32_t count);
/// 1 while the detector is inside speech.
int tn_sherpa_vad_detected(tn_sherpa_vad *vad);
/// Ends the current speech segment (at the end of the audio, or to cut a long one).
void tn_sherpa_vad_flush(tn_sherpa_vad *vad);
/// Takes the oldest finished segment: its first sample's index since the detector was created, and a copy of
/// its samples (malloc'd; the caller frees them). 0 when no segment is finished.
int tn_sherpa_vad_pop(tn_sherpa_vad *vad, int64_t *start, float **samples, int32_t *count);

#endif
