// D-Bus through sd-bus (libsystemd, the daemon's own dependency, so no new library): desktop notifications on
// the session bus; on the system bus, the state the daemon adapts to (NetworkManager's Metered, UPower's
// OnBattery, logind's PrepareForSleep) and logind's sleep delay lock.
//
// Why C: sd-bus's convenient calls (sd_bus_call_method, sd_bus_message_append/read) are variadic, which Swift
// cannot call, and its signal handlers are C callbacks. Swift sees a few plain functions and a struct of values.
// Every call here is made by one thread (DesktopBus's): an sd_bus is not thread-safe.
#include "CDesktopBus.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

struct tn_bus {
    sd_bus *bus;
    tn_system_state *state;  // the system bus's followed values (NULL on the session bus)
};

/// A missing or hung service must not hold the bus thread for sd-bus's default 25 s.
static const uint64_t call_timeout_usec = 2 * 1000000ULL;

tn_bus *tn_bus_open(int system, int *error) {
    sd_bus *bus = NULL;
    int r = system ? sd_bus_open_system_with_description(&bus, "tnotesd-system")
                   : sd_bus_open_user_with_description(&bus, "tnotesd-session");
    if (r < 0) {
        *error = -r;
        return NULL;
    }
    sd_bus_set_method_call_timeout(bus, call_timeout_usec);
    tn_bus *b = calloc(1, sizeof *b);
    if (!b) {
        sd_bus_flush_close_unref(bus);
        *error = ENOMEM;
        return NULL;
    }
    b->bus = bus;
    *error = 0;
    return b;
}

void tn_bus_close(tn_bus *b) {
    if (!b) return;
    // The matches' slots are floating (owned by the bus): they go with it.
    sd_bus_flush_close_unref(b->bus);
    free(b);
}

int tn_bus_fd(tn_bus *b) { return sd_bus_get_fd(b->bus); }

short tn_bus_events(tn_bus *b) {
    int e = sd_bus_get_events(b->bus);
    return e < 0 ? POLLIN : (short)e;
}

int tn_bus_timeout_ms(tn_bus *b) {
    uint64_t until = 0;
    if (sd_bus_get_timeout(b->bus, &until) <= 0 || until == UINT64_MAX) return -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
    if (until <= now) return 0;
    uint64_t ms = (until - now + 999) / 1000;
    return ms > 60000 ? 60000 : (int)ms;
}

int tn_bus_process(tn_bus *b) {
    int r;
    // One message per call: drain until idle.
    while ((r = sd_bus_process(b->bus, NULL)) > 0) {}
    if (r < 0) return r;
    return sd_bus_is_open(b->bus) > 0 ? 0 : -ENOTCONN;
}

static void copy_error(const sd_bus_error *err, int r, char *out, size_t len) {
    if (!out || !len) return;
    if (err && err->name) snprintf(out, len, "%s: %s", err->name, err->message ? err->message : "");
    else snprintf(out, len, "%s", strerror(r < 0 ? -r : r));
}

