// A chip that reaches into its system. (A comment naming System * is fine.)
#include "accel/Sim/System.h"
struct Chip {
  System *system;
  const char *text = "Simulator & in a string is fine";
};
