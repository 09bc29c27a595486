#include "tn_http.h"
#include "tn_netlink.h"
