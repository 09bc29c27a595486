// Thread identity for the processing worker's threads (LowPriorityThread.swift), here because Swift's Glibc
// module leaves out what needs _GNU_SOURCE (gettid, pthread_setname_np). Not part of PocketSphinx; this is
// simply the processing module's C target.
#ifndef TN_THREAD_H
#define TN_THREAD_H

#include <sys/types.h>

/// The calling thread's kernel id (gettid(2)): what setpriority(PRIO_PROCESS) and sched_setscheduler() take
/// to act on one thread, and what /proc/<pid>/task/ lists.
pid_t tn_gettid(void);

/// Names the calling thread (at most 15 bytes are kept), as ps -L and /proc/<pid>/task/<tid>/comm show it.
/// 0, or an errno value.
int tn_set_thread_name(const char *name);

#endif
