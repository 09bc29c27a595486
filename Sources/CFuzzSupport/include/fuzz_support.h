#ifndef TN_FUZZ_SUPPORT_H
#define TN_FUZZ_SUPPORT_H
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry for programs that keep their own main (present only when linked with -sanitize=fuzzer). */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
