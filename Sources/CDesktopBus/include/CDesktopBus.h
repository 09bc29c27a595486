// The daemon's D-Bus connections through sd-bus (libsystemd, already the daemon's dependency): see bus.c for
// why these few calls are C.
#ifndef TN_CDESKTOPBUS_H
#define TN_CDESKTOPBUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tn_bus tn_bus;

/// What the daemon follows on the system bus, written by the bus thread's callbacks only (and read by that
/// thread between calls).
typedef struct {
    /// NetworkManager's global Metered (0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no); -1 without NetworkManager.
    int metered;
    /// UPower's OnBattery (0, 1); -1 without UPower.
    int on_battery;
    /// logind's last PrepareForSleep: 1 about to sleep, 0 awake.
    int sleeping;
    /// PrepareForSleep(false) signals seen.
    unsigned resumes;
    /// A followed service appeared, left or restarted: its values are to be read again (tn_bus_read_system).
    unsigned owners_changed;
    /// Bumped by every change above.
    unsigned changes;
} tn_system_state;

/// The system bus (system = 1) or the session bus (0); NULL, with *error an errno value, when there is none.
/// The addresses come from DBUS_SYSTEM_BUS_ADDRESS / DBUS_SESSION_BUS_ADDRESS when set.
tn_bus *tn_bus_open(int system, int *error);
void tn_bus_close(tn_bus *bus);
int tn_bus_fd(tn_bus *bus);
/// The poll(2) events to wait for on tn_bus_fd.
short tn_bus_events(tn_bus *bus);
/// Milliseconds until sd-bus needs to run again (a call's timeout); -1 when nothing is due.
int tn_bus_timeout_ms(tn_bus *bus);
/// Handles everything pending (the followed values' callbacks run here); negative once the connection is gone.
int tn_bus_process(tn_bus *bus);
/// org.freedesktop.Notifications.Notify (urgency 0 low, 1 normal, 2 critical): the notification's id, or a
/// negative errno with the bus's error written to `error`.
int64_t tn_bus_notify(tn_bus *bus, const char *summary, const char *body, int urgency, char *error, size_t error_len);
/// Follows Metered, OnBattery and PrepareForSleep into `state` (which must outlive the bus), then reads the
/// values. Negative when the matches cannot be added (the connection is then unusable).
int tn_bus_follow_system(tn_bus *bus, tn_system_state *state);
/// Reads Metered and OnBattery again (after a service restarted).
void tn_bus_read_system(tn_bus *bus);
/// logind's delay lock on sleep ("delay" mode): an fd of the caller's that holds sleep off until it is closed
/// (for at most logind's InhibitDelayMaxSec), or a negative errno (no logind, not allowed).
int tn_bus_inhibit_sleep(tn_bus *bus, const char *why);

/// An eventfd (non-blocking, close-on-exec) that wakes the bus thread's poll(2); negative errno on failure.
int tn_bus_wake_open(void);

#endif
