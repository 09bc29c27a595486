#include "CDynamicLibrary.h"

#include <dlfcn.h>
#include <stdio.h>

static int open_library(tn_library *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(library->error, sizeof library->error, "%s", dlerror());
        return 0;
    }
    for (size_t i = 0; i < library->count; i++) {
        // dlsym on a handle also searches the libraries its library needs (libsphinxbase for libpocketsphinx).
        void *address = dlsym(handle, library->symbols[i].name);
        if (!address) {
            snprintf(library->error, sizeof library->error, "%s has no %s", library->soname, library->symbols[i].name);
            return 0;
        }
        *library->symbols[i].slot = address;
    }
    return 1;
}

int tn_library_load(tn_library *library) {
    pthread_mutex_lock(&library->lock);
    if (!library->tried) {
        library->tried = 1;
        library->loaded = open_library(library);
    }
    int loaded = library->loaded;
    pthread_mutex_unlock(&library->lock);
    return loaded;
}

const char *tn_library_error(tn_library *library) {
    return tn_library_load(library) ? NULL : library->error;
}
