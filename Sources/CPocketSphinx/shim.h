// PocketSphinx 5prealpha as Debian ships it (libpocketsphinx-dev); its headers pull in sphinxbase's.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
