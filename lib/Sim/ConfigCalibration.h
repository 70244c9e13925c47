//===- ConfigCalibration.h - The config's calibration tables ----*- C++ -*-===//
//
// Internal to lib/Sim: what MachineConfig.cpp uses of ConfigCalibration.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_SIM_CONFIGCALIBRATION_H
#define ACCEL_LIB_SIM_CONFIGCALIBRATION_H

#include "accel/Sim/MachineConfig.h"

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json_fwd.hpp>

namespace accel {
class JsonReader;
namespace sim::detail {
/// Reads the "calibration" array: the entries of `c.calibration`, each
/// table loaded (or taken from the cache), and each entry's file rewritten
/// in `doc` as an absolute path. Relative paths are relative to the
/// directory of `sourceName`.
void readCalibration(JsonReader &r, nlohmann::json &doc, MachineConfig &c,
                     llvm::StringRef sourceName);
} // namespace sim::detail
} // namespace accel

#endif // ACCEL_LIB_SIM_CONFIGCALIBRATION_H
