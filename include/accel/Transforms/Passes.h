//===- Passes.h - accel passes ----------------------------------*- C++ -*-===//

#ifndef ACCEL_TRANSFORMS_PASSES_H
#define ACCEL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <nlohmann/json_fwd.hpp>

namespace accel {

#define GEN_PASS_DECL
#include "accel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "accel/Transforms/Passes.h.inc"

/// Attaches the per-op entries of a parsed metrics.json to `module` (see the
/// accel-attach-metrics pass). Returns the number of ops that got metrics;
/// stale and missing ids are reported as warnings. Fails (with an error on
/// the module) when `metrics` does not follow the schema version this build
/// reads.
mlir::FailureOr<unsigned> attachMetrics(mlir::ModuleOp module,
                                        const nlohmann::json &metrics,
                                        unsigned *numStale = nullptr);

} // namespace accel

#endif // ACCEL_TRANSFORMS_PASSES_H
