//===- PassOptions.h - Pass options checked when a pass is made -*- C++ -*-===//
//
// accel's passes check their option values up front, not when they first
// meet an op (issue 31): when a textual pipeline is parsed
// (Pass::initializeOptions: accel-opt's --pass-pipeline and --PASS=...,
// accel-replay's --passes) and when a pass manager starts
// (Pass::initialize: a pass built in C++ from an options struct). A bad
// value is one error that names the pass, the option and the values it
// accepts, and nothing runs.
//
// A pass with checked options defines `std::string checkOptions() const`
// (an error message, "" when every value is valid) and forwards its two
// hooks here:
//
//   LogicalResult initializeOptions(
//       StringRef options,
//       function_ref<LogicalResult(const Twine &)> errorHandler) override {
//     return accel::initializeCheckedOptions(
//         *this, options, errorHandler, [&] { return checkOptions(); });
//   }
//   LogicalResult initialize(MLIRContext *context) override {
//     return accel::checkOptionsOnInitialize(*this, context, checkOptions());
//   }
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_PASSOPTIONS_H
#define ACCEL_SUPPORT_PASSOPTIONS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <string>

namespace accel {

/// Largest VMEM size a pass option may name, in bytes: the machine
/// config's limit (sim::kMaxVmemBytes, docs/config.md).
constexpr uint64_t kMaxOptionVmemBytes = 1ull << 32;

/// "OPTION must be in [LO, HI]; got VALUE" when `value` is outside
/// [lo, hi], else "". `why`, when given, follows the range in parentheses.
inline std::string checkOptionRange(llvm::StringRef option, int64_t value,
                                    int64_t lo, int64_t hi,
                                    llvm::StringRef why = "") {
  if (value >= lo && value <= hi)
    return "";
  return (llvm::Twine(option) + " must be in [" + llvm::Twine(lo) + ", " +
          llvm::Twine(hi) + "]" + (why.empty() ? "" : " (") + why +
          (why.empty() ? "" : ")") + "; got " + llvm::Twine(value))
      .str();
}

/// The same for an unsigned option.
inline std::string checkOptionRangeU(llvm::StringRef option, uint64_t value,
                                     uint64_t lo, uint64_t hi,
                                     llvm::StringRef why = "") {
  if (value >= lo && value <= hi)
    return "";
  return (llvm::Twine(option) + " must be in [" + llvm::Twine(lo) + ", " +
          llvm::Twine(hi) + "]" + (why.empty() ? "" : " (") + why +
          (why.empty() ? "" : ")") + "; got " + llvm::Twine(value))
      .str();
}

/// The first non-empty message of `messages`, or "".
inline std::string
firstOptionProblem(std::initializer_list<std::string> messages) {
  for (const std::string &m : messages)
    if (!m.empty())
      return m;
  return "";
}

/// The check of the vmem-capacity and vmem-page options of the FDO passes:
/// both in [1, kMaxOptionVmemBytes].
inline std::string checkVmemOptions(uint64_t capacity, uint64_t page) {
  return firstOptionProblem(
      {checkOptionRangeU("vmem-capacity", capacity, 1, kMaxOptionVmemBytes),
       checkOptionRangeU("vmem-page", page, 1, kMaxOptionVmemBytes)});
}

/// Pass::initializeOptions with `pass`'s option check: parses `options`
/// into the pass (MLIR's parser reports malformed values), then reports
/// `check()` (an error message, "" when the values are valid) through
/// `errorHandler` as "PASS: MESSAGE". Failure after either error.
template <typename CheckFn>
mlir::LogicalResult initializeCheckedOptions(
    mlir::Pass &pass, llvm::StringRef options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler,
    CheckFn check) {
  if (mlir::failed(pass.mlir::Pass::initializeOptions(options, errorHandler)))
    return mlir::failure();
  std::string problem = check();
  if (problem.empty())
    return mlir::success();
  (void)errorHandler(pass.getArgument() + ": " + problem);
  return mlir::failure();
}

/// Pass::initialize's check of a pass built from an options struct:
/// `problem` (from the pass's checkOptions) as one error "PASS: MESSAGE",
/// and failure, unless it is empty.
inline mlir::LogicalResult checkOptionsOnInitialize(mlir::Pass &pass,
                                                    mlir::MLIRContext *context,
                                                    llvm::StringRef problem) {
  if (problem.empty())
    return mlir::success();
  mlir::emitError(mlir::UnknownLoc::get(context))
      << pass.getArgument() << ": " << problem;
  return mlir::failure();
}

} // namespace accel

#endif // ACCEL_SUPPORT_PASSOPTIONS_H
