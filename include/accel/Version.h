//===- Version.h - What `--version` says about accel ------------*- C++ -*-===//
//
// The versions a user matches files against: accel's own, the ISA's
// (binary images and traces record it), the trace format's and the
// metrics.json schema's. The tools print them after LLVM's with
// llvm::cl::AddExtraVersionPrinter(accel::printVersion).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_VERSION_H
#define ACCEL_VERSION_H

#include "accel/Config.h"
#include "accel/ISA/Isa.h"
#include "accel/Replay/Trace.h"
#include "accel/Support/MetricsSchema.h"

#include "llvm/Support/raw_ostream.h"

namespace accel {

/// Prints "accel VERSION" and the ISA, trace format and metrics schema
/// versions, one line each.
inline void printVersion(llvm::raw_ostream &os) {
  os << "accel " << ACCEL_VERSION << "\n"
     << "  ISA version " << isa::kIsaVersion << " (binary images, traces)\n"
     << "  trace format version " << replay::kTraceFormatVersion << "\n"
     << "  metrics.json schema version " << kMetricsSchemaVersion << "\n";
}

} // namespace accel

#endif // ACCEL_VERSION_H
