#include "accel/A/A.h"
