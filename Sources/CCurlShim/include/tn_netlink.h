#ifndef TN_NETLINK_H
#define TN_NETLINK_H

/* Opens an rtnetlink socket subscribed to link, address and route changes; -1 (errno set) on failure. */
int tn_netlink_open(void);

/* An eventfd (close-on-exec) for waking a thread blocked in poll; -1 (errno set) on failure. */
int tn_wake_fd_open(void);

#endif
