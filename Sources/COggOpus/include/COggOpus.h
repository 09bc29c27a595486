// libopusenc (Debian's libopusenc0: Opus in Ogg, the container muxed for us) and libogg (libogg0), loaded on
// first use: a daemon that never records never maps them.
//
// Why libopusenc: it takes PCM at any rate and writes a complete Ogg Opus stream (headers, granule positions,
// pre-skip, page flushing on a muxing delay we set) through callbacks, about 20 lines here. libopus alone
// would need our own Ogg muxer (libogg's stream API, header packets, granule arithmetic): three times the code
// for the same file. libogg serves the repair after a crash: its page sync finds the last intact page
// (capture pattern, length, CRC), and sets the CRC of the page we mark as the stream's end.
#ifndef TN_COGGOPUS_H
#define TN_COGGOPUS_H

#include <stddef.h>
#include <stdint.h>

/// Loads libopusenc and libogg once (thread-safe). 1: everything below is usable.
int tn_oggopus_load(void);
const char *tn_oggopus_load_error(void);

typedef struct tn_opus_writer tn_opus_writer;

/// An Ogg Opus stream of mono speech at `bitrate` bit/s written to `fd` (not closed here) from 16-bit PCM at
/// `rate`, its header written at once. A page goes out at least every `max_page_ms` milliseconds of audio.
/// NULL on failure, with a libopusenc error in *error.
tn_opus_writer *tn_opus_writer_open(int fd, int32_t rate, int32_t bitrate, int max_page_ms, const char *title,
                                    const char *artist, int *error);
/// Encodes `samples` samples. 0 on success; otherwise a libopusenc error, or -1000 - errno for a failed write.
int tn_opus_writer_write(tn_opus_writer *writer, const int16_t *pcm, int samples);
/// Encodes what is buffered and writes the last page (end of stream). 0 or an error as above.
int tn_opus_writer_finish(tn_opus_writer *writer);
void tn_opus_writer_free(tn_opus_writer *writer);
const char *tn_opus_strerror(int error);

/// Repairs an Ogg file whose writer stopped mid-stream (a crash): cuts it after its last intact page and marks
/// that page as the end of the stream. `*kept` gets the bytes kept, `*granule` the last page's granule
/// position (-1 when none). 0 on success; otherwise a message in `error` and -2 when there is no such file,
/// -3 when it holds no intact page (nothing was recorded), -1 for any other failure.
int tn_ogg_close_truncated(const char *path, long long *kept, long long *granule, char *error, size_t error_size);

#endif
