// B needs A back: a cycle.
#include "accel/A/A.h"