int64_t tn_bus_notify(tn_bus *b, const char *summary, const char *body, int urgency, char *error, size_t error_len) {
    sd_bus_message *m = NULL, *reply = NULL;
    sd_bus_error err = SD_BUS_ERROR_NULL;
    uint32_t replaces = 0, id = 0;
    int32_t expire = -1;  // the server's default
    uint8_t level = (uint8_t)(urgency < 0 ? 0 : urgency > 2 ? 2 : urgency);
    int r = sd_bus_message_new_method_call(b->bus, &m, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                           "org.freedesktop.Notifications", "Notify");
    if (r < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', "tnotes")) < 0) goto out;          // app_name
    if ((r = sd_bus_message_append_basic(m, 'u', &replaces)) < 0) goto out;        // replaces_id
    if ((r = sd_bus_message_append_basic(m, 's', "accessories-text-editor")) < 0) goto out;  // app_icon
    if ((r = sd_bus_message_append_basic(m, 's', summary)) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', body)) < 0) goto out;
    if ((r = sd_bus_message_open_container(m, 'a', "s")) < 0) goto out;           // actions: none
    if ((r = sd_bus_message_close_container(m)) < 0) goto out;
    if ((r = sd_bus_message_open_container(m, 'a', "{sv}")) < 0) goto out;        // hints: urgency, desktop-entry
    if ((r = sd_bus_message_open_container(m, 'e', "sv")) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', "urgency")) < 0) goto out;
    if ((r = sd_bus_message_open_container(m, 'v', "y")) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 'y', &level)) < 0) goto out;
    if ((r = sd_bus_message_close_container(m)) < 0) goto out;
    if ((r = sd_bus_message_close_container(m)) < 0) goto out;
    if ((r = sd_bus_message_open_container(m, 'e', "sv")) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', "desktop-entry")) < 0) goto out;
    if ((r = sd_bus_message_open_container(m, 'v', "s")) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', "tnotes")) < 0) goto out;
    if ((r = sd_bus_message_close_container(m)) < 0) goto out;
    if ((r = sd_bus_message_close_container(m)) < 0) goto out;
    if ((r = sd_bus_message_close_container(m)) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 'i', &expire)) < 0) goto out;
    r = sd_bus_call(b->bus, m, call_timeout_usec, &err, &reply);
    if (r < 0) goto out;
    r = sd_bus_message_read_basic(reply, 'u', &id);
out:
    if (r < 0) copy_error(&err, r, error, error_len);
    sd_bus_error_free(&err);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(m);
    return r < 0 ? r : (int64_t)id;
}

/// A property's value of type 'u' or 'b' (into an int either way); -1 when it cannot be read (no such service).
static int read_property(sd_bus *bus, const char *dest, const char *path, const char *iface, const char *name, char type) {
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int value = -1, r;
    if (type == 'u') {
        uint32_t v = 0;
        r = sd_bus_get_property_trivial(bus, dest, path, iface, name, &err, 'u', &v);
        if (r >= 0) value = v > 1000 ? 0 : (int)v;
    } else {
        int v = 0;  // 'b' reads into an int, not a bool
        r = sd_bus_get_property_trivial(bus, dest, path, iface, name, &err, 'b', &v);
        if (r >= 0) value = v ? 1 : 0;
    }
    sd_bus_error_free(&err);
    return value;
}

/// PropertiesChanged (s a{sv} as) from NetworkManager or UPower: the values we follow, any others skipped.
static int on_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    tn_bus *b = userdata;
    const char *iface = NULL;
    if (sd_bus_message_read_basic(m, 's', &iface) < 0 || !iface) return 0;
    int nm = !strcmp(iface, "org.freedesktop.NetworkManager"), up = !strcmp(iface, "org.freedesktop.UPower");
    if (!nm && !up) return 0;
    if (sd_bus_message_enter_container(m, 'a', "{sv}") < 0) return 0;
    while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
        const char *name = NULL, *contents = NULL;
        char type = 0;
        if (sd_bus_message_read_basic(m, 's', &name) < 0 || !name) return 0;
        if (sd_bus_message_peek_type(m, &type, &contents) < 0) return 0;
        if (nm && !strcmp(name, "Metered") && contents && !strcmp(contents, "u")) {
            uint32_t v = 0;
            if (sd_bus_message_enter_container(m, 'v', "u") < 0 || sd_bus_message_read_basic(m, 'u', &v) < 0) return 0;
            sd_bus_message_exit_container(m);
            b->state->metered = v > 1000 ? 0 : (int)v;
            b->state->changes++;
        } else if (up && !strcmp(name, "OnBattery") && contents && !strcmp(contents, "b")) {
            int v = 0;
            if (sd_bus_message_enter_container(m, 'v', "b") < 0 || sd_bus_message_read_basic(m, 'b', &v) < 0) return 0;
            sd_bus_message_exit_container(m);
            b->state->on_battery = v ? 1 : 0;
            b->state->changes++;
        } else if (sd_bus_message_skip(m, "v") < 0) {
            return 0;
        }
        if (sd_bus_message_exit_container(m) < 0) return 0;
    }
    return 0;
}

