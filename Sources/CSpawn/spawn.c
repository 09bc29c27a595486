#define _GNU_SOURCE
#include <spawn.h>

#include "CSpawn.h"

int tn_spawn_actions_closefrom(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}
