// A shared library opened on first use: what the loaders of PocketSphinx, SWORD and libcurl share (each says
// why its library is not linked).
#ifndef TN_CDYNAMICLIBRARY_H
#define TN_CDYNAMICLIBRARY_H

#include <pthread.h>
#include <stddef.h>

/// A symbol to look up, and where its address goes (a function pointer of the symbol's own type).
typedef struct {
    const char *name;
    void **slot;
} tn_symbol;

/// One library and the symbols wanted from it; define it with TN_LIBRARY and use it only through the functions
/// below.
typedef struct {
    const char *soname;
    const tn_symbol *symbols;
    size_t count;
    pthread_mutex_t lock;
    int tried;
    int loaded;
    char error[512];
} tn_library;

#define TN_LIBRARY(soname, symbols) \
    { (soname), (symbols), sizeof(symbols) / sizeof((symbols)[0]), PTHREAD_MUTEX_INITIALIZER, 0, 0, "not loaded" }

/// The first call dlopen()s the library (RTLD_NOW | RTLD_LOCAL) and fills every slot with dlsym(); later calls
/// answer the same. 1 when every symbol was found. Thread-safe. The library stays open for the life of the
/// process: the slots point into it.
int tn_library_load(tn_library *library);
/// Why the load failed (dlerror's text, or the first symbol missing); NULL once loaded.
const char *tn_library_error(tn_library *library);

#endif
