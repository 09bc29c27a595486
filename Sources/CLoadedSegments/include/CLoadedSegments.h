// The read-only segments of the executable and its loaded libraries, released from the resident set
// (TNotesLifecycle's ResidentMemory says why and when). In C: dl_iterate_phdr and the ELF headers are not in
// Swift's Glibc module.
#ifndef TN_CLOADEDSEGMENTS_H
#define TN_CLOADEDSEGMENTS_H

#include <stddef.h>
#include <stdint.h>

/// An address range [start, end).
typedef struct {
    uintptr_t start;
    uintptr_t end;
} tn_range;

/// madvise(MADV_DONTNEED) on every read-only PT_LOAD segment (no PF_W: code and constants, never a RELRO
/// segment, which lies in a writable one) of every loaded object: the executable and each library from a file.
/// Runs inside dl_iterate_phdr, which holds the loader's lock: no object is unmapped meanwhile (a dlclose or a
/// failed dlopen takes it off the list under that lock before unmapping it). Skips the vDSO, objects with text
/// relocations, and any segment overlapping one of `skip` (the mappings that hold a private or swapped page).
/// Each segment is rounded inwards to whole pages. Returns how many segments were released.
size_t tn_release_readonly_segments(const tn_range *skip, size_t skip_count);

#endif
