//===- FdoPipelines.h - Pipeline helpers of the FDO loop --------*- C++ -*-===//
//
// What FdoLoop.cpp uses of FdoPipelines.cpp besides the public
// getFdoPassPipelines and getFdoTrialPipelines.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_FDO_FDOPIPELINES_H
#define ACCEL_LIB_FDO_FDOPIPELINES_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace accel::detail {
/// The argument of the one pass that `text` (one element of splitPasses)
/// runs, through any op anchors: "accel-hoist-dma" for
/// "func.func(accel-hoist-dma{all=true})"; "" when it runs several
/// ("func.func(cse,canonicalize)").
std::string getPassArgument(llvm::StringRef text);
} // namespace accel::detail

#endif // ACCEL_LIB_FDO_FDOPIPELINES_H
