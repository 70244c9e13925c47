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
// A pass with checked options derives from CheckedOptionsPass (below),
// which forwards both hooks to the pass's `std::string checkOptions() const`
// (an error message, "" when every value is valid):
//
//   struct MyPass : CheckedOptionsPass<MyPass, impl::MyPassBase<MyPass>> {
//     using CheckedOptionsPass::CheckedOptionsPass;
//     std::string checkOptions() const { ... }
//   };
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
#include <type_traits>

namespace accel {

/// Largest VMEM size a pass option may name, in bytes: the machine
/// config's limit (sim::kMaxVmemBytes, docs/config.md).
constexpr uint64_t kMaxOptionVmemBytes = 1ull << 32;

namespace detail {
/// T, in a context where it is not deduced (std::type_identity of C++20).
template <typename T> struct NonDeduced { using type = T; };
} // namespace detail

/// "OPTION must be in [LO, HI]; got VALUE" when `value` is outside
/// [lo, hi], else "". `why`, when given, follows the range in parentheses.
/// One template for signed and unsigned options, named explicitly
/// (`checkOptionRange<int64_t>`, `checkOptionRange<uint64_t>`): an option
/// object converts to its value, and value and bounds then compare in T.
template <typename T>
std::string checkOptionRange(llvm::StringRef option,
                             typename detail::NonDeduced<T>::type value,
                             typename detail::NonDeduced<T>::type lo,
                             typename detail::NonDeduced<T>::type hi,
                             llvm::StringRef why = "") {
  static_assert(std::is_integral_v<T>, "an integer option");
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

/// The check of a frontend pass's `vmem-space` option: a numbered memory
/// space of 1 or above (space 0 is HBM).
inline std::string checkVmemSpaceOption(uint64_t space) {
  return checkOptionRange<uint64_t>("vmem-space", space, 1, UINT32_MAX,
                                    "space 0 is HBM");
}

/// The check of a frontend pass's `vmem-bytes` option: in
/// [1, kMaxOptionVmemBytes].
inline std::string checkVmemBytesOption(uint64_t bytes) {
  return checkOptionRange<uint64_t>("vmem-bytes", bytes, 1,
                                    kMaxOptionVmemBytes);
}

/// The check of the vmem-capacity and vmem-page options of the FDO passes:
/// both in [1, kMaxOptionVmemBytes].
inline std::string checkVmemOptions(uint64_t capacity, uint64_t page) {
  return firstOptionProblem(
      {checkOptionRange<uint64_t>("vmem-capacity", capacity, 1,
                                  kMaxOptionVmemBytes),
       checkOptionRange<uint64_t>("vmem-page", page, 1, kMaxOptionVmemBytes)});
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

/// The two option hooks above for a pass, once: derive a pass from
/// `CheckedOptionsPass<PassT, impl::GeneratedBase<PassT>>` instead of
/// `impl::GeneratedBase<PassT>`, inherit its constructors
/// (`using CheckedOptionsPass::CheckedOptionsPass;`) and define
/// `std::string checkOptions() const` ("" when every value is valid).
template <typename PassT, typename GeneratedBase>
class CheckedOptionsPass : public GeneratedBase {
public:
  using GeneratedBase::GeneratedBase;

  mlir::LogicalResult
  initializeOptions(llvm::StringRef options,
                    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                        errorHandler) override {
    return initializeCheckedOptions(*this, options, errorHandler, [&] {
      return static_cast<const PassT &>(*this).checkOptions();
    });
  }
  mlir::LogicalResult initialize(mlir::MLIRContext *context) override {
    return checkOptionsOnInitialize(
        *this, context, static_cast<const PassT &>(*this).checkOptions());
  }
};

} // namespace accel

#endif // ACCEL_SUPPORT_PASSOPTIONS_H