static int on_prepare_for_sleep(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    tn_bus *b = userdata;
    int sleeping = 0;
    if (sd_bus_message_read_basic(m, 'b', &sleeping) < 0) return 0;
    b->state->sleeping = sleeping ? 1 : 0;
    if (!sleeping) b->state->resumes++;
    b->state->changes++;
    return 0;
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)m;
    (void)ret_error;
    tn_bus *b = userdata;
    b->state->owners_changed++;
    return 0;
}

int tn_bus_follow_system(tn_bus *b, tn_system_state *state) {
    b->state = state;
    int r;
    // The matches first, then the values: a change in between is not missed.
    r = sd_bus_match_signal(b->bus, NULL, "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                            "org.freedesktop.DBus.Properties", "PropertiesChanged", on_properties, b);
    if (r < 0) return r;
    r = sd_bus_match_signal(b->bus, NULL, "org.freedesktop.UPower", "/org/freedesktop/UPower",
                            "org.freedesktop.DBus.Properties", "PropertiesChanged", on_properties, b);
    if (r < 0) return r;
    r = sd_bus_match_signal(b->bus, NULL, "org.freedesktop.login1", "/org/freedesktop/login1",
                            "org.freedesktop.login1.Manager", "PrepareForSleep", on_prepare_for_sleep, b);
    if (r < 0) return r;
    static const char *const names[] = {"org.freedesktop.NetworkManager", "org.freedesktop.UPower", "org.freedesktop.login1"};
    for (int i = 0; i < 3; i++) {
        char match[256];
        snprintf(match, sizeof match,
                 "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
                 "member='NameOwnerChanged',arg0='%s'", names[i]);
        r = sd_bus_add_match(b->bus, NULL, match, on_name_owner_changed, b);
        if (r < 0) return r;
    }
    tn_bus_read_system(b);
    return 0;
}

void tn_bus_read_system(tn_bus *b) {
    if (!b->state) return;
    b->state->metered = read_property(b->bus, "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
                                      "org.freedesktop.NetworkManager", "Metered", 'u');
    b->state->on_battery = read_property(b->bus, "org.freedesktop.UPower", "/org/freedesktop/UPower",
                                         "org.freedesktop.UPower", "OnBattery", 'b');
    b->state->changes++;
}

int tn_bus_inhibit_sleep(tn_bus *b, const char *why) {
    sd_bus_message *m = NULL, *reply = NULL;
    sd_bus_error err = SD_BUS_ERROR_NULL;
    int fd = -1;
    int r = sd_bus_message_new_method_call(b->bus, &m, "org.freedesktop.login1", "/org/freedesktop/login1",
                                           "org.freedesktop.login1.Manager", "Inhibit");
    if (r < 0) goto out;
    // Not started on demand: logind is there or it is not.
    sd_bus_message_set_auto_start(m, 0);
    if ((r = sd_bus_message_append_basic(m, 's', "sleep")) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', "tnotes")) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', why)) < 0) goto out;
    if ((r = sd_bus_message_append_basic(m, 's', "delay")) < 0) goto out;
    if ((r = sd_bus_call(b->bus, m, call_timeout_usec, &err, &reply)) < 0) goto out;
    int borrowed = -1;  // owned by the reply
    if ((r = sd_bus_message_read_basic(reply, 'h', &borrowed)) < 0) goto out;
    fd = fcntl(borrowed, F_DUPFD_CLOEXEC, 3);
    r = fd < 0 ? -errno : fd;
out:
    sd_bus_error_free(&err);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(m);
    return r;
}

int tn_bus_wake_open(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}
