//===- ThreadDiagnostics.h - A diagnostic handler for one thread -*- C++
//-*-===//
//
// A function pass runs on the functions of a module in parallel, and an
// MLIRContext has one stack of diagnostic handlers for all threads: a
// ScopedDiagnosticHandler that a pass installs to catch (or silence) the
// diagnostics of a trial would also catch those that passes on other
// functions emit meanwhile, and lose them.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_THREADDIAGNOSTICS_H
#define ACCEL_SUPPORT_THREADDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <thread>
#include <utility>

namespace accel {

/// A ScopedDiagnosticHandler that handles only the diagnostics emitted on
/// the thread that created it (with `handler`, which returns success() when
/// it consumed the diagnostic); those of other threads go on to the
/// handlers below it (the pass manager's, the tool's). The context's
/// diagnostic engine calls handlers under its lock, so `handler` needs no
/// lock of its own for what only this thread reads.
class ThreadDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  template <typename FnT>
  ThreadDiagnosticHandler(mlir::MLIRContext *context, FnT &&handler)
      : mlir::ScopedDiagnosticHandler(context) {
    setHandler([thread = std::this_thread::get_id(),
                handler = std::forward<FnT>(handler)](
                   mlir::Diagnostic &diag) -> mlir::LogicalResult {
      if (std::this_thread::get_id() != thread)
        return mlir::failure();
      return handler(diag);
    });
  }
};

} // namespace accel

#endif // ACCEL_SUPPORT_THREADDIAGNOSTICS_H
