// A library A whose header needs B.
#include "accel/B/B.h"
