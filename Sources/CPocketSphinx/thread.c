// See tn_thread.h.
#define _GNU_SOURCE
#include "tn_thread.h"

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

pid_t tn_gettid(void) { return (pid_t)syscall(SYS_gettid); }

int tn_set_thread_name(const char *name) {
    char buf[16];
    strncpy(buf, name, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    return pthread_setname_np(pthread_self(), buf);
}
