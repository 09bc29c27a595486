// Calls into libsherpa-onnx-c-api.so through dlopen()/dlsym() (why: CSherpaOnnx.h). The vendored 2.0.1 header
// gives every pointer its exact type (__typeof__ does not reference the symbol, so nothing is linked) and every
// config struct its exact layout.
#include "CSherpaOnnx.h"

#include "CDynamicLibrary.h"
#include "../vendor/sherpa-onnx-c-api.h"

#include <stdlib.h>
#include <string.h>

static __typeof__(&SherpaOnnxGetVersionStr) f_version;
static __typeof__(&SherpaOnnxCreateOfflineRecognizer) f_create_recognizer;
static __typeof__(&SherpaOnnxDestroyOfflineRecognizer) f_destroy_recognizer;
static __typeof__(&SherpaOnnxCreateOfflineStream) f_create_stream;
static __typeof__(&SherpaOnnxDestroyOfflineStream) f_destroy_stream;
static __typeof__(&SherpaOnnxAcceptWaveformOffline) f_accept_waveform;
static __typeof__(&SherpaOnnxDecodeOfflineStream) f_decode;
static __typeof__(&SherpaOnnxGetOfflineStreamResult) f_result;
static __typeof__(&SherpaOnnxDestroyOfflineRecognizerResult) f_destroy_result;
static __typeof__(&SherpaOnnxCreateVoiceActivityDetector) f_create_vad;
static __typeof__(&SherpaOnnxDestroyVoiceActivityDetector) f_destroy_vad;
static __typeof__(&SherpaOnnxVoiceActivityDetectorAcceptWaveform) f_vad_accept;
static __typeof__(&SherpaOnnxVoiceActivityDetectorEmpty) f_vad_empty;
static __typeof__(&SherpaOnnxVoiceActivityDetectorDetected) f_vad_detected;
static __typeof__(&SherpaOnnxVoiceActivityDetectorFront) f_vad_front;
static __typeof__(&SherpaOnnxDestroySpeechSegment) f_destroy_segment;
static __typeof__(&SherpaOnnxVoiceActivityDetectorPop) f_vad_pop;
static __typeof__(&SherpaOnnxVoiceActivityDetectorFlush) f_vad_flush;

static const tn_symbol symbols[] = {
    {"SherpaOnnxGetVersionStr", (void **)&f_version},
    {"SherpaOnnxCreateOfflineRecognizer", (void **)&f_create_recognizer},
    {"SherpaOnnxDestroyOfflineRecognizer", (void **)&f_destroy_recognizer},
    {"SherpaOnnxCreateOfflineStream", (void **)&f_create_stream},
    {"SherpaOnnxDestroyOfflineStream", (void **)&f_destroy_stream},
    {"SherpaOnnxAcceptWaveformOffline", (void **)&f_accept_waveform},
    {"SherpaOnnxDecodeOfflineStream", (void **)&f_decode},
    {"SherpaOnnxGetOfflineStreamResult", (void **)&f_result},
    {"SherpaOnnxDestroyOfflineRecognizerResult", (void **)&f_destroy_result},
    {"SherpaOnnxCreateVoiceActivityDetector", (void **)&f_create_vad},
    {"SherpaOnnxDestroyVoiceActivityDetector", (void **)&f_destroy_vad},
    {"SherpaOnnxVoiceActivityDetectorAcceptWaveform", (void **)&f_vad_accept},
    {"SherpaOnnxVoiceActivityDetectorEmpty", (void **)&f_vad_empty},
    {"SherpaOnnxVoiceActivityDetectorDetected", (void **)&f_vad_detected},
    {"SherpaOnnxVoiceActivityDetectorFront", (void **)&f_vad_front},
    {"SherpaOnnxDestroySpeechSegment", (void **)&f_destroy_segment},
    {"SherpaOnnxVoiceActivityDetectorPop", (void **)&f_vad_pop},
    {"SherpaOnnxVoiceActivityDetectorFlush", (void **)&f_vad_flush},
};

// The path is only known at run time (the model directory): set by the first tn_sherpa_load.
static tn_library library = TN_LIBRARY("libsherpa-onnx-c-api.so", symbols);
static char library_path[4096];

