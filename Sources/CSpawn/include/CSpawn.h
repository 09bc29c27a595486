// posix_spawn's file action that closes every descriptor from a number up (glibc ≥ 2.34). In C: spawn.h
// declares it only under _GNU_SOURCE (__USE_GNU), which Swift's Glibc module does not define.
#ifndef TN_CSPAWN_H
#define TN_CSPAWN_H

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor ≥ `from` before exec.
/// `actions` is a posix_spawn_file_actions_t *. Untyped so that this header does not pull spawn.h (and its
/// sched_param) into the importing module, where it would shadow Glibc's. 0, or an errno.
int tn_spawn_actions_closefrom(void *actions, int from);

#endif
