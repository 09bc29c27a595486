// SWORD's "flat API" (Debian's libsword-dev): a C interface over the C++ library, declared inside
// extern "C", so Swift imports it as plain C. flatapi.h includes "defs.h" from the same directory, which the
// -I/usr/include/sword from pkg-config (`sword.pc`) provides.
#include <flatapi.h>
