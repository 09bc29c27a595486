#include "fuzz_support.h"