int tn_sherpa_load(const char *path) {
    // tn_library_load decides once; the path of a later call is ignored, as the header says.
    if (!library_path[0] && path && strlen(path) < sizeof library_path) {
        strcpy(library_path, path);
        library.soname = library_path;
    }
    return tn_library_load(&library);
}

const char *tn_sherpa_load_error(void) { return tn_library_error(&library); }
const char *tn_sherpa_version(void) { return f_version(); }

tn_sherpa_recognizer *tn_sherpa_recognizer_create(const char *encoder, const char *merged_decoder,
                                                  const char *tokens, int32_t threads) {
    // "Zero-initialize this struct before use": every field left 0/NULL takes sherpa-onnx's default.
    SherpaOnnxOfflineRecognizerConfig config;
    memset(&config, 0, sizeof config);
    config.feat_config.sample_rate = 16000;
    config.feat_config.feature_dim = 80;
    config.model_config.moonshine.encoder = encoder;
    config.model_config.moonshine.merged_decoder = merged_decoder;
    config.model_config.tokens = tokens;
    config.model_config.num_threads = threads;
    config.model_config.provider = "cpu";
    config.decoding_method = "greedy_search";
    return (tn_sherpa_recognizer *)f_create_recognizer(&config);
}

void tn_sherpa_recognizer_free(tn_sherpa_recognizer *recognizer) {
    f_destroy_recognizer((const SherpaOnnxOfflineRecognizer *)recognizer);
}

char *tn_sherpa_recognize(tn_sherpa_recognizer *recognizer, const float *samples, int32_t count) {
    const SherpaOnnxOfflineRecognizer *r = (const SherpaOnnxOfflineRecognizer *)recognizer;
    // One stream per chunk: a stream accepts its waveform only once.
    const SherpaOnnxOfflineStream *stream = f_create_stream(r);
    if (!stream) return NULL;
    f_accept_waveform(stream, 16000, samples, count);
    f_decode(r, stream);
    const SherpaOnnxOfflineRecognizerResult *result = f_result(stream);
    char *text = strdup(result && result->text ? result->text : "");
    if (result) f_destroy_result(result);
    f_destroy_stream(stream);
    return text;
}

tn_sherpa_vad *tn_sherpa_vad_create(const char *model, float threshold, float min_silence_seconds,
                                    float min_speech_seconds, float max_speech_seconds) {
    SherpaOnnxVadModelConfig config;
    memset(&config, 0, sizeof config);
    config.silero_vad.model = model;
    config.silero_vad.threshold = threshold;
    config.silero_vad.min_silence_duration = min_silence_seconds;
    config.silero_vad.min_speech_duration = min_speech_seconds;
    config.silero_vad.max_speech_duration = max_speech_seconds;
    config.silero_vad.window_size = 512;
    config.sample_rate = 16000;
    config.num_threads = 1;
    config.provider = "cpu";
    // The buffer grows when full; 30 s is only where it starts.
    return (tn_sherpa_vad *)f_create_vad(&config, 30);
}

void tn_sherpa_vad_free(tn_sherpa_vad *vad) { f_destroy_vad((const SherpaOnnxVoiceActivityDetector *)vad); }

void tn_sherpa_vad_accept(tn_sherpa_vad *vad, const float *samples, int32_t count) {
    f_vad_accept((const SherpaOnnxVoiceActivityDetector *)vad, samples, count);
}

int tn_sherpa_vad_detected(tn_sherpa_vad *vad) { return f_vad_detected((const SherpaOnnxVoiceActivityDetector *)vad); }
void tn_sherpa_vad_flush(tn_sherpa_vad *vad) { f_vad_flush((const SherpaOnnxVoiceActivityDetector *)vad); }

int tn_sherpa_vad_pop(tn_sherpa_vad *vad, int64_t *start, float **samples, int32_t *count) {
    const SherpaOnnxVoiceActivityDetector *v = (const SherpaOnnxVoiceActivityDetector *)vad;
    if (f_vad_empty(v)) return 0;
    const SherpaOnnxSpeechSegment *segment = f_vad_front(v);
    *start = segment->start;
    *count = segment->n;
    *samples = malloc(sizeof(float) * (size_t)(segment->n > 0 ? segment->n : 1));
    if (*samples && segment->n > 0) memcpy(*samples, segment->samples, sizeof(float) * (size_t)segment->n);
    f_destroy_segment(segment);
    f_vad_pop(v);
    return *samples ? 1 : 0;
}
