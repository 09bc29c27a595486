#define _GNU_SOURCE
#include "CLoadedSegments.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    const tn_range *skip;
    size_t skip_count;
    uintptr_t page;
    size_t released;
} walk;

/// Whether the object's dynamic section asks for text relocations (its code pages are written at load).
static int has_text_relocations(const struct dl_phdr_info *info) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr); d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_TEXTREL) return 1;
            if (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

static int overlaps_skipped(const walk *w, uintptr_t start, uintptr_t end) {
    for (size_t k = 0; k < w->skip_count; k++) {
        if (w->skip[k].start < end && start < w->skip[k].end) return 1;
    }
    return 0;
}

static int release_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    walk *w = data;
    // The executable has an empty name; a library loaded from a file, its path. Anything else (the vDSO,
    // "linux-vdso.so.1") is not a file mapping.
    if (info->dlpi_name == NULL || (info->dlpi_name[0] != '\0' && info->dlpi_name[0] != '/')) return 0;
    if (has_text_relocations(info)) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || ph->p_memsz == 0) continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        uintptr_t end = start + ph->p_memsz;
        start = (start + w->page - 1) & ~(w->page - 1);
        end &= ~(w->page - 1);
        if (end <= start || overlaps_skipped(w, start, end)) continue;
        if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) w->released++;
    }
    return 0;
}

size_t tn_release_readonly_segments(const tn_range *skip, size_t skip_count) {
    long page = sysconf(_SC_PAGESIZE);
    walk w = {skip, skip_count, (uintptr_t)(page > 0 ? page : 4096), 0};
    dl_iterate_phdr(release_object, &w);
    return w.released;
}
